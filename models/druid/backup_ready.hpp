#pragma once
// The BackupReady condition (internal/health/condition/check_backup_ready.go). The leading
// backup-restore sidecar renews a full-snapshot Lease and a delta-snapshot Lease after each
// snapshot of that kind; druid judges backups healthy from how recently they were renewed.
#include <optional>
#include <span>
#include <string_view>

#include "models/druid/conditions.hpp"
#include "sim/time.hpp"

namespace hasim::druid {

// One snapshot Lease as read this round. creationTimestamp is set by the API server; only the
// full-snapshot Lease's is used.
struct SnapshotLease {
  ObjectRead read = ObjectRead::kFound;
  std::optional<LocalTime> renew_time;
  LocalTime creation_timestamp{};
};

// spec.backup.fullSnapshotSchedule: unset gives 24h; a cron that does not parse makes the
// condition Unknown. For a parsed cron upstream uses the gap between its next two firings
// after now (internal/utils/miscellaneous.go ComputeScheduleInterval); the caller computes it.
struct FullSnapshotSchedule {
  enum class State { kUnset, kParsed, kInvalid };
  State state = State::kUnset;
  Duration interval{};  // only with kParsed
};

struct BackupReadyInput {
  bool backup_store_configured = true;  // spec.backup.store with a non-empty provider
  Duration delta_snapshot_period{};     // spec.backup.deltaSnapshotPeriod
  FullSnapshotSchedule full_snapshot_schedule{};
  SnapshotLease full_snapshot_lease{};
  SnapshotLease delta_snapshot_lease{};
  // status.conditions before this round (see previous_backup_ready_status).
  std::span<const Condition> previous_conditions{};
};

// Which way through check_backup_ready.go the verdict came; only Unknown outcomes differ in
// upstream's message, which hasim does not model.
enum class BackupReadyPath {
  kScheduleInvalid,           // Unknown
  kLeaseUnreadable,           // Unknown: either Lease missing or unreadable
  kNeverRenewed,              // Unknown: neither Lease has a renewTime
  kDeltaOnlySucceeded,        // True: fresh delta, full Lease created within the interval
  kBothSucceeded,             // True: fresh delta and fresh full
  kDeltaSnapshotsNotStarted,  // Unknown: only the full Lease renewed, > 5 delta periods ago
  kStale,                     // False BackupFailed
  kCannotProve,               // Unknown: everything else
};
std::string_view name(BackupReadyPath path);

struct BackupReadyVerdict {
  ConditionResult result;
  BackupReadyPath path = BackupReadyPath::kCannotProve;
};

// The 24h full-snapshot interval assumed without a schedule.
inline constexpr Duration kDefaultFullSnapshotInterval = hours(24);

// nullopt when no backup store is configured: the condition is then not reported at all
// (and build_conditions drops an old one).
std::optional<BackupReadyVerdict> check_backup_ready(const BackupReadyInput& input, LocalTime now);

// The previous status check_backup_ready.go compares against. Upstream scans status.conditions
// for BackupReady and, when there is none, is left holding the LAST condition of the list
// (Go's range variable keeps its final value): with a non-empty list lacking BackupReady, the
// status of the last entry (by name order normally Ready) stands in. nullopt for an empty
// list: no previous status.
std::optional<ConditionStatus> previous_backup_ready_status(std::span<const Condition> conditions);

}  // namespace hasim::druid
