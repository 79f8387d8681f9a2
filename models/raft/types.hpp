#pragma once
// entryID and logSlice (etcd-io/raft types.go): the identity of a log entry and a contiguous
// piece of a leader's log, as raftLog and unstable take them.
#include <optional>
#include <string>
#include <vector>

#include "models/raft/raftpb.hpp"

namespace hasim::raft {

// entryID: an entry is known by the term of the leader that issued it and its index.
struct EntryID {
  Term term = 0;
  Index index = 0;
  bool operator==(const EntryID&) const = default;
};

// pbEntryID.
inline EntryID pb_entry_id(const Entry& entry) { return EntryID{entry.term, entry.index}; }

// Go's %+v of an entryID: "{term:5 index:10}".
std::string to_string(const EntryID& id);

// logSlice: `entries` follow `prev` in the log of the leader at `term`. A well-formed slice
// is contiguous (entries[i].index == prev.index + 1 + i), its terms never decrease from
// prev.term on, and none exceeds `term`; valid() checks that for slices from outside.
struct LogSlice {
  Term term = 0;
  EntryID prev;
  std::vector<Entry> entries;

  // lastIndex: the last entry's index, or prev.index when there are no entries.
  Index last_index() const { return prev.index + entries.size(); }
  // lastEntryID: the last entry's ID, or prev when there are no entries.
  EntryID last_entry_id() const;
  // valid: nullopt when well-formed, else upstream's error text.
  std::optional<std::string> valid() const;
};

}  // namespace hasim::raft
