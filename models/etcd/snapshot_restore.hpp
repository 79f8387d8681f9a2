#pragma once
// etcd's backup and disaster recovery (op-guide/recovery.md): `etcdctl snapshot save` streams
// one member's backend into a file, and `etcdutl snapshot restore` turns that file into the
// data directory of a member of a new cluster. Pure: the scenario actions
// (scenarios/etcd/snapshot_faults.cpp) carry the files to and from the world.
//
// What restore writes (etcdutl/snapshot/v3_snapshot.go Restore, saveDB, saveWALAndSnap,
// updateCIndex), for each member of --initial-cluster:
//  - the backend: the snapshot's keyspace at its revision (saveDB copies the file; the
//    membership buckets are trimmed and rewritten for the new member list);
//  - a WAL whose metadata carries the member's ID and the new cluster's ID (wal.Create), then
//    one ConfChangeAddNode entry per member at term 1, indexes 1..n, and the HardState
//    {term 1, vote: the first member, commit n} (w.Save); a snapshot at index n, term 1 with
//    every member a voter (snap.SaveSnap, w.SaveSnapshot); the backend's consistent index
//    set to n (updateCIndex), so nothing is applied twice.
// So the restored members start as a fresh cluster whose log starts after the bootstrap
// entries, with the keyspace (and its revisions: etcd keeps them across a restore) of the
// snapshot. The cluster ID is new: etcd derives it from --initial-cluster-token and the
// members' peer URLs, and the recovery guide restores with a new token; a member refuses
// peer messages stamped with another cluster's ID (rafthttp http.go checkClusterCompatibility
// -FromHeader: "request cluster ID mismatch", 412), so members left out of the restore, still
// running the old cluster, cannot disturb it.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/raft/raftpb.hpp"
#include "sim/time.hpp"

namespace hasim::etcd {

// A saved snapshot: the file `etcdctl snapshot save` wrote.
struct EtcdSnapshot {
  std::string data;           // the backend as the member streamed it (encode_store)
  std::int64_t revision = 0;  // the store's revision when it was taken
  std::int64_t size = 0;      // the backend file's size in bytes
  std::string member;         // "node/etcd" of the member it came from
};

// Where saved snapshots land: the operator's disk or object storage, outside every node, so
// node and disk faults leave it alone. One per world, shared by the actions.
class SnapshotStore {
 public:
  static constexpr std::size_t kMaxSnapshots = 10'000;  // a bound of the model
  void put(const std::string& name, EtcdSnapshot snapshot);
  const EtcdSnapshot* find(const std::string& name) const;
  std::size_t size() const { return snapshots_.size(); }

 private:
  std::map<std::string, EtcdSnapshot> snapshots_;
};

// A restored member's data directory: file name -> records, all on stable storage.
using DataDirFiles = std::map<std::string, std::vector<std::string>>;

// The data directory `etcdutl snapshot restore` writes for one member of the new cluster
// whose voters are `voters` (raft IDs, ascending), with cluster ID `cluster` (non-zero).
DataDirFiles restore_data_dir(const EtcdSnapshot& snapshot, const std::vector<raft::PeerId>& voters,
                              std::uint64_t cluster);

// The new cluster's ID: a hash of what the restore was given (the snapshot's name, the
// voters, the time), never 0 (the ID of a cluster bootstrapped by the scenario).
std::uint64_t restored_cluster_id(const std::string& name, const std::vector<raft::PeerId>& voters,
                                  TrueTime at);

}  // namespace hasim::etcd
