#include "models/druid/holder_identity.hpp"

#include <vector>

#include "sim/assert.hpp"

namespace hasim::druid {

std::string_view name(EtcdRole role) {
  switch (role) {
    case EtcdRole::kLeader:
      return "Leader";
    case EtcdRole::kMember:
      return "Member";
  }
  HASIM_ASSERT(false);
}

namespace {

// Go's strings.Split with a non-empty separator: n separators give n + 1 parts, empty parts
// included.
std::vector<std::string_view> split_on_colon(std::string_view text) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t colon = text.find(':', start);
    if (colon == std::string_view::npos) break;
    parts.push_back(text.substr(start, colon - start));
    start = colon + 1;
  }
  parts.push_back(text.substr(start));
  HASIM_ASSERT(!parts.empty());
  return parts;
}

// check_ready.go asEtcdRole: an exact, case-sensitive match, else no role.
std::optional<EtcdRole> as_etcd_role(std::string_view text) {
  if (text == "Leader") return EtcdRole::kLeader;
  if (text == "Member") return EtcdRole::kMember;
  return std::nullopt;
}

std::string hex(std::uint64_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string reversed;
  do {
    reversed.push_back(kDigits[value & 0xF]);
    value >>= 4;
  } while (value != 0);
  return std::string(reversed.rbegin(), reversed.rend());
}

}  // namespace

std::optional<HolderIdentity> parse_holder_identity(std::string_view holder_identity) {
  const std::vector<std::string_view> parts = split_on_colon(holder_identity);
  if (parts.size() == 2) {
    return HolderIdentity{std::string(parts[0]), std::nullopt, as_etcd_role(parts[1])};
  }
  if (parts.size() == 3) {
    return HolderIdentity{std::string(parts[0]), std::string(parts[1]), as_etcd_role(parts[2])};
  }
  return std::nullopt;
}

std::string format_holder_identity(std::uint64_t member_id, std::uint64_t cluster_id,
                                   bool is_leader) {
  std::string out = hex(member_id) + ":" + hex(cluster_id) + (is_leader ? ":Leader" : ":Member");
  HASIM_ASSERT(out.size() >= 10);  // "0:0:Member" is the shortest
  return out;
}

}  // namespace hasim::druid
