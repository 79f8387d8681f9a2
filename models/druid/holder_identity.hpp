#pragma once
// A member Lease's holderIdentity: who renewed it and in which role. etcd-backup-restore
// writes "<memberID hex>:<clusterID hex>:<Leader|Member>" on every renewal
// (pkg/health/heartbeat/heartbeat.go); releases up to v0.39.0 wrote "<memberID hex>:<role>",
// and etcd-druid still reads both (internal/health/etcdmember/check_ready.go,
// extractMemberIdAndRole; internal/health/condition/check_cluster_id_mismatch.go,
// extractClusterId).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hasim::druid {

// api/core/v1alpha1/etcd.go EtcdRole.
enum class EtcdRole { kLeader, kMember };
std::string_view name(EtcdRole role);

struct HolderIdentity {
  // Kept as written: druid never decodes the hex, it copies the text into status.members[].id.
  std::string member_id;
  // Only the 3-part form carries one; it may be empty ("a::Leader" splits into 3 parts).
  std::optional<std::string> cluster_id;
  // nullopt when the last part is neither "Leader" nor "Member": druid keeps such a member,
  // without a role, rather than rejecting the lease (asEtcdRole returns nil).
  std::optional<EtcdRole> role;
};

// Splits on ':' like Go's strings.Split: 2 or 3 parts are accepted, anything else (including
// the empty string, which is one part) is rejected with nullopt.
std::optional<HolderIdentity> parse_holder_identity(std::string_view holder_identity);

// What backup-restore writes: lower-case hex without leading zeros or "0x" (Go's
// strconv.FormatUint(x, 16)), "Leader" when the member's ID equals the leader ID reported by
// etcd's Status call.
std::string format_holder_identity(std::uint64_t member_id, std::uint64_t cluster_id,
                                   bool is_leader);

}  // namespace hasim::druid
