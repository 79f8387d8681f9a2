#pragma once
// status.conditions of an Etcd (internal/health/condition/*.go, merged by builder.go and run
// from internal/health/status/check.go after status.members has been recomputed). BackupReady
// lives in backup_ready.hpp.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/druid/member_status.hpp"
#include "sim/time.hpp"

namespace hasim::druid {

// api/core/v1alpha1/conditions.go (the Progressing and ConditionCheckError values are never
// produced by these checks).
enum class ConditionStatus { kTrue, kFalse, kUnknown };
std::string_view name(ConditionStatus status);

// api/core/v1alpha1/etcd.go ConditionType. Declared in the byte-wise order of their names, so
// sorting by enum value is sorting by name as builder.go does.
enum class ConditionType {
  kAllMembersReady,
  kAllMembersUpdated,
  kBackupReady,
  kBootstrappedWithExistingCluster,
  kClusterIDMismatch,
  kDataVolumesReady,
  kLastSnapshotCompactionSucceeded,  // set elsewhere; the builder carries it over untouched
  kReady,
};
std::string_view name(ConditionType type);

// Every reason the status checks write.
enum class ConditionReason {
  kQuorate,
  kQuorumLost,
  kNoMembersInStatus,
  kAllMembersReady,
  kNotAllMembersReady,
  kAllMembersUpdated,
  kNotAllMembersUpdated,
  kUnableToFetchStatefulSet,
  kStatefulSetNotFound,
  kNoWarningsFoundForDataVolumes,
  kFoundWarningsForDataVolumes,
  kUnableToFetchWarningEventsForDataVolumes,
  kNoClusterIDDetected,
  kNoClusterIDMismatchDetected,
  kMultipleClusterIDsDetected,
  kUnableToFetchLease,
  kUnableToParseLeaseHolderIdentity,
  kBackupSucceeded,
  kBackupFailed,
  kUnknown,     // BackupReady's reason when it cannot tell
  kNotChecked,  // every condition while spec.replicas is 0
  kOther,       // a reason written by a check not modelled here
};
std::string_view name(ConditionReason reason);

// What one check returns (condition/types.go result); messages are not modelled.
struct ConditionResult {
  ConditionType type = ConditionType::kReady;
  ConditionStatus status = ConditionStatus::kUnknown;
  ConditionReason reason = ConditionReason::kOther;
};

// One entry of status.conditions (api/core/v1alpha1/conditions.go Condition).
struct Condition {
  ConditionType type = ConditionType::kReady;
  ConditionStatus status = ConditionStatus::kUnknown;
  ConditionReason reason = ConditionReason::kOther;
  LocalTime last_transition_time{};
  LocalTime last_update_time{};
};

// The member-based checks take status.members as just recomputed this round (status/check.go
// runs the member checks first and the condition checks on the updated Etcd); BackupReady
// instead compares with the conditions from before this round.

// check_ready.go: quorum over the entries of status.members (not spec.replicas); every member
// that is not NotReady, Unknown ones included, counts towards it.
ConditionResult check_ready(std::span<const EtcdMemberStatus> members);

// check_all_members_ready.go: True only with at least spec.replicas entries, all Ready.
ConditionResult check_all_members_ready(std::span<const EtcdMemberStatus> members,
                                        std::int32_t spec_replicas);

// check_cluster_id_mismatch.go. `leases` are the expected member Leases in ordinal order
// (only read, name and holderIdentity are used). True means a problem: members that are not
// Unknown report more than one clusterID.
ConditionResult check_cluster_id_mismatch(std::span<const EtcdMemberStatus> members,
                                          std::span<const MemberLeaseObservation> leases);

// The StatefulSet fields AllMembersUpdated compares.
struct StatefulSetRollout {
  std::int64_t generation = 0;
  std::int64_t observed_generation = 0;
  std::int32_t spec_replicas = 0;
  std::int32_t updated_replicas = 0;
  std::string current_revision;
  std::string update_revision;
};

// check_all_members_updated.go; `rollout` is read only when the StatefulSet was found.
ConditionResult check_all_members_updated(ObjectRead statefulset,
                                          const StatefulSetRollout& rollout);

// check_data_volumes_ready.go. `warning_events` is whether listing the Warning events of the
// StatefulSet's PVCs succeeded and found any (nullopt: the listing failed).
ConditionResult check_data_volumes_ready(ObjectRead statefulset,
                                         std::optional<bool> warning_events);

// builder.go Build: merges this round's results into the previous conditions at `now`.
// lastTransitionTime moves only when the status differs from the previous one; lastUpdateTime
// always moves. With spec.replicas 0 every recomputed condition keeps its previous status
// (Unknown if new) with reason NotChecked. Previous conditions of the types these checks own
// are dropped when not recomputed (so BackupReady vanishes with the backup store); others are
// kept as they were. Sorted by type name.
std::vector<Condition> build_conditions(std::span<const ConditionResult> results,
                                        std::span<const Condition> previous,
                                        std::int32_t spec_replicas, LocalTime now);

}  // namespace hasim::druid
