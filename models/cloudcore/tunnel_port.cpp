#include "models/cloudcore/tunnel_port.hpp"

#include <charconv>

#include "sim/assert.hpp"

namespace hasim::cloudcore {

std::string format_record(const TunnelPortRecord& record) {
  std::string out;
  for (const auto& [ip, port] : record.ip_tunnel_port) {
    HASIM_ASSERT(record.ports.contains(port));  // every assigned port is marked taken
    if (!out.empty()) out += ',';
    out += ip + "=" + std::to_string(port);
  }
  return out;
}

std::optional<TunnelPortRecord> parse_record(std::string_view text) {
  TunnelPortRecord record;
  constexpr std::size_t kMaxEntries = 4096;  // far above any replica count
  while (!text.empty()) {
    if (record.ip_tunnel_port.size() >= kMaxEntries) return std::nullopt;
    const std::size_t comma = std::min(text.find(','), text.size());
    const std::string_view entry = text.substr(0, comma);
    const std::size_t eq = entry.find('=');
    if (eq == std::string_view::npos || eq == 0) return std::nullopt;
    int port = 0;
    const auto digits = entry.substr(eq + 1);
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
    if (error != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
    record.ip_tunnel_port[std::string(entry.substr(0, eq))] = port;
    record.ports.insert(port);
    text.remove_prefix(std::min(comma + 1, text.size()));
  }
  return record;
}

int negotiate_port(const std::set<int>& taken) {
  // v1.8.0 increments before it tests: the first port handed out is 10351.
  for (int port = kServerPort + 1; port < 65536; ++port) {
    if (!taken.contains(port)) return port;
  }
  HASIM_ASSERT(false);  // 55,000 replicas
  return 0;
}

TunnelPortPlan plan_tunnel_port(const std::optional<TunnelPortRecord>& existing,
                                const std::string& ip) {
  HASIM_ASSERT(!ip.empty());
  TunnelPortPlan plan;
  if (existing.has_value()) {
    if (const auto it = existing->ip_tunnel_port.find(ip); it != existing->ip_tunnel_port.end()) {
      plan.port = it->second;  // "port, found := record.IPTunnelPort[localIP]; if found"
      return plan;
    }
    plan.record = *existing;
    plan.write = TunnelPortWrite::update;
  } else {
    plan.write = TunnelPortWrite::create;
  }
  plan.port = negotiate_port(plan.record.ports);
  plan.record.ip_tunnel_port[ip] = plan.port;
  plan.record.ports.insert(plan.port);
  HASIM_ASSERT(plan.port > kServerPort);
  return plan;
}

}  // namespace hasim::cloudcore
