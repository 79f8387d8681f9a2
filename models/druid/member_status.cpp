#include "models/druid/member_status.hpp"

#include <algorithm>
#include <map>

#include "sim/assert.hpp"

namespace hasim::druid {

std::string_view name(MemberStatus status) {
  switch (status) {
    case MemberStatus::kReady:
      return "Ready";
    case MemberStatus::kNotReady:
      return "NotReady";
    case MemberStatus::kUnknown:
      return "Unknown";
  }
  HASIM_ASSERT(false);
}

std::string_view name(MemberReason reason) {
  switch (reason) {
    case MemberReason::kLeaseSucceeded:
      return "LeaseSucceeded";
    case MemberReason::kLeaseExpired:
      return "LeaseExpired";
    case MemberReason::kContainersNotReady:
      return "ContainersNotReady";
    case MemberReason::kUnknownGracePeriodExceeded:
      return "UnknownGracePeriodExceeded";
  }
  HASIM_ASSERT(false);
}

namespace {

// checkContainersAreReady followed by the caller's test `(err == nil && !ready) ||
// IsNotFound(err)`: a pod that cannot be read for another reason gives the member the
// benefit of the doubt (Unknown), a missing pod or a not-ready one does not.
bool counts_as_containers_not_ready(PodContainersReady pod) {
  switch (pod) {
    case PodContainersReady::kTrue:
    case PodContainersReady::kPodUnreadable:
      return false;
    case PodContainersReady::kFalse:
    case PodContainersReady::kConditionAbsent:
    case PodContainersReady::kPodNotFound:
      return true;
  }
  HASIM_ASSERT(false);
}

}  // namespace

std::optional<MemberCheckResult> check_member(const MemberLeaseObservation& lease, LocalTime now,
                                              const MemberThresholds& thresholds) {
  HASIM_ASSERT(thresholds.unknown_threshold.ns >= 0 && thresholds.not_ready_threshold.ns >= 0);
  // Missing Leases are expected while a scale-up is not yet reconciled; read errors are only
  // logged. Either way the member gets no entry.
  if (lease.read != ObjectRead::kFound) return std::nullopt;
  // A nil or malformed holderIdentity is logged and skipped (extractMemberIdAndRole errors).
  if (!lease.holder_identity.has_value()) return std::nullopt;
  const std::optional<HolderIdentity> holder = parse_holder_identity(*lease.holder_identity);
  if (!holder.has_value()) return std::nullopt;
  // No renewTime: still bootstrapping. The Ready condition relies on such members being absent.
  if (!lease.renew_time.has_value()) return std::nullopt;

  MemberCheckResult out{holder->member_id, lease.name, holder->role, MemberStatus::kReady,
                        MemberReason::kLeaseSucceeded};
  const LocalTime unknown_after = *lease.renew_time + thresholds.unknown_threshold;
  const LocalTime not_ready_after = unknown_after + thresholds.not_ready_threshold;
  // Go's Time.Before is strict: exactly at a threshold the earlier verdict still holds.
  if (not_ready_after < now) {
    out.status = MemberStatus::kNotReady;
    out.reason = MemberReason::kUnknownGracePeriodExceeded;
  } else if (unknown_after < now) {
    const bool not_ready = counts_as_containers_not_ready(lease.pod);
    out.status = not_ready ? MemberStatus::kNotReady : MemberStatus::kUnknown;
    out.reason = not_ready ? MemberReason::kContainersNotReady : MemberReason::kLeaseExpired;
  }
  HASIM_ASSERT((out.status == MemberStatus::kReady) ==
               (out.reason == MemberReason::kLeaseSucceeded));
  return out;
}

std::vector<MemberCheckResult> check_members(std::span<const MemberLeaseObservation> leases,
                                             LocalTime now, const MemberThresholds& thresholds) {
  std::vector<MemberCheckResult> results;
  for (const MemberLeaseObservation& lease : leases) {
    if (auto result = check_member(lease, now, thresholds)) results.push_back(std::move(*result));
  }
  HASIM_ASSERT(results.size() <= leases.size());
  return results;
}

std::vector<EtcdMemberStatus> build_member_statuses(std::span<const MemberCheckResult> results,
                                                    std::span<const EtcdMemberStatus> previous,
                                                    LocalTime now) {
  // Keyed by name as upstream's maps are; with duplicate names the later entry wins there too.
  std::map<std::string, const EtcdMemberStatus*> old_by_name;
  for (const EtcdMemberStatus& member : previous) old_by_name[member.name] = &member;
  std::map<std::string, const MemberCheckResult*> result_by_name;
  for (const MemberCheckResult& result : results) result_by_name[result.name] = &result;

  std::vector<EtcdMemberStatus> members;
  // std::map iterates in byte-wise name order, the order Go's sort by string gives.
  for (const auto& [member_name, result] : result_by_name) {
    EtcdMemberStatus member{result->id,     result->name,   result->role,
                            result->status, result->reason, now};
    const auto old = old_by_name.find(member_name);
    // Only the status matters: a new reason or role alone keeps the old transition time.
    if (old != old_by_name.end() && old->second->status == result->status) {
      member.last_transition_time = old->second->last_transition_time;
    }
    members.push_back(std::move(member));
  }
  HASIM_ASSERT(std::is_sorted(members.begin(), members.end(),
                              [](const auto& a, const auto& b) { return a.name < b.name; }));
  HASIM_ASSERT(members.size() <= results.size());
  return members;
}

std::vector<EtcdMemberStatus> compute_member_statuses(
    std::span<const MemberLeaseObservation> leases, std::span<const EtcdMemberStatus> previous,
    LocalTime now, const MemberThresholds& thresholds) {
  const std::vector<MemberCheckResult> results = check_members(leases, now, thresholds);
  return build_member_statuses(results, previous, now);
}

}  // namespace hasim::druid
