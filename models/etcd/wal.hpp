#pragma once
// What an etcd member persists, as records of the disk model (sim/disk.hpp), and how a
// restart reads them back (etcd server/storage/wal, server/etcdserver/api/snap).
//
// Files on the member's volume "data":
//  - "snap" and "snap-1": a snapshot record each (etcd: one member/snap/TERM-INDEX.snap file
//    per snapshot): metadata (index, term, conf state), the state machine's data, and the
//    first WAL segment a replay from it needs. etcd's purger keeps the newest --max-snapshots
//    (5) files; hasim keeps two, written in turn: a new snapshot empties the file holding the
//    older one first, so the newer one (with its WAL segments) is always whole, and a long
//    run's disk, which the simulation holds in memory, stays bounded.
//  - "wal-N" (N = 0, 1, ...): WAL segments. Records: an entry, a HardState, or a snapshot
//    marker (walpb.Snapshot: index and term). etcd writes each entry and the HardState of one
//    Ready as records of one Save (wal.go Save: entries first, then the state), and a
//    snapshot marker before a snapshot's data is relied on (SaveSnap).
//    The records go through etcd's encoder (wal/encoder.go): each is framed with its length
//    into a buffer in the process's memory (ioutil.PageWriter), and the buffer reaches the
//    file when wal.sync flushes it, just before fdatasync. A Save that need not sync
//    (raft.MustSync false: only the commit moved) leaves its records in the buffer, where a
//    crash loses them. So one disk record of a segment is one flush: one or more frames.
//
// Replay, as etcd's bootstrap does (storage/backend.go, wal.go ReadAll): the newest snapshot
// whose marker is in the WAL (snap.LoadNewestAvailable: a snapshot file without its WAL
// marker was not finished), then the entries after it in record order, a later entry
// replacing the suffix from its index on (`ents = append(ents[:e.Index-start-1], e)`), and
// the last HardState. One deliberate difference: a marker of a snapshot installed from the
// leader also empties the entries read so far, because raft discarded its log when it
// installed it (raft.go restore); etcd relies on the leader overwriting them.
//
// No CRC: the disk model never tears or corrupts a record (it survives whole or not at all),
// so etcd's CRC and torn-write repair have nothing to find here.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/raft/raftpb.hpp"
#include "models/raft/storage.hpp"
#include "sim/assert.hpp"

namespace hasim::etcd {

inline constexpr std::string_view kSnapFile = "snap";
inline constexpr std::string_view kSnapFiles[] = {kSnapFile, "snap-1"};
std::string wal_segment_name(std::uint64_t segment);  // "wal-0", "wal-1", ...

// A snapshot marker: `install` for a snapshot received from the leader (the log before it
// is gone), else one the member took itself (compaction: the log goes on). `start` is the
// first entry index the segment it heads may hold (a segment's first record is its marker).
struct WalSnapshotMarker {
  raft::Index index = 0;
  raft::Term term = 0;
  bool install = false;
  raft::Index start = 0;
  bool operator==(const WalSnapshotMarker&) const = default;
};

// `metadata`: walpb's MetadataType record (etcdserverpb.Metadata: NodeID, ClusterID), which
// wal.Create writes first and every cut repeats. Only a restored data directory has one
// (models/etcd/snapshot_restore.hpp): a member bootstrapped by the scenario has cluster ID 0
// and writes none, so its files keep their bytes.
struct WalRecord {
  enum class Type : std::uint8_t { entry, state, snapshot, metadata };
  Type type = Type::entry;
  raft::Entry entry;
  raft::HardState state;
  WalSnapshotMarker marker;
  std::uint64_t cluster = 0;
};

// A record of the "snap" file.
struct SnapRecord {
  raft::Snapshot snapshot;
  std::uint64_t firstSegment = 0;  // the oldest WAL segment a replay from it reads
  bool operator==(const SnapRecord&) const = default;
};

std::string encode(const WalRecord& record);
std::optional<WalRecord> decode_wal_record(std::string_view bytes);
std::string encode(const SnapRecord& record);
std::optional<SnapRecord> decode_snap_record(std::string_view bytes);

// The encoder's buffer: records framed (length, then bytes) until a flush takes them as one
// write. Bounded by what the member flushes: every Save that must sync, every cut.
class WalEncoder {
 public:
  void encode(const WalRecord& record);
  void encode(const raft::Entry& entry);      // encode(entry_record(entry)), faster
  void encode(const raft::HardState& state);  // encode(state_record(state)), faster
  bool empty() const { return buffer_.empty(); }
  // The frames buffered since the last flush, as one write; the buffer is empty after.
  std::string flush();

