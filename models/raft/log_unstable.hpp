#pragma once
// unstable (etcd-io/raft log_unstable.go): the log entries and snapshot not yet written to
// Storage. It holds them until a Ready hands them out for writing, and goes on holding them
// (as "in progress") until the write is confirmed, so that raftLog sees the log whole.
//
// entries[i] is at log index offset + i. offset may be below Storage's last index: then the
// next write replaces Storage's tail from there.
#include <optional>
#include <span>
#include <vector>

#include "models/raft/logger.hpp"
#include "models/raft/raftpb.hpp"
#include "models/raft/types.hpp"

namespace hasim::raft {

struct Unstable {
  std::optional<Snapshot> snapshot;  // the incoming snapshot, if any
  std::vector<Entry> entries;        // entries not yet written to storage
  Index offset = 0;                  // the index of entries[0]
  bool snapshotInProgress = false;   // the snapshot is being written
  // entries[:offsetInProgress-offset] are being written; exclusive like offset, and
  // offset <= offsetInProgress.
  Index offsetInProgress = 0;
  Logger* logger = &discard_logger();

  // maybeFirstIndex: the index after the snapshot, if there is one.
  std::optional<Index> maybe_first_index() const;
  // maybeLastIndex: the last entry's index, else the snapshot's, else nothing.
  std::optional<Index> maybe_last_index() const;
  // maybeTerm: the term at index i, if the entries or the snapshot know it.
  std::optional<Term> maybe_term(Index i) const;
  // nextEntries: the entries not yet being written.
  std::vector<Entry> next_entries() const;
  // nextSnapshot: the snapshot, if there is one not yet being written.
  std::optional<Snapshot> next_snapshot() const;
  // acceptInProgress: everything held now is being written; next_entries/next_snapshot
  // return only what comes later.
  void accept_in_progress();
  // stableTo: the entries up to `id` are written; dropped unless `id` no longer matches (the
  // log was replaced meanwhile), which is logged and ignored.
  void stable_to(EntryID id);
  // shrinkEntriesArray: release the storage of an emptied entries vector.
  void shrink_entries_array();
  // stableSnapTo: the snapshot at index i is written.
  void stable_snap_to(Index i);
  // restore: start over from a snapshot, no entries.
  void restore(const Snapshot& s);
  // truncateAndAppend: put ents at their indexes, dropping whatever was there and after.
  void truncate_and_append(std::span<const Entry> ents);
  // slice: the entries in [lo, hi), all of which must be here.
  std::vector<Entry> slice(Index lo, Index hi) const;
  // mustCheckOutOfBounds: panics unless offset <= lo <= hi <= offset + len(entries).
  void must_check_out_of_bounds(Index lo, Index hi) const;
};

}  // namespace hasim::raft
