#include "models/druid/backup_ready.hpp"

#include "sim/assert.hpp"

namespace hasim::druid {

std::string_view name(BackupReadyPath path) {
  switch (path) {
    case BackupReadyPath::kScheduleInvalid:
      return "ScheduleInvalid";
    case BackupReadyPath::kLeaseUnreadable:
      return "LeaseUnreadable";
    case BackupReadyPath::kNeverRenewed:
      return "NeverRenewed";
    case BackupReadyPath::kDeltaOnlySucceeded:
      return "DeltaOnlySucceeded";
    case BackupReadyPath::kBothSucceeded:
      return "BothSucceeded";
    case BackupReadyPath::kDeltaSnapshotsNotStarted:
      return "DeltaSnapshotsNotStarted";
    case BackupReadyPath::kStale:
      return "Stale";
    case BackupReadyPath::kCannotProve:
      return "CannotProve";
  }
  HASIM_ASSERT(false);
}

std::optional<ConditionStatus> previous_backup_ready_status(std::span<const Condition> conditions) {
  if (conditions.empty()) return std::nullopt;
  for (const Condition& c : conditions) {
    if (c.type == ConditionType::kBackupReady) return c.status;
  }
  return conditions.back().status;
}

namespace {

BackupReadyVerdict verdict(ConditionStatus status, ConditionReason reason, BackupReadyPath path) {
  return {{ConditionType::kBackupReady, status, reason}, path};
}

BackupReadyVerdict unknown(BackupReadyPath path) {
  return verdict(ConditionStatus::kUnknown, ConditionReason::kUnknown, path);
}

// The renewals-are-fresh tests; nullopt when they do not prove success. All comparisons are
// strict, as upstream's `time.Since(x) < d` and `> d` are.
std::optional<BackupReadyVerdict> fresh_enough(const BackupReadyInput& in, Duration interval,
                                               LocalTime now) {
  const Duration period = in.delta_snapshot_period;
  const auto& full = in.full_snapshot_lease;
  const auto& delta = in.delta_snapshot_lease;
  if (!full.renew_time && delta.renew_time) {
    // Typically new Leases for an existing cluster: the full Lease's age stands in for its
    // last renewal.
    if (now - *delta.renew_time < period * 2 && now - full.creation_timestamp < interval) {
      return verdict(ConditionStatus::kTrue, ConditionReason::kBackupSucceeded,
                     BackupReadyPath::kDeltaOnlySucceeded);
    }
  } else if (full.renew_time && !delta.renew_time) {
    // Typically a new cluster whose first delta snapshot is not due yet.
    if (now - *full.renew_time > period * 5) {
      return unknown(BackupReadyPath::kDeltaSnapshotsNotStarted);
    }
  } else if (full.renew_time && delta.renew_time) {
    if (now - *delta.renew_time < period * 2 && now - *full.renew_time < interval) {
      return verdict(ConditionStatus::kTrue, ConditionReason::kBackupSucceeded,
                     BackupReadyPath::kBothSucceeded);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<BackupReadyVerdict> check_backup_ready(const BackupReadyInput& in, LocalTime now) {
  HASIM_ASSERT(in.delta_snapshot_period.ns >= 0);
  if (!in.backup_store_configured) return std::nullopt;
  using State = FullSnapshotSchedule::State;
  if (in.full_snapshot_schedule.state == State::kInvalid) {
    return unknown(BackupReadyPath::kScheduleInvalid);
  }
  const Duration interval = in.full_snapshot_schedule.state == State::kParsed
                                ? in.full_snapshot_schedule.interval
                                : kDefaultFullSnapshotInterval;
  const auto& full = in.full_snapshot_lease;
  const auto& delta = in.delta_snapshot_lease;
  if (full.read != ObjectRead::kFound || delta.read != ObjectRead::kFound) {
    return unknown(BackupReadyPath::kLeaseUnreadable);
  }
  if (!full.renew_time && !delta.renew_time) return unknown(BackupReadyPath::kNeverRenewed);
  if (auto decided = fresh_enough(in, interval, now)) return decided;

  // Not provably healthy. Go to False only from a previous Unknown or False, so one late
  // renewal after a True first shows as Unknown.
  const std::optional<ConditionStatus> prev = previous_backup_ready_status(in.previous_conditions);
  const bool prev_not_true = prev == ConditionStatus::kUnknown || prev == ConditionStatus::kFalse;
  if (delta.renew_time && prev_not_true && now - *delta.renew_time > in.delta_snapshot_period * 3) {
    return verdict(ConditionStatus::kFalse, ConditionReason::kBackupFailed,
                   BackupReadyPath::kStale);
  }
  return unknown(BackupReadyPath::kCannotProve);
}

}  // namespace hasim::druid