 private:
  std::string buffer_;
};
// The records of one write (a disk record of a segment), in order; nullopt if malformed.
std::optional<std::vector<WalRecord>> decode_wal_write(std::string_view bytes);

WalRecord entry_record(const raft::Entry& entry);
WalRecord state_record(const raft::HardState& state);
WalRecord marker_record(const WalSnapshotMarker& marker);
WalRecord metadata_record(std::uint64_t cluster);

// What a restart recovers.
struct Replayed {
  raft::Snapshot snapshot;  // the bootstrap snapshot if none was saved
  raft::HardState state;
  std::vector<raft::Entry> entries;  // after the snapshot
  std::uint64_t firstSegment = 0;    // the segments read: firstSegment .. lastSegment
  std::uint64_t lastSegment = 0;     // the one appends continue in
  // Each segment's start index, from firstSegment on (a segment's first record is a marker
  // with its start; segment 0 starts after the bootstrap snapshot).
  std::vector<raft::Index> segmentStarts;
  std::uint64_t cluster = 0;  // the cluster ID of the WAL's metadata (0: none written)
};

// The replay from one snapshot: nullopt if its marker is not among the segments' records
// (never for the bootstrap snapshot, which has none).
std::optional<Replayed> replay_records(
    const SnapRecord& snap, bool bootstrap,
    const std::vector<const std::vector<std::string>*>& segments);

// A snapshot record's index, read without decoding its data (0 for another record).
raft::Index peek_snap_index(std::string_view bytes);

// The snapshot file the next snapshot goes to: an empty one, else the older one's.
template <typename ReadFile>
std::string_view next_snap_file(ReadFile&& read) {
  const std::vector<std::string>& first = read(std::string(kSnapFiles[0]));
  if (first.empty()) return kSnapFiles[0];
  const std::vector<std::string>& second = read(std::string(kSnapFiles[1]));
  if (second.empty()) return kSnapFiles[1];
  return peek_snap_index(first.back()) <= peek_snap_index(second.back()) ? kSnapFiles[0]
                                                                         : kSnapFiles[1];
}

// next_snap_file on `volume` of a process's Env, emptied for the snapshot about to be written.
template <typename ProcessEnv>
std::string_view take_snap_file(ProcessEnv& env, std::string_view volume) {
  const std::string_view file =
      next_snap_file([&env, volume](const std::string& f) -> const std::vector<std::string>& {
        return env.read(volume, f);
      });
  env.remove(volume, file);
  return file;
}

// Segments are probed up to this many past the first (a bound, TIGER_STYLE).
inline constexpr std::uint64_t kMaxSegments = 1'000'000;

// Reads the files back. `read(file)` gives a file's surviving records (empty if none) as a
// const reference that stays valid during the call (Env::read).
template <typename ReadFile>
Replayed replay(const raft::Snapshot& bootstrap, ReadFile&& read) {
  std::vector<SnapRecord> snaps{SnapRecord{bootstrap, 0}};
  for (const std::string_view file : kSnapFiles) {
    for (const std::string& bytes : read(std::string(file))) {
      if (auto record = decode_snap_record(bytes)) snaps.push_back(std::move(*record));
    }
  }
  // The two files in index order (the bootstrap snapshot, index 1 or 0, stays first).
  std::stable_sort(snaps.begin() + 1, snaps.end(), [](const SnapRecord& a, const SnapRecord& b) {
    return a.snapshot.metadata.index < b.snapshot.metadata.index;
  });
  // Newest first: a snapshot whose marker did not reach the WAL was not finished (etcd
  // snap.LoadNewestAvailable); the one before it still has all its segments, because
  // segments are removed only after the newer marker is on disk.
  for (std::size_t i = snaps.size(); i-- > 0;) {
    const std::uint64_t first = snaps[i].firstSegment;
    std::vector<const std::vector<std::string>*> segments;
    for (std::uint64_t n = first; n < first + kMaxSegments; ++n) {
      const std::vector<std::string>& records = read(wal_segment_name(n));
      if (records.empty()) break;  // segments are cut one after another: a gap ends them
      segments.push_back(&records);
    }
    if (auto replayed = replay_records(snaps[i], i == 0, segments)) return std::move(*replayed);
  }
  HASIM_ASSERT(false && "the bootstrap snapshot always replays");
  return {};
}

// Loads what a replay found into a fresh MemoryStorage, as etcd's bootstrap does
// (ApplySnapshot, SetHardState, Append).
void load(const Replayed& replayed, raft::MemoryStorage& storage);

}  // namespace hasim::etcd
