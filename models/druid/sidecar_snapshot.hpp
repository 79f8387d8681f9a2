#pragma once
// When the leading sidecar's snapshotter takes full and delta snapshots, as pure functions
// (etcd-backup-restore pkg/snapshot/snapshotter/snapshotter.go, pkg/server/
// backuprestoreserver.go runEtcdProbeLoopWithSnapshotter, pkg/types/snapstore.go):
//  - at the start of leading: a full snapshot unless the previous one is recent enough
//    (IsFullSnapshotRequiredAtStartup), else a delta of the events since the previous
//    snapshot first;
//  - then full snapshots on the cron schedule (default "0 */1 * * *") and deltas every
//    deltaSnapshotPeriod (20 s when the period is below 1 s), a delta only when events came
//    in, or earlier when the events held exceed the memory limit (10 MiB);
//  - snapshot names "Full-<start>-<last>-<unix seconds>" / "Incr-...", revisions 8 digits.
// The calls (etcd, the object store) and the timers belong to the caller (the sidecar).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "models/druid/sidecar_cron.hpp"
#include "sim/time.hpp"

namespace hasim::druid::sidecar {

// pkg/types/snapshotter.go.
inline constexpr Duration kDefaultDeltaSnapshotInterval = seconds(20);
inline constexpr Duration kDeltaSnapshotIntervalThreshold = seconds(1);
inline constexpr std::int64_t kDefaultDeltaSnapMemoryLimit = 10 * 1024 * 1024;
inline constexpr std::string_view kDefaultFullSnapshotSchedule = "0 */1 * * *";
// pkg/types/health.go: the full-snapshot Lease is renewed this often while leading.
inline constexpr Duration kFullSnapshotLeaseUpdateInterval = minutes(1);

enum class SnapshotKind { Full, Incr };
std::string_view name(SnapshotKind kind);  // "Full", "Incr" (brtypes.SnapshotKind*)

// GenerateSnapshotName: "<kind>-%08d-%08d-<unix seconds>[.final]" (no compression suffix:
// druid leaves compression off unless the Etcd asks for it).
std::string snapshot_name(SnapshotKind kind, std::int64_t start_revision,
                          std::int64_t last_revision, LocalTime created_on, bool is_final);

// GetFullSnapshotMaxTimeWindow: the longest time without a full snapshot the schedule
// allows, in whole hours: 24, or 7 x 24 when a day of the week is named, or N for a schedule
// "M */N * * *" (every N hours, any day). Fewer than five fields: 24.
std::int64_t full_snapshot_max_time_window_hours(std::string_view schedule_spec);

// The previous full snapshot the snapshotter knows of (from the object store at start).
struct PrevFullSnapshot {
  LocalTime created_on{};
  bool is_final = false;
};

// IsFullSnapshotRequiredAtStartup: none before, a final one, one older than the window, or
// the last attempt failed: yes. Otherwise yes only if the scheduled one before the next was
// missed (WasScheduledFullSnapshotMissed: its creation time is not exactly the scheduled
// instant before the next activation, which in practice is always the case, since the
// snapshot is created after the cron fires) and waiting for the next activation would
// exceed the window (IsNextFullSnapshotBeyondTimeWindow).
bool full_snapshot_required_at_startup(const std::optional<PrevFullSnapshot>& prev,
                                       bool prev_full_succeeded, const CronSchedule& schedule,
                                       std::int64_t window_hours, LocalTime now);

// Run: the delta timer's period.
Duration delta_snapshot_timer(Duration delta_snapshot_period);

// What the delta timer (or the memory limit) finds: nothing to take when no event arrived
// since the previous snapshot (TakeDeltaSnapshot returns nil and only resets the timer);
// else a delta of revisions [prev_last_revision + 1, last_event_revision].
struct DeltaPlan {
  bool take = false;
  std::int64_t start_revision = 0;
  std::int64_t last_revision = 0;
};
DeltaPlan plan_delta(std::int64_t prev_last_revision, std::int64_t events,
                     std::int64_t last_event_revision);
// handleDeltaWatchEvents: a delta is taken at once when the events held reach the limit.
bool delta_memory_limit_reached(std::int64_t event_bytes, std::int64_t memory_limit);

// pkg/backoff/exponentialbackoff.go with pkg/types/exponentialbackoff.go's defaults: after a
// snapshotter failure the probe loop waits 2, 4, ... 128 s (each attempt doubles a wait that
// starts at 1 s), then 128 s (the threshold) once more than 6 attempts were made; a snapshot
// taken resets it.
struct ExponentialBackoff {
  static constexpr unsigned kAttemptLimit = 6;
  static constexpr std::int64_t kMultiplier = 2;
  static constexpr Duration kThreshold = seconds(128);
  static constexpr Duration kMinimum = seconds(1);
  bool start = false;  // Start: set when the snapshotter failed
  unsigned attempt = 0;
  Duration current = kMinimum;
};
Duration next_backoff_time(ExponentialBackoff& backoff);  // GetNextBackoffTime
void reset_backoff(ExponentialBackoff& backoff);          // ResetExponentialBackoff

}  // namespace hasim::druid::sidecar
