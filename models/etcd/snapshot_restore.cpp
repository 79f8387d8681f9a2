#include "models/etcd/snapshot_restore.hpp"

#include "models/etcd/wal.hpp"
#include "models/raft/raftpb_util.hpp"
#include "sim/assert.hpp"
#include "sim/fnv.hpp"

namespace hasim::etcd {

void SnapshotStore::put(const std::string& name, EtcdSnapshot snapshot) {
  HASIM_ASSERT(!name.empty() && !snapshot.data.empty());
  // `snapshot save` to an existing path replaces the file (it renames a temporary over it).
  if (snapshots_.size() >= kMaxSnapshots && snapshots_.count(name) == 0) return;
  snapshots_[name] = std::move(snapshot);
}

const EtcdSnapshot* SnapshotStore::find(const std::string& name) const {
  const auto it = snapshots_.find(name);
  return it == snapshots_.end() ? nullptr : &it->second;
}

DataDirFiles restore_data_dir(const EtcdSnapshot& snapshot, const std::vector<raft::PeerId>& voters,
                              std::uint64_t cluster) {
  HASIM_ASSERT(!voters.empty() && cluster != 0 && !snapshot.data.empty());
  // saveWALAndSnap: one ConfChangeAddNode per member at term 1, indexes 1..n.
  std::vector<raft::Entry> ents;
  for (std::size_t i = 0; i < voters.size(); ++i) {
    HASIM_ASSERT(i == 0 || voters[i - 1] < voters[i]);
    raft::ConfChange cc;
    cc.type = raft::ConfChangeType::ConfChangeAddNode;
    cc.nodeId = voters[i];
    raft::Entry e;
    e.type = raft::EntryType::EntryConfChange;
    e.term = 1;
    e.index = i + 1;
    e.data = raft::marshal(cc);
    ents.push_back(std::move(e));
  }
  const raft::Index commit = ents.size();
  raft::HardState hs;
  hs.term = 1;
  hs.vote = voters.front();
  hs.commit = commit;
  // The snapshot at the commit, every member a voter. Its data: the member's state machine
  // (member.cpp state_machine_data: the 8-byte apply hash, 0 in a new cluster, then the
  // store), the backend saveDB wrote, with its consistent index at the commit.
  raft::Snapshot snap;
  snap.metadata.index = commit;
  snap.metadata.term = 1;
  snap.metadata.confState.voters = voters;
  snap.data = std::string(8, '\0') + snapshot.data;
  DataDirFiles files;
  files[std::string(kSnapFile)].push_back(encode(SnapRecord{std::move(snap), 0}));
  // wal.Create: the metadata first; w.Save: the entries and the HardState; w.SaveSnapshot:
  // the marker (its segment's start: the first entry after the snapshot).
  WalEncoder encoder;
  encoder.encode(metadata_record(cluster));
  for (const raft::Entry& e : ents) encoder.encode(entry_record(e));
  encoder.encode(state_record(hs));
  encoder.encode(marker_record({commit, 1, false, commit + 1}));
  files[wal_segment_name(0)].push_back(encoder.flush());
  HASIM_ASSERT(files.size() == 2);
  return files;
}

std::uint64_t restored_cluster_id(const std::string& name, const std::vector<raft::PeerId>& voters,
                                  TrueTime at) {
  std::uint64_t h = fnv1a(kFnvOffset, name);
  for (const raft::PeerId id : voters) h = fnv1a_word(h, id);
  h = fnv1a_word(h, static_cast<std::uint64_t>(at.ns));
  return h == 0 ? 1 : h;
}

}  // namespace hasim::etcd
