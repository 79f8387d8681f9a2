#include "properties/cloudcore/tunnel_routes.hpp"

#include "models/cloudcore/trace_kinds.hpp"
#include "properties/cloudcore/process_names.hpp"
#include "sim/assert.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {
namespace {

using cloudcore_trace::qualified;
constexpr std::string_view kProcess = cloudcore_trace::kCloudCoreProcess;

}  // namespace

bool TunnelRoutes::wants(std::string_view kind) const {
  namespace cc = cloudcore::trace_kind;
  return kind == cc::kTunnelPort || kind == cc::kNodeKubeletPort || kind == cc::kSessionOpen ||
         kind == cc::kSessionClose || kind == trace_kind::kCrash || kind == trace_kind::kExit ||
         kind == trace_kind::kNodeDown || FaultsInForce::wants(kind);
}

void TunnelRoutes::on_event(const TraceEvent& event) {
  namespace cc = cloudcore::trace_kind;
  if (!wants(event.kind)) return;
  faults_.observe(event);
  const bool from_cloudcore = event.proc == kProcess;
  if (event.kind == cc::kTunnelPort && from_cloudcore && event.int_field("port") != 0) {
    ports_[qualified(event)] = static_cast<int>(event.int_field("port"));
  } else if (event.kind == cc::kNodeKubeletPort) {
    Edge& edge = edges_[std::string(event.string_field("edge"))];
    edge.node_port = static_cast<int>(event.int_field("port"));
    recheck(edge, event.t);
  } else if (event.kind == cc::kSessionOpen && from_cloudcore) {
    Edge& edge = edges_[std::string(event.string_field("edge"))];
    edge.attached = qualified(event);
    recheck(edge, event.t);
  } else if (event.kind == cc::kSessionClose && from_cloudcore) {
    Edge& edge = edges_[std::string(event.string_field("edge"))];
    if (edge.attached == qualified(event)) edge.attached.reset();
    recheck(edge, event.t);
  } else if (event.kind == trace_kind::kNodeDown) {
    detach(std::string(event.node) + "/" + std::string(kProcess));
  } else if (from_cloudcore && (event.kind == trace_kind::kCrash || event.kind == trace_kind::kExit)) {
    detach(qualified(event));  // its sockets close with it
  }
  check(event.t);
}

void TunnelRoutes::detach(const std::string& replica) {
  for (auto& [name, edge] : edges_) {
    if (edge.attached != replica) continue;
    edge.attached.reset();
    edge.wrong_since.reset();
  }
}

void TunnelRoutes::recheck(Edge& edge, TrueTime now) {
  const auto port = edge.attached ? ports_.find(*edge.attached) : ports_.end();
  const bool wrong = edge.attached.has_value() &&
                     (port == ports_.end() || edge.node_port != port->second);
  if (!wrong) return edge.wrong_since.reset();
  if (!edge.wrong_since.has_value()) edge.wrong_since = now;
}

void TunnelRoutes::check(TrueTime now) {
  if (violation().has_value() || faults_.active()) return;
  for (const auto& [name, edge] : edges_) {
    if (!edge.wrong_since.has_value()) continue;
    const TrueTime since = *edge.wrong_since;
    const TrueTime from = since > faults_.healed_since() ? since : faults_.healed_since();
    if (now - from <= bound_) continue;
    const auto port = ports_.find(*edge.attached);
    std::string detail = "node " + name + " is attached to " + *edge.attached + " (tunnel port " +
                         (port == ports_.end() ? std::string("not negotiated")
                                               : std::to_string(port->second)) +
                         ") but its Node sends logs/exec to port " +
                         (edge.node_port ? std::to_string(*edge.node_port) : std::string("none")) +
                         " from t=" + format_seconds(since.ns) + "s to at least t=" +
                         format_seconds(now.ns) + "s, longer than the bound " +
                         format_duration(bound_);
    violate(from + bound_, std::move(detail), {});
    return;
  }
}

void TunnelRoutes::finish(TrueTime end) { check(end); }

}  // namespace hasim
