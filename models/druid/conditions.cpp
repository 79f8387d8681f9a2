#include "models/druid/conditions.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "sim/assert.hpp"

namespace hasim::druid {

std::string_view name(ConditionStatus status) {
  switch (status) {
    case ConditionStatus::kTrue:
      return "True";
    case ConditionStatus::kFalse:
      return "False";
    case ConditionStatus::kUnknown:
      return "Unknown";
  }
  HASIM_ASSERT(false);
}

std::string_view name(ConditionType type) {
  switch (type) {
    case ConditionType::kAllMembersReady:
      return "AllMembersReady";
    case ConditionType::kAllMembersUpdated:
      return "AllMembersUpdated";
    case ConditionType::kBackupReady:
      return "BackupReady";
    case ConditionType::kBootstrappedWithExistingCluster:
      return "BootstrappedWithExistingCluster";
    case ConditionType::kClusterIDMismatch:
      return "ClusterIDMismatch";
    case ConditionType::kDataVolumesReady:
      return "DataVolumesReady";
    case ConditionType::kLastSnapshotCompactionSucceeded:
      return "LastSnapshotCompactionSucceeded";
    case ConditionType::kReady:
      return "Ready";
  }
  HASIM_ASSERT(false);
}

std::string_view name(ConditionReason reason) {
  using R = ConditionReason;
  switch (reason) {
    case R::kQuorate:
      return "Quorate";
    case R::kQuorumLost:
      return "QuorumLost";
    case R::kNoMembersInStatus:
      return "NoMembersInStatus";
    case R::kAllMembersReady:
      return "AllMembersReady";
    case R::kNotAllMembersReady:
      return "NotAllMembersReady";
    case R::kAllMembersUpdated:
      return "AllMembersUpdated";
    case R::kNotAllMembersUpdated:
      return "NotAllMembersUpdated";
    case R::kUnableToFetchStatefulSet:
      return "UnableToFetchStatefulSet";
    case R::kStatefulSetNotFound:
      return "StatefulSetNotFound";
    case R::kNoWarningsFoundForDataVolumes:
      return "NoWarningsFoundForDataVolumes";
    case R::kFoundWarningsForDataVolumes:
      return "FoundWarningsForDataVolumes";
    case R::kUnableToFetchWarningEventsForDataVolumes:
      return "UnableToFetchWarningEventsForDataVolumes";
    case R::kNoClusterIDDetected:
      return "NoClusterIDDetected";
    case R::kNoClusterIDMismatchDetected:
      return "NoClusterIDMismatchDetected";
    case R::kMultipleClusterIDsDetected:
      return "MultipleClusterIDsDetected";
    case R::kUnableToFetchLease:
      return "UnableToFetchLease";
    case R::kUnableToParseLeaseHolderIdentity:
      return "UnableToParseLeaseHolderIdentity";
    case R::kBackupSucceeded:
      return "BackupSucceeded";
    case R::kBackupFailed:
      return "BackupFailed";
    case R::kUnknown:
      return "Unknown";
    case R::kNotChecked:
      return "NotChecked";
    case R::kOther:
      return "Other";
  }
  HASIM_ASSERT(false);
}

ConditionResult check_ready(std::span<const EtcdMemberStatus> members) {
  constexpr auto kType = ConditionType::kReady;
  if (members.empty()) {
    return {kType, ConditionStatus::kUnknown, ConditionReason::kNoMembersInStatus};
  }
  // Bootstrapping members are absent from status.members (member_status.cpp), so during a
  // scale-up the quorum is that of the members already seen, not of spec.replicas.
  const std::size_t quorum = members.size() / 2 + 1;
  const auto counted = static_cast<std::size_t>(
      std::count_if(members.begin(), members.end(),
                    [](const EtcdMemberStatus& m) { return m.status != MemberStatus::kNotReady; }));
  HASIM_ASSERT(quorum >= 1 && quorum <= members.size());
  if (counted < quorum) return {kType, ConditionStatus::kFalse, ConditionReason::kQuorumLost};
  return {kType, ConditionStatus::kTrue, ConditionReason::kQuorate};
}

ConditionResult check_all_members_ready(std::span<const EtcdMemberStatus> members,
                                        std::int32_t spec_replicas) {
  constexpr auto kType = ConditionType::kAllMembersReady;
  if (members.empty()) {
    return {kType, ConditionStatus::kUnknown, ConditionReason::kNoMembersInStatus};
  }
  const bool all_registered =
      members.size() >= static_cast<std::size_t>(std::max(0, spec_replicas));
  const bool all_ready = std::all_of(members.begin(), members.end(), [](const EtcdMemberStatus& m) {
    return m.status == MemberStatus::kReady;
  });
  if (all_registered && all_ready) {
    return {kType, ConditionStatus::kTrue, ConditionReason::kAllMembersReady};
  }
  return {kType, ConditionStatus::kFalse, ConditionReason::kNotAllMembersReady};
}

ConditionResult check_cluster_id_mismatch(std::span<const EtcdMemberStatus> members,
                                          std::span<const MemberLeaseObservation> leases) {
  constexpr auto kType = ConditionType::kClusterIDMismatch;
  // Every existing Lease must parse, even one no member entry refers to: a Lease druid has
  // just created (holderIdentity unset) makes the whole condition Unknown. The first failing
  // Lease in ordinal order decides the reason.
  std::map<std::string, std::string> cluster_id_by_lease;
  for (const MemberLeaseObservation& lease : leases) {
    if (lease.read == ObjectRead::kNotFound) continue;
    if (lease.read == ObjectRead::kError) {
      return {kType, ConditionStatus::kUnknown, ConditionReason::kUnableToFetchLease};
    }
    const auto holder = lease.holder_identity.has_value()
                            ? parse_holder_identity(*lease.holder_identity)
                            : std::nullopt;
    if (!holder.has_value()) {
      return {kType, ConditionStatus::kUnknown, ConditionReason::kUnableToParseLeaseHolderIdentity};
    }
    // The legacy 2-part form carries no clusterID and is silently left out.
    if (holder->cluster_id.has_value()) cluster_id_by_lease[lease.name] = *holder->cluster_id;
  }
  std::vector<std::string> distinct;
  for (const EtcdMemberStatus& member : members) {
    // A member whose Lease went stale may belong to a cluster it has since left: ignore it.
    if (member.status == MemberStatus::kUnknown) continue;
    const auto id = cluster_id_by_lease.find(member.name);
    if (id == cluster_id_by_lease.end()) continue;
    if (std::find(distinct.begin(), distinct.end(), id->second) == distinct.end()) {
      distinct.push_back(id->second);
    }
  }
  if (distinct.empty()) {
    return {kType, ConditionStatus::kUnknown, ConditionReason::kNoClusterIDDetected};
  }
  if (distinct.size() == 1) {
    return {kType, ConditionStatus::kFalse, ConditionReason::kNoClusterIDMismatchDetected};
  }
  return {kType, ConditionStatus::kTrue, ConditionReason::kMultipleClusterIDsDetected};
}

ConditionResult check_all_members_updated(ObjectRead statefulset,
                                          const StatefulSetRollout& rollout) {
  constexpr auto kType = ConditionType::kAllMembersUpdated;
  if (statefulset == ObjectRead::kError) {
    return {kType, ConditionStatus::kUnknown, ConditionReason::kUnableToFetchStatefulSet};
  }
  if (statefulset == ObjectRead::kNotFound) {
    return {kType, ConditionStatus::kUnknown, ConditionReason::kStatefulSetNotFound};
  }
  // The StatefulSet controller must have seen the latest spec, updated every replica, and
  // finished the rollout (currentRevision catches up with updateRevision only at its end).
  if (rollout.observed_generation == rollout.generation &&
      rollout.updated_replicas == rollout.spec_replicas &&
      rollout.update_revision == rollout.current_revision) {
    return {kType, ConditionStatus::kTrue, ConditionReason::kAllMembersUpdated};
  }
  return {kType, ConditionStatus::kFalse, ConditionReason::kNotAllMembersUpdated};
}

ConditionResult check_data_volumes_ready(ObjectRead statefulset,
                                         std::optional<bool> warning_events) {
  constexpr auto kType = ConditionType::kDataVolumesReady;
  if (statefulset == ObjectRead::kError) {
    return {kType, ConditionStatus::kUnknown, ConditionReason::kUnableToFetchStatefulSet};
  }
  if (statefulset == ObjectRead::kNotFound) {
    return {kType, ConditionStatus::kUnknown, ConditionReason::kStatefulSetNotFound};
  }
  if (!warning_events.has_value()) {
    return {kType, ConditionStatus::kUnknown,
            ConditionReason::kUnableToFetchWarningEventsForDataVolumes};
  }
  if (*warning_events) {
    return {kType, ConditionStatus::kFalse, ConditionReason::kFoundWarningsForDataVolumes};
  }
  return {kType, ConditionStatus::kTrue, ConditionReason::kNoWarningsFoundForDataVolumes};
}

namespace {

// builder.go skipMergeConditions: the types the status checks own.
bool owned_by_status_checks(ConditionType type) {
  return type != ConditionType::kLastSnapshotCompactionSucceeded;
}

// One recomputed condition: `old` is the previous one of that type, if any.
Condition merge_one(const ConditionResult& result, const Condition* old, std::int32_t spec_replicas,
                    LocalTime now) {
  // A new condition starts with an empty status, which differs from any result.
  Condition out = old != nullptr ? *old : Condition{result.type, {}, {}, now, now};
  const bool had_status = old != nullptr;
  if (!had_status || old->status != result.status) out.last_transition_time = now;
  out.last_update_time = now;
  if (spec_replicas == 0) {
    // Hibernated: nothing is checked. Note the transition time above still compares against
    // the (ignored) result, so it can move while the status stays.
    if (!had_status) out.status = ConditionStatus::kUnknown;
    out.reason = ConditionReason::kNotChecked;
  } else {
    out.status = result.status;
    out.reason = result.reason;
  }
  return out;
}

}  // namespace

std::vector<Condition> build_conditions(std::span<const ConditionResult> results,
                                        std::span<const Condition> previous,
                                        std::int32_t spec_replicas, LocalTime now) {
  HASIM_ASSERT(spec_replicas >= 0);
  std::map<ConditionType, Condition> old_by_type;
  for (const Condition& c : previous) old_by_type[c.type] = c;
  std::map<ConditionType, ConditionResult> result_by_type;
  for (const ConditionResult& r : results) result_by_type[r.type] = r;

  std::map<ConditionType, Condition> merged;  // enum order is name order (see header)
  for (const auto& [type, result] : result_by_type) {
    const auto old = old_by_type.find(type);
    merged[type] =
        merge_one(result, old != old_by_type.end() ? &old->second : nullptr, spec_replicas, now);
  }
  for (const auto& [type, old] : old_by_type) {
    if (!merged.contains(type) && !owned_by_status_checks(type)) merged[type] = old;
  }
  std::vector<Condition> out;
  for (auto& [type, condition] : merged) out.push_back(condition);
  HASIM_ASSERT(out.size() <= result_by_type.size() + old_by_type.size());
  HASIM_ASSERT(std::is_sorted(out.begin(), out.end(), [](const Condition& a, const Condition& b) {
    return name(a.type) < name(b.type);
  }));
  return out;
}

}  // namespace hasim::druid
