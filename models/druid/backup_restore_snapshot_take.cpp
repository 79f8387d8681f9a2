// Taking snapshots and keeping the snapshot Leases (etcd-backup-restore pkg/snapshot/
// snapshotter/snapshotter.go, fullsnapshotleaseupdate.go; pkg/health/heartbeat/heartbeat.go
// UpdateFullSnapshotLease, UpdateDeltaSnapshotLease).
#include <string>
#include <utility>

#include "models/druid/backup_restore.hpp"
#include "models/druid/trace_kinds.hpp"
#include "models/etcd/kv_api.hpp"
#include "models/etcd/mvcc/key_range.hpp"
#include "sim/assert.hpp"

namespace hasim::druid {

namespace {

constexpr Duration kSnapshotTimeout = minutes(15);  // druid's --etcd-snapshot-timeout
constexpr std::size_t kMaxHeldEvents = 10'000'000;  // a bound of the model (the memory limit
                                                    // ends a delta long before)

}  // namespace

// takeFullSnapshot: close the watch, read the revision, stream the member's backend, upload
// it as Full-00000000-<revision>; then watch again from the revision after it.
void BackupRestore::take_full_snapshot(Env& env, std::function<void(Env&, bool)> done) {
  const std::uint64_t generation = snap_.generation;
  close_watch(env);
  snap_.events.clear();  // cleanupInMemoryEvents
  snap_.eventBytes = 0;
  snap_.lastEventRevision = -1;
  last_revision(env, [this, generation, done](Env& e, const Answer& got) {
    if (generation != snap_.generation) return;
    if (!got.ok) {
      snap_.lastError = "failed to get etcd latest revision: " + got.error;
      return done(e, false);
    }
    const std::int64_t revision = got.revision;
    auto stream = [](std::uint64_t id) {
      auto request = std::make_shared<etcd::KvRequest>();
      request->client_id = id;
      request->op = etcd::KvOp::snapshot;
      return request;
    };
    auto save = [this, generation, revision, done](Env& e2, const Answer& streamed) {
      if (generation != snap_.generation) return;
      if (!streamed.ok) {
        snap_.lastError = "failed to take etcd snapshot: " + streamed.error;
        return done(e2, false);
      }
      StoredSnapshot s;
      s.kind = sidecar::SnapshotKind::Full;
      s.last_revision = revision;
      s.created_on = e2.now();
      s.name = sidecar::snapshot_name(s.kind, 0, revision, s.created_on, false);
      s.backend = streamed.backend;
      s.size = streamed.backendSize;
      upload(e2, std::move(s), done);
    };
    call(e, stream, config_.pod->etcd, save, kSnapshotTimeout);
  });
}

// Save to the store; on success the snapshot becomes the previous one (a full one also opens
// the watch the deltas are collected from).
void BackupRestore::upload(Env& env, StoredSnapshot s, std::function<void(Env&, bool)> done) {
  const std::uint64_t generation = snap_.generation;
  StoredSnapshot meta = metadata_of(s);
  store_call(
      env, SnapstoreOp::save, std::move(s),
      [this, generation, meta, done](Env& e, const Answer& saved) {
        if (generation != snap_.generation) return;
        trace_snapshot(e, meta, saved.ok ? std::string_view("saved") : saved.error);
        if (!saved.ok) {
          snap_.lastError = "failed to save snapshot: " + saved.error;
          return done(e, false);
        }
        snap_.prevSnapshot = meta;
        if (meta.kind == sidecar::SnapshotKind::Full) {
          snap_.prevFull = meta;
          snap_.prevDeltas.clear();
          // Deltas off (a period below 1 s): no watch.
          if (config_.backup->deltaSnapshotPeriod >= sidecar::kDeltaSnapshotIntervalThreshold) {
            open_watch(e, meta.last_revision + 1);
          }
        } else {
          snap_.prevDeltas.push_back(meta);
        }
        done(e, true);
      });
}

// TakeDeltaSnapshot: nothing to take without events; else the events held, uploaded as
// Incr-<previous last + 1>-<last event's revision>. Events that arrived during the upload
// stay for the next one (upstream: still in the watch channel).
void BackupRestore::take_delta_snapshot(Env& env, std::function<void(Env&, bool)> done) {
  const sidecar::DeltaPlan plan =
      sidecar::plan_delta(snap_.prevSnapshot->last_revision,
                          static_cast<std::int64_t>(snap_.events.size()), snap_.lastEventRevision);
  if (!plan.take) return done(env, true);
  StoredSnapshot s;
  s.kind = sidecar::SnapshotKind::Incr;
  s.start_revision = plan.start_revision;
  s.last_revision = plan.last_revision;
  s.created_on = env.now();
  s.name = sidecar::snapshot_name(s.kind, s.start_revision, s.last_revision, s.created_on, false);
  s.events = snap_.events;
  s.size = snap_.eventBytes;
  const std::size_t taken = snap_.events.size();
  const std::uint64_t generation = snap_.generation;
  upload(env, std::move(s), [this, generation, taken, done](Env& e, bool ok) {
    if (generation != snap_.generation) return;
    taken_events_cleared(ok ? taken : snap_.events.size());  // a failure drops them all
    done(e, ok);
  });
}

void BackupRestore::taken_events_cleared(std::size_t taken) {
  HASIM_ASSERT(taken <= snap_.events.size());
  snap_.events.erase(snap_.events.begin(),
                     snap_.events.begin() + static_cast<std::ptrdiff_t>(taken));
  snap_.eventBytes = 0;
  for (const etcd::mvcc::Event& ev : snap_.events) snap_.eventBytes += delta_event_bytes(ev);
  snap_.lastEventRevision = snap_.events.empty() ? -1 : snap_.events.back().kv.mod_revision;
}

// CollectEventsSincePrevSnapshot: watch from the revision after the previous snapshot and
// wait until the events reach the store's revision now.
void BackupRestore::collect_events(Env& env, std::function<void(Env&, bool)> done) {
  const std::uint64_t generation = snap_.generation;
  close_watch(env);
  last_revision(env, [this, generation, done](Env& e, const Answer& got) {
    if (generation != snap_.generation) return;
    if (!got.ok) {
      snap_.lastError = "failed to get etcd latest revision: " + got.error;
      return done(e, false);
    }
    open_watch(e, snap_.prevSnapshot->last_revision + 1);
    if (snap_.prevSnapshot->last_revision >= got.revision) return done(e, true);
    snap_.collectUntil = got.revision;
    snap_.collecting = done;
  });
}

void BackupRestore::open_watch(Env& env, std::int64_t from) {
  HASIM_ASSERT(snap_.watch == 0 && from >= 1);
  snap_.watch = snap_.nextWatch++;
  auto watch = std::make_shared<etcd::KvWatch>();
  watch->watch_id = snap_.watch;
  watch->request.key = std::string(etcd::mvcc::kFromKey);  // Watch("", WithPrefix())
  watch->request.range_end = std::string(etcd::mvcc::kFromKey);
  watch->request.start_revision = from;
  env.send(config_.pod->etcd, std::move(watch));
}

void BackupRestore::close_watch(Env& env) {
  snap_.collecting = nullptr;
  if (snap_.watch == 0) return;
  auto cancel = std::make_shared<etcd::KvWatch>();
  cancel->watch_id = snap_.watch;
  cancel->cancel = true;
  env.send(config_.pod->etcd, std::move(cancel));
  snap_.watch = 0;
}

// handleDeltaWatchEvents, and the collection's end once the events reach its revision. A
// compacted or cancelled watch is an error (wr.Err()): collection or Run fails.
void BackupRestore::on_watch(Env& env, const etcd::KvWatchResponse& response) {
  if (response.watch_id != snap_.watch || snap_.watch == 0 || response.created) return;
  if (response.watch.canceled || response.watch.compact_revision != 0) {
    auto collecting = std::move(snap_.collecting);
    close_watch(env);
    if (collecting != nullptr) return collecting(env, false);
    if (snap_.running) snapshotter_failed(env, "mvcc: required revision has been compacted");
    return;
  }
  for (const etcd::mvcc::Event& ev : response.watch.events) {
    HASIM_ASSERT(snap_.events.size() < kMaxHeldEvents);
    snap_.events.push_back(ev);
    snap_.eventBytes += delta_event_bytes(ev);
    snap_.lastEventRevision = ev.kv.mod_revision;
  }
  if (snap_.collecting != nullptr && snap_.lastEventRevision >= snap_.collectUntil) {
    auto collecting = std::move(snap_.collecting);
    snap_.collecting = nullptr;
    return collecting(env, true);
  }
  if (snap_.running && snap_.eventBytes >= config_.backup->deltaSnapshotMemoryLimit) {
    handler_delta(env, false);
  }
}

}  // namespace hasim::druid
