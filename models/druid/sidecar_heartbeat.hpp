#pragma once
// The member-Lease heartbeat of etcd-backup-restore (pkg/health/heartbeat/heartbeat.go,
// RenewMemberLease and RenewMemberLeasePeriodically). Each renewal reads Status from the
// local etcd and writes holderIdentity and renewTime (plus the peer-TLS annotation). This
// file only formats the identity and spaces the renewals; druid's parser of it is separate.
#include <cstdint>
#include <string>

#include "sim/time.hpp"

namespace hasim::druid::sidecar {

inline constexpr Duration kDefaultHeartbeatDuration = seconds(30);  // br types/health.go
inline constexpr Duration kDruidHeartbeatDuration =
    seconds(10);  // druid's --k8s-heartbeat-duration

// `<memberID>:<clusterID>:<Leader|Member>`, IDs in lowercase hex without padding
// (strconv.FormatUint(id, 16)); Leader when the member's ID equals the leader in the same
// Status response.
std::string member_lease_holder_identity(std::uint64_t member_id, std::uint64_t cluster_id,
                                         std::uint64_t leader);

// The renewal loop uses a timer reset after each attempt (failures are only logged): the
// first renewal is one period after the loop starts, each next one a period after the
// previous attempt finished.
LocalTime next_lease_renewal(LocalTime previous_attempt_finished, Duration heartbeat_duration);

}  // namespace hasim::druid::sidecar
