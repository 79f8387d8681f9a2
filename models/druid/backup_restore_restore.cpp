// Initialize's use of the backup store (etcd-backup-restore pkg/initializer/initializer.go
// restoreCorruptData, pkg/initializer/validator/datavalidator.go): the store is listed before
// the data directory is judged (an empty bucket, the latest snapshot's revision), and a
// restore fetches the latest full snapshot with its deltas, replays them
// (models/druid/snapshot_restorer.hpp) and writes the member's data directory as etcdutl
// snapshot restore does (models/etcd/snapshot_restore.hpp): a new one-member cluster at the
// backup's revision. Upstream restores into <data-dir>.part and renames it into place; hasim
// wipes the directory and writes the files, then fsyncs them, before it reports success.
#include <string>
#include <utility>

#include "models/druid/backup_restore.hpp"
#include "models/druid/snapshot_restorer.hpp"
#include "models/druid/trace_kinds.hpp"
#include "models/etcd/snapshot_restore.hpp"
#include "sim/assert.hpp"

namespace hasim::druid {

// What the validator and restoreCorruptData read from the store: whether it holds anything,
// and the latest snapshot's revision (the last delta, else the full one).
void BackupRestore::read_snapstore(Env& env, std::function<void(Env&, const SnapstoreView&)> done) {
  if (!config_.backup.has_value()) return done(env, SnapstoreView{});
  store_call(env, SnapstoreOp::list, {}, [done](Env& e, const Answer& listed) {
    SnapstoreView view;
    view.configured = true;
    view.readable = listed.ok;
    const LatestSnapshots latest = latest_full_and_deltas(listed.listed);
    view.empty = listed.listed.empty();
    view.has_deltas = latest.full.has_value() && !latest.deltas.empty();
    if (!latest.deltas.empty()) {
      view.latest_revision = latest.deltas.back().last_revision;
    } else if (latest.full.has_value()) {
      view.latest_revision = latest.full->last_revision;
    }
    done(e, view);
  });
}

// restoreCorruptData with snapshots in the store: fetch, replay, write the data directory.
// A failure is Initialize's error: status Failed, which etcd-wrapper reads and asks again.
void BackupRestore::restore_from_store(Env& env) {
  store_call(env, SnapstoreOp::fetch_latest, {}, [this](Env& e, const Answer& fetched) {
    if (!fetched.ok || fetched.listed.empty() ||
        fetched.listed.front().kind != sidecar::SnapshotKind::Full) {
      return finish_init(e, false, "failed to fetch the latest snapshots");
    }
    const StoredSnapshot& full = fetched.listed.front();
    const std::vector<StoredSnapshot> deltas(fetched.listed.begin() + 1, fetched.listed.end());
    const RestoredBackend restored = restore_backend(full, deltas);
    e.trace(trace_kind::kRestore,
            {{"pod", config_.pod->pod},
             {"member", static_cast<std::int64_t>(configured_member_id(e))},
             {"full", full.name},
             {"deltas", static_cast<std::int64_t>(deltas.size())},
             {"revision", restored.revision},
             {"outcome", restored.ok ? std::string("restored") : restored.error}});
    if (!restored.ok) return finish_init(e, false, restored.error);
    write_restored_data_dir(e, restored, full.name);
  });
}

void BackupRestore::write_restored_data_dir(Env& env, const RestoredBackend& restored,
                                            const std::string& name) {
  etcd::EtcdSnapshot snapshot;
  snapshot.data = restored.backend;
  snapshot.revision = restored.revision;
  snapshot.size = restored.size;
  const std::vector<raft::PeerId> voters{configured_member_id(env)};
  // The new cluster's ID hashes what the restore was given; the sidecar's clock stands in for
  // the time (only a hash input).
  const std::uint64_t cluster = etcd::restored_cluster_id(name, voters, TrueTime{env.now().ns});
  const etcd::DataDirFiles files = etcd::restore_data_dir(snapshot, voters, cluster);
  wipe_data_dir(env);
  HASIM_ASSERT(restoreIo_ == 0 && !files.empty());
  for (const auto& [file, records] : files) {
    for (const std::string& record : records) {
      env.append(etcd::EtcdMember::kVolume, file, record, tags_.tag(local_tag(kRestoreIo, 0)));
      ++restoreIo_;
    }
    env.fsync(etcd::EtcdMember::kVolume, file, tags_.tag(local_tag(kRestoreIo, 0)));
    ++restoreIo_;
  }
}

// One of the restore's writes completed; the last one (an fsync: the disk keeps its order)
// ends Initialize.
void BackupRestore::restore_io_done(Env& env) {
  HASIM_ASSERT(restoreIo_ > 0);
  if (--restoreIo_ == 0) finish_init(env, true, "restored from snapshots");
}

}  // namespace hasim::druid
