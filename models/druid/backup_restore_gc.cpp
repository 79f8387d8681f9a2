// The leading sidecar's garbage collector (etcd-backup-restore pkg/snapshot/snapshotter/
// garbagecollector.go RunGarbageCollector; started beside Run in backuprestoreserver.go and
// stopped when Run ends): every garbage-collection period, a listing of the store, then the
// deletes sidecar_gc decides on, one call at a time. A pass under way when Run ends goes on to
// its end, as the goroutine does (it reads its stop channel only between passes).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/druid/backup_restore.hpp"
#include "models/druid/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim::druid {

struct BackupRestore::GcPass {
  std::uint64_t run = 0;
  std::vector<sidecar::GcEntry> entries;
  std::vector<StoredSnapshot> listed;  // metadata only
  std::vector<sidecar::GcStream> streams;
  std::size_t stream = 0;  // the stream being collected
  // Its deltas to delete, in order; none yet until the loop reaches the stream, as upstream
  // calls GarbageCollectDeltaSnapshots (and takes its cutoff) only then.
  std::optional<std::vector<std::size_t>> deltas;
  std::size_t nextDelta = 0;
  int streamErrors = 0;  // GarbageCollectDeltaSnapshots' errorCount
  int errors = 0;
  int deletedFull = 0, deletedDelta = 0;
  sidecar::ExponentialGc exponential{LocalTime{}};
};

// `time.After(period)` between passes; a period of a second or less: no collector at all.
void BackupRestore::arm_gc_timer(Env& env) {
  HASIM_ASSERT(config_.backup.has_value());
  if (config_.backup->gcPeriod <= seconds(1)) return;
  const std::uint64_t run = snap_.run;
  sleep_then(env, config_.backup->gcPeriod, [this, run](Env& e) {
    if (run == snap_.run && snap_.running) gc_pass(e);
  });
}

void BackupRestore::gc_pass(Env& env) {
  const std::uint64_t run = snap_.run;
  store_call(env, SnapstoreOp::list, {}, [this, run](Env& e, const Answer& listed) {
    auto pass = std::make_shared<GcPass>();
    pass->run = run;
    if (!listed.ok) return gc_done(e, *pass, listed.error);  // "GC: Failed to list snapshots"
    pass->listed = listed.listed;
    for (const StoredSnapshot& s : pass->listed) pass->entries.push_back({s.kind, s.created_on});
    const sidecar::GcPolicy policy = config_.backup->gcPolicy;
    pass->streams = sidecar::gc_streams(pass->entries, policy);
    pass->exponential = sidecar::ExponentialGc(e.now());
    gc_step(e, pass);
  });
}

// The next delete of the pass: the current stream's deltas, then (if none failed) its full
// snapshot when the policy lets it go, then the next stream. Streams with nothing to delete
// are passed over in this loop, bounded by the listing.
void BackupRestore::gc_step(Env& env, const std::shared_ptr<GcPass>& pass) {
  while (pass->stream < pass->streams.size()) {
    const std::size_t k = pass->stream;
    const sidecar::GcStream& stream = pass->streams[k];
    if (!pass->deltas.has_value()) {
      pass->deltas = sidecar::deltas_to_collect(pass->entries, stream, env.now(),
                                                config_.backup->deltaRetention);
      pass->nextDelta = 0;
      pass->streamErrors = 0;
    }
    if (pass->nextDelta < pass->deltas->size() &&
        pass->streamErrors < sidecar::kDeltaSnapshotGCErrorThreshold) {
      return gc_delete(env, pass, (*pass->deltas)[pass->nextDelta++], false);
    }
    ++pass->stream;
    pass->deltas.reset();
    if (pass->streamErrors > 0) continue;  // upstream's `continue`: the full stays
    const bool collect =
        config_.backup->gcPolicy == sidecar::GcPolicy::LimitBased
            ? sidecar::limit_based_collects(k, pass->streams.size() + 1, config_.backup->maxBackups)
            : pass->exponential.collects(pass->entries[stream.newer], pass->entries[stream.head]);
    if (collect) return gc_delete(env, pass, stream.head, true);
  }
  HASIM_ASSERT(pass->stream == pass->streams.size());
  gc_done(env, *pass, "");
}

void BackupRestore::gc_delete(Env& env, const std::shared_ptr<GcPass>& pass, std::size_t index,
                              bool full) {
  HASIM_ASSERT(index < pass->listed.size());
  store_call(env, SnapstoreOp::remove, pass->listed[index],
             [this, pass, full, index](Env& e, const Answer& done) {
               const StoredSnapshot& s = pass->listed[index];
               e.trace(trace_kind::kGarbageCollectionDelete,
                       {{"pod", config_.pod->pod},
                        {"snapshot", std::string(sidecar::name(s.kind))},
                        {"start", s.start_revision},
                        {"last", s.last_revision},
                        {"name", s.name},
                        {"outcome", done.ok ? "deleted" : "failed"}});
               if (!done.ok) {
                 ++pass->errors;
                 if (!full) ++pass->streamErrors;
               } else {
                 ++(full ? pass->deletedFull : pass->deletedDelta);
               }
               gc_step(e, pass);
             });
}

// "GC: Total number garbage collected snapshots", then the next period's wait while the same
// Run goes on.
void BackupRestore::gc_done(Env& env, const GcPass& pass, std::string_view error) {
  const std::string policy(sidecar::name(config_.backup->gcPolicy));
  if (!error.empty()) {
    env.trace(trace_kind::kGarbageCollection,
              {{"pod", config_.pod->pod}, {"policy", policy}, {"error", std::string(error)}});
  } else {
    env.trace(trace_kind::kGarbageCollection,
              {{"pod", config_.pod->pod},
               {"policy", policy},
               {"listed", static_cast<std::int64_t>(pass.entries.size())},
               {"deleted_full", std::int64_t{pass.deletedFull}},
               {"deleted_delta", std::int64_t{pass.deletedDelta}},
               {"failed", std::int64_t{pass.errors}}});
  }
  if (pass.run == snap_.run && snap_.running) arm_gc_timer(env);
}

}  // namespace hasim::druid
