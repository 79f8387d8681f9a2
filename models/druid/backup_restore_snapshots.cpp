// The leading sidecar's snapshotter: pkg/server/backuprestoreserver.go (OnStartedLeading's
// NewSnapshotter, runEtcdProbeLoopWithSnapshotter) and pkg/snapshot/snapshotter/
// snapshotter.go (Run, snapshotEventHandler, takeFullSnapshot, TakeDeltaSnapshot,
// CollectEventsSincePrevSnapshot, handleDeltaWatchEvents). Upstream's event handler is one
// goroutine: hasim runs one snapshot at a time (busy) and takes a timer that fired meanwhile
// once it is done, as the goroutine would read the timer's channel after the upload.
#include <string>
#include <utility>

#include "models/druid/backup_restore.hpp"
#include "models/druid/trace_kinds.hpp"
#include "models/etcd/kv_api.hpp"
#include "models/etcd/mvcc/key_range.hpp"
#include "sim/assert.hpp"

namespace hasim::druid {

namespace {

constexpr Duration kStatusTimeout = seconds(5);      // brtypes.DefaultEtcdStatusConnecTimeout
constexpr Duration kConnectionTimeout = minutes(5);  // druid's --etcd-connection-timeout
// hasim's: how long an upload or a listing waits for an unreachable object store before it
// fails (upstream: the cloud SDK's own connect and retry timeouts, which vary by provider).
constexpr Duration kSnapstoreTimeout = seconds(30);

}  // namespace

// OnStartedLeading: NewSnapshotter lists the store for the previous snapshots; a failure is
// fatal (logger.Fatalf), so the container exits and the kubelet restarts it.
void BackupRestore::start_snapshotter(Env& env) {
  if (!config_.backup.has_value()) return;
  HASIM_ASSERT(leading_ == sidecar::LeadingState::Leader);
  reset_snapshotting();
  const std::uint64_t generation = snap_.generation;
  store_call(env, SnapstoreOp::list, {}, [this, generation](Env& e, const Answer& listed) {
    if (generation != snap_.generation) return;
    if (!listed.ok) {
      e.trace(trace_kind::kSnapshotter,
              {{"pod", config_.pod->pod}, {"event", "fatal"}, {"error", listed.error}});
      return e.exit(1);
    }
    const LatestSnapshots latest = latest_full_and_deltas(listed.listed);
    snap_.prevFull = latest.full;
    snap_.prevDeltas = latest.deltas;
    if (latest.full.has_value()) {
      snap_.prevSnapshot = latest.deltas.empty() ? *latest.full : latest.deltas.back();
    } else {
      snap_.prevSnapshot = StoredSnapshot{};  // NewSnapshot(Full, 0, 0): nothing taken yet
    }
    snapshot_probe(e);
  });
}

// OnStoppedLeading (the leading context is cancelled): the probe loop and Run end.
void BackupRestore::stop_snapshotter(Env& env) {
  if (!config_.backup.has_value()) return;
  close_watch(env);
  reset_snapshotting();
}

// A fresh Snapshotter (NewSnapshotter at each leading term); every callback and timer of the
// old one is retired.
void BackupRestore::reset_snapshotting() {
  const std::uint64_t generation = snap_.generation + 1;
  const std::uint64_t run = snap_.run + 1;
  snap_ = Snapshotting{};
  snap_.generation = generation;
  snap_.run = run;
}

// runEtcdProbeLoopWithSnapshotter: probe the member, wait out the back-off after a failure.
void BackupRestore::snapshot_probe(Env& env) {
  const std::uint64_t generation = snap_.generation;
  call(
      env, status_request, config_.pod->etcd,
      [this, generation](Env& e, const Answer& status) {
        if (generation != snap_.generation) return;
        if (!status.ok) return snapshot_probe(e);  // `continue`: probe again at once
        if (!probeBackoff_.start) return after_probe(e);
        sleep_then(e, sidecar::next_backoff_time(probeBackoff_), [this, generation](Env& e2) {
          if (generation == snap_.generation) after_probe(e2);
        });
      },
      kStatusTimeout);
}

bool BackupRestore::full_snapshot_required(Env& env) const {
  if (fullSnapshotOwed_) return true;  // proposal init case 7 replayed deltas
  const SnapshotterSettings& settings = *config_.backup;
  const std::optional<sidecar::CronSchedule> schedule =
      sidecar::parse_cron(settings.fullSnapshotSchedule);
  HASIM_ASSERT(schedule.has_value());  // the scenario loader checked it
  std::optional<sidecar::PrevFullSnapshot> prev;
  if (snap_.prevFull.has_value()) {
    prev = sidecar::PrevFullSnapshot{snap_.prevFull->created_on, snap_.prevFull->is_final};
  }
  return sidecar::full_snapshot_required_at_startup(
      prev, snap_.prevFullSucceeded, *schedule,
      sidecar::full_snapshot_max_time_window_hours(settings.fullSnapshotSchedule), env.now());
}

// The loop's body: a delta of the events since the previous snapshot when no full one is
// due, else (or when that fails) a full snapshot in its place; then Run.
void BackupRestore::after_probe(Env& env) {
  const std::uint64_t generation = snap_.generation;
  if (full_snapshot_required(env)) return substitute_full_snapshot(env);
  collect_events(env, [this, generation](Env& e, bool collected) {
    if (generation != snap_.generation) return;
    if (!collected) return substitute_full_snapshot(e);
    take_delta_snapshot(e, [this, generation](Env& e2, bool ok) {
      if (generation != snap_.generation) return;
      if (!ok) return snapshot_probe(e2);  // `continue`, without the back-off
      update_delta_lease(e2);
      sidecar::reset_backoff(probeBackoff_);
      run_snapshotter(e2);
    });
  });
}

void BackupRestore::substitute_full_snapshot(Env& env) {
  const std::uint64_t generation = snap_.generation;
  take_full_snapshot(env, [this, generation](Env& e, bool ok) {
    if (generation != snap_.generation) return;
    snap_.prevFullSucceeded = ok;
    if (!ok) return snapshot_probe(e);
    fullSnapshotOwed_ = false;
    update_full_lease(e, [](Env&, bool) {});
    sidecar::reset_backoff(probeBackoff_);
    run_snapshotter(e);
  });
}

// Run: a full snapshot at once if one is due, else the events since the previous snapshot
// and the full timer at the schedule's next activation; the full-snapshot Lease's renewal
// loop; the delta timer.
void BackupRestore::run_snapshotter(Env& env) {
  HASIM_ASSERT(!snap_.running && !snap_.busy);
  snap_.running = true;
  const std::uint64_t run = ++snap_.run;
  env.trace(trace_kind::kSnapshotter,
            {{"pod", config_.pod->pod},
             {"event", "run"},
             {"delta_period_ns", config_.backup->deltaSnapshotPeriod.ns}});
  arm_gc_timer(env);  // started with Run, stopped when it ends (backuprestoreserver.go)
  if (full_snapshot_required(env)) {
    arm_full_timer(env, Duration{0});
    return start_event_handler(env);
  }
  if (snap_.watch != 0) {
    arm_full_timer(env, std::nullopt);
    return start_event_handler(env);
  }
  collect_events(env, [this, run](Env& e, bool ok) {
    if (run != snap_.run) return;
    if (!ok) return snapshotter_failed(e, "failed to collect events for first delta snapshot(s)");
    arm_full_timer(e, std::nullopt);
    start_event_handler(e);
  });
}

void BackupRestore::start_event_handler(Env& env) {
  HASIM_ASSERT(snap_.running);
  arm_full_lease_timer(env, sidecar::kFullSnapshotLeaseUpdateInterval);
  arm_delta_timer(env);
}

// Run returned an error: stop (timers, watch, events), then the probe loop with back-off.
void BackupRestore::snapshotter_failed(Env& env, std::string_view why) {
  HASIM_ASSERT(snap_.running);
  env.trace(trace_kind::kSnapshotter,
            {{"pod", config_.pod->pod}, {"event", "failed"}, {"error", std::string(why)}});
  close_watch(env);
  snap_.running = false;
  snap_.busy = false;
  ++snap_.run;
  snap_.events.clear();
  snap_.eventBytes = 0;
  snap_.lastEventRevision = -1;
  probeBackoff_.start = true;
  snapshot_probe(env);
}

void BackupRestore::trace_snapshot(Env& env, const StoredSnapshot& s, std::string_view outcome) {
  env.trace(trace_kind::kSnapshot, {{"pod", config_.pod->pod},
                                    {"snapshot", std::string(sidecar::name(s.kind))},
                                    {"start", s.start_revision},
                                    {"last", s.last_revision},
                                    {"name", s.name},
                                    {"outcome", std::string(outcome)}});
}

void BackupRestore::store_call(Env& env, SnapstoreOp op, StoredSnapshot snapshot, Done done) {
  HASIM_ASSERT(config_.backup.has_value());
  auto make = [op, snapshot = std::move(snapshot)](std::uint64_t id) {
    auto request = std::make_shared<SnapstoreRequest>();
    request->client_id = id;
    request->op = op;
    request->snapshot = snapshot;
    return request;
  };
  call(env, make, config_.backup->store, std::move(done), kSnapstoreTimeout);
}

// Get("", WithLastRev()): the store's revision from the response header.
void BackupRestore::last_revision(Env& env, std::function<void(Env&, const Answer&)> done) {
  auto get = [](std::uint64_t id) {
    auto request = std::make_shared<etcd::KvRequest>();
    request->client_id = id;
    request->range.key = std::string(etcd::mvcc::kFromKey);
    request->range.range_end = std::string(etcd::mvcc::kFromKey);
    request->range.limit = 1;
    return request;
  };
  call(env, get, config_.pod->etcd, std::move(done), kConnectionTimeout);
}

// snapshotEventHandler's delta cases: the delta timer (then the delta Lease, whether or not
// a delta was taken), or the memory limit reached by the watch (the Lease only if a delta
// was taken). Either resets the delta timer (takeDeltaSnapshotAndResetTimer).
void BackupRestore::handler_delta(Env& env, bool from_timer) {
  HASIM_ASSERT(snap_.running);
  if (snap_.busy) {
    snap_.deltaDue = snap_.deltaDue || from_timer;  // the memory limit is checked again after
    return;
  }
  snap_.busy = true;
  const std::size_t before = snap_.prevDeltas.size();
  const std::uint64_t run = snap_.run;
  take_delta_snapshot(env, [this, run, from_timer, before](Env& e, bool ok) {
    if (run != snap_.run) return;
    snap_.busy = false;
    if (!ok) return snapshotter_failed(e, snap_.lastError);
    arm_delta_timer(e);
    if (from_timer || snap_.prevDeltas.size() > before) update_delta_lease(e);
    handler_done(e);
  });
}

void BackupRestore::on_delta_timer(Env& env) {
  // A period below 1 s disables deltas: the 20 s timer fires once, to no effect.
  if (config_.backup->deltaSnapshotPeriod < sidecar::kDeltaSnapshotIntervalThreshold) return;
  handler_delta(env, true);
}

// The full-snapshot timer: TakeFullSnapshotAndResetTimer, then the full-snapshot Lease at
// once (its update timer reset to a nanosecond).
void BackupRestore::on_full_timer(Env& env) {
  HASIM_ASSERT(snap_.running);
  if (snap_.busy) {
    snap_.fullDue = true;
    return;
  }
  snap_.busy = true;
  const std::uint64_t run = snap_.run;
  take_full_snapshot(env, [this, run](Env& e, bool ok) {
    if (run != snap_.run) return;
    snap_.busy = false;
    snap_.prevFullSucceeded = ok;
    if (!ok) return snapshotter_failed(e, snap_.lastError);
    arm_full_timer(e, std::nullopt);
    arm_full_lease_timer(e, Duration{1});
    handler_done(e);
  });
}

// What the handler goroutine would read next from its channels.
void BackupRestore::handler_done(Env& env) {
  HASIM_ASSERT(snap_.running && !snap_.busy);
  if (snap_.fullDue) {
    snap_.fullDue = false;
    return on_full_timer(env);
  }
  if (snap_.deltaDue) {
    snap_.deltaDue = false;
    return handler_delta(env, true);
  }
  if (snap_.eventBytes >= config_.backup->deltaSnapshotMemoryLimit) handler_delta(env, false);
}

void BackupRestore::arm_delta_timer(Env& env) {
  const std::uint64_t run = snap_.run;
  const std::uint64_t id = ++snap_.deltaTimer;
  const Duration period = sidecar::delta_snapshot_timer(config_.backup->deltaSnapshotPeriod);
  sleep_then(env, period, [this, run, id](Env& e) {
    if (run == snap_.run && id == snap_.deltaTimer && snap_.running) on_delta_timer(e);
  });
}

// resetFullSnapshotTimer: the schedule's next activation after now (`after` none), or now.
void BackupRestore::arm_full_timer(Env& env, std::optional<Duration> after) {
  Duration wait = after.value_or(Duration{0});
  if (!after.has_value()) {
    const auto schedule = sidecar::parse_cron(config_.backup->fullSnapshotSchedule);
    HASIM_ASSERT(schedule.has_value());
    const std::optional<LocalTime> next = sidecar::cron_next(*schedule, env.now());
    if (!next.has_value()) return snapshotter_failed(env, "error in full snapshot schedule");
    wait = *next - env.now();
  }
  HASIM_ASSERT(wait.ns >= 0);
  const std::uint64_t run = snap_.run;
  const std::uint64_t id = ++snap_.fullTimer;
  sleep_then(env, wait, [this, run, id](Env& e) {
    if (run == snap_.run && id == snap_.fullTimer && snap_.running) on_full_timer(e);
  });
}

// RenewFullSnapshotLeasePeriodically: until one update succeeds, every minute, once a full
// snapshot exists.
void BackupRestore::arm_full_lease_timer(Env& env, Duration after) {
  const std::uint64_t run = snap_.run;
  const std::uint64_t id = ++snap_.fullLeaseTimer;
  sleep_then(env, after, [this, run, id](Env& e) {
    if (run != snap_.run || id != snap_.fullLeaseTimer || !snap_.running) return;
    if (!snap_.prevFull.has_value()) {
      return arm_full_lease_timer(e, sidecar::kFullSnapshotLeaseUpdateInterval);
    }
    update_full_lease(e, [this, run, id](Env& e2, bool ok) {
      if (!ok && run == snap_.run && id == snap_.fullLeaseTimer) {
        arm_full_lease_timer(e2, sidecar::kFullSnapshotLeaseUpdateInterval);
      }
    });
  });
}

}  // namespace hasim::druid
