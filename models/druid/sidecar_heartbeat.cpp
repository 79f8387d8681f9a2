#include "models/druid/sidecar_heartbeat.hpp"

#include "sim/assert.hpp"

namespace hasim::druid::sidecar {

namespace {

std::string hex(std::uint64_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string reversed;
  for (int i = 0; i < 16; ++i) {  // a 64-bit value has at most 16 hex digits
    reversed.push_back(kDigits[value & 0xF]);
    value >>= 4;
    if (value == 0) break;
  }
  HASIM_ASSERT(value == 0);
  return std::string(reversed.rbegin(), reversed.rend());
}

}  // namespace

std::string member_lease_holder_identity(std::uint64_t member_id, std::uint64_t cluster_id,
                                         std::uint64_t leader) {
  HASIM_ASSERT(member_id != 0);
  std::string identity = hex(member_id) + ":" + hex(cluster_id);
  identity += member_id == leader ? ":Leader" : ":Member";
  return identity;
}

LocalTime next_lease_renewal(LocalTime previous_attempt_finished, Duration heartbeat_duration) {
  HASIM_ASSERT(heartbeat_duration.ns > 0);
  return previous_attempt_finished + heartbeat_duration;
}

}  // namespace hasim::druid::sidecar
