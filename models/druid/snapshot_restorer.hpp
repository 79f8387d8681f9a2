#pragma once
// etcd-backup-restore's restorer (pkg/snapshot/restorer/restorer.go Restore), as a pure
// function over snapshots fetched from the store: the latest full snapshot's backend, then
// each delta after it, applied as etcd would receive them from the restorer's client:
//  - applyEventsToEtcd: the events grouped by mod revision, one Txn per revision (a PUT of
//    the key and value, a DELETE of the key), so each group makes exactly one revision;
//  - the first delta (applyFirstDeltaSnapshot): skipped when the store is already at its last
//    revision (the full snapshot was streamed after those writes), else only its events
//    from the first one above the store's revision are applied (all of them if none is: an
//    upstream quirk kept), and it is not verified;
//  - every later delta (applyEventsAndVerify): afterwards the store's revision must be the
//    delta's last revision, else "mismatched event revision while applying delta snapshot"
//    and the restore fails (a gap or an overlap in the chain).
// The result is the backend a member's restored data directory starts from
// (models/etcd/snapshot_restore.hpp restore_data_dir).
#include <cstdint>
#include <string>
#include <vector>

#include "models/druid/snapstore.hpp"

namespace hasim::druid {

struct RestoredBackend {
  bool ok = false;
  std::string error;          // why the restore failed
  std::string backend;        // encode_store of the restored store
  std::int64_t revision = 0;  // its revision
  std::int64_t size = 0;      // its db size
};

RestoredBackend restore_backend(const StoredSnapshot& full,
                                const std::vector<StoredSnapshot>& deltas);

}  // namespace hasim::druid
