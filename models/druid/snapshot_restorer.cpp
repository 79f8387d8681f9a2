#include "models/druid/snapshot_restorer.hpp"

#include "models/etcd/kv_snapshot.hpp"
#include "models/etcd/mvcc/apply.hpp"
#include "sim/assert.hpp"

namespace hasim::druid {

namespace {

// applyEventsToEtcd: one txn per mod revision of the events.
void apply_events(etcd::mvcc::KvStore& store, const std::vector<etcd::mvcc::Event>& events,
                  std::size_t from) {
  std::size_t i = from;
  while (i < events.size()) {
    const std::int64_t revision = events[i].kv.mod_revision;
    etcd::mvcc::TxnWrite txn(store);
    for (; i < events.size() && events[i].kv.mod_revision == revision; ++i) {
      const etcd::mvcc::Event& e = events[i];
      if (e.type == etcd::mvcc::EventType::put) {
        txn.put(e.kv.key, e.kv.value);
      } else {
        txn.delete_range(e.kv.key, "");
      }
    }
    txn.end();
  }
}

}  // namespace

RestoredBackend restore_backend(const StoredSnapshot& full,
                                const std::vector<StoredSnapshot>& deltas) {
  HASIM_ASSERT(full.kind == sidecar::SnapshotKind::Full);
  RestoredBackend out;
  etcd::mvcc::KvStore store;
  etcd::mvcc::Applier applier(store);
  if (!etcd::decode_store(full.backend, store, applier)) {
    out.error = "failed to restore from the base snapshot " + full.name;
    return out;
  }
  for (std::size_t d = 0; d < deltas.size(); ++d) {
    const StoredSnapshot& delta = deltas[d];
    HASIM_ASSERT(delta.kind == sidecar::SnapshotKind::Incr);
    if (d == 0) {
      if (store.current_revision() == delta.last_revision) continue;  // wholly in the full one
      // The first event above the store's revision; upstream's index stays 0 when there is
      // none (a full snapshot past the whole delta), and then every event is applied again.
      std::size_t first = 0;
      for (std::size_t i = 0; i < delta.events.size(); ++i) {
        if (delta.events[i].kv.mod_revision > store.current_revision()) {
          first = i;
          break;
        }
      }
      apply_events(store, delta.events, first);
      continue;
    }
    apply_events(store, delta.events, 0);
    if (store.current_revision() != delta.last_revision) {
      out.error = "snapshot revision verification failed for delta snapshot " + delta.name +
                  " : mismatched event revision while applying delta snapshot, expected " +
                  std::to_string(delta.last_revision) + " but applied " +
                  std::to_string(store.current_revision());
      return out;
    }
  }
  out.ok = true;
  out.backend = etcd::encode_store(store, applier);
  out.revision = store.current_revision();
  out.size = store.db_size();
  HASIM_ASSERT(out.revision >= 1 && !out.backend.empty());
  return out;
}

}  // namespace hasim::druid
