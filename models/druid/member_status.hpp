#pragma once
// status.members of an Etcd, as etcd-druid computes it on every status reconcile from the
// member Leases that backup-restore renews (internal/health/etcdmember/check_ready.go and
// builder.go; thresholds from api/config/v1alpha1/defaults.go).
//
// The check looks at one Lease per expected member (spec.replicas of them) and, only when the
// Lease has been stale for longer than UnknownThreshold, at the pod's ContainersReady
// condition. A Lease that is missing, unreadable, has no parsable holderIdentity, or has never
// been renewed yields no entry, so such a member is absent from status.members.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/druid/holder_identity.hpp"
#include "sim/time.hpp"

namespace hasim::druid {

// api/config/v1alpha1/defaults.go: DefaultEtcdUnknownThreshold, DefaultEtcdNotReadyThreshold.
// NotReady is reached UnknownThreshold + NotReadyThreshold after the last renewal.
struct MemberThresholds {
  Duration unknown_threshold = minutes(1);
  Duration not_ready_threshold = minutes(5);
};

// api/config/v1alpha1/defaults.go DefaultEtcdStatusSyncPeriod: how often status is recomputed.
inline constexpr Duration kDefaultEtcdStatusSyncPeriod = seconds(15);

// api/core/v1alpha1/etcd.go EtcdMemberConditionStatus.
enum class MemberStatus { kReady, kNotReady, kUnknown };
std::string_view name(MemberStatus status);

// The reasons check_ready.go writes into status.members[].reason.
enum class MemberReason {
  kLeaseSucceeded,
  kLeaseExpired,
  kContainersNotReady,
  kUnknownGracePeriodExceeded,
};
std::string_view name(MemberReason reason);

// The outcome of a client Get for an object: found, NotFound, or any other error.
enum class ObjectRead { kFound, kNotFound, kError };

// What the pod's ContainersReady condition says, as checkContainersAreReady sees it.
enum class PodContainersReady {
  kTrue,
  kFalse,            // status False or Unknown: anything but "True"
  kConditionAbsent,  // pod found but has no ContainersReady condition: counts as not ready
  kPodNotFound,      // counts as not ready
  kPodUnreadable,    // a Get error other than NotFound: does NOT count as not ready
};

// One expected member Lease (name from GetMemberLeaseNames) and its pod, as read this round.
struct MemberLeaseObservation {
  std::string name;
  ObjectRead read = ObjectRead::kFound;
  std::optional<std::string> holder_identity;  // nullopt: unset, as druid creates the Lease
  std::optional<LocalTime> renew_time;         // nullopt: never renewed (bootstrapping)
  PodContainersReady pod = PodContainersReady::kTrue;
};

// One result of the check for one member (etcdmember/types.go result).
struct MemberCheckResult {
  std::string id;
  std::string name;
  std::optional<EtcdRole> role;
  MemberStatus status = MemberStatus::kUnknown;
  MemberReason reason = MemberReason::kLeaseExpired;
};

// One entry of status.members (api/core/v1alpha1/etcd.go EtcdMemberStatus).
struct EtcdMemberStatus {
  std::string id;
  std::string name;
  std::optional<EtcdRole> role;
  MemberStatus status = MemberStatus::kUnknown;
  MemberReason reason = MemberReason::kLeaseExpired;
  LocalTime last_transition_time{};
};

// The check for one Lease at `now`; nullopt when the member is skipped.
std::optional<MemberCheckResult> check_member(const MemberLeaseObservation& lease, LocalTime now,
                                              const MemberThresholds& thresholds);

// The check for every expected Lease, in the given order, skipped members left out.
std::vector<MemberCheckResult> check_members(std::span<const MemberLeaseObservation> leases,
                                             LocalTime now, const MemberThresholds& thresholds);

// builder.go Build: one entry per result (a later result for the same name wins), sorted by
// name; lastTransitionTime is `now` unless the previous entry of that name had the same
// status. Previous entries without a result this round are dropped.
std::vector<EtcdMemberStatus> build_member_statuses(std::span<const MemberCheckResult> results,
                                                    std::span<const EtcdMemberStatus> previous,
                                                    LocalTime now);

// Both steps, as status/check.go executeEtcdMemberChecks runs them.
std::vector<EtcdMemberStatus> compute_member_statuses(
    std::span<const MemberLeaseObservation> leases, std::span<const EtcdMemberStatus> previous,
    LocalTime now, const MemberThresholds& thresholds);

}  // namespace hasim::druid
