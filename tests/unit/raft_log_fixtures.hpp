#pragma once
// Shared builders for the raft log and storage tests (test_raft_log.cpp,
// test_raft_storage.cpp): entries by terms, snapshots, a recording logger, a filled
// MemoryStorage, as etcd-io/raft's log_test.go and storage_test.go build them.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "models/raft/logger.hpp"
#include "models/raft/raftpb.hpp"
#include "models/raft/storage.hpp"

namespace hasim::raft::testing {

// Entries at consecutive indexes from `first` with the given terms (log_test.go index.terms).
inline std::vector<Entry> terms_at(Index first, std::vector<Term> terms) {
  std::vector<Entry> out;
  for (Term t : terms) {
    Entry e;
    e.term = t;
    e.index = first++;
    out.push_back(e);
  }
  return out;
}

// Entries at consecutive indexes from `first`, terms from..to-1, Type set to EntryNormal on
// purpose (index.termRange), which adds 2 bytes to each entry's size.
inline std::vector<Entry> term_range(Index first, Term from, Term to) {
  std::vector<Entry> out;
  for (Term t = from; t < to; ++t) {
    Entry e;
    e.term = t;
    e.index = first++;
    e.typeSet = true;
    out.push_back(e);
  }
  return out;
}

inline Snapshot snap_at(Index index, Term term) {
  Snapshot s;
  s.metadata.index = index;
  s.metadata.term = term;
  return s;
}

// Keeps every line, as the interaction environment's logger does.
class RecordingLogger final : public Logger {
 public:
  void log(LogLevel level, std::string_view line) override {
    lines.push_back(std::string(level_name(level)) + " " + std::string(line));
  }
  std::vector<std::string> lines;
};

// A MemoryStorage whose ents are exactly `ents` (ents[0] the dummy), as the Go tests build
// `&MemoryStorage{ents: ents}`.
inline void fill(MemoryStorage& s, const std::vector<Entry>& ents) {
  REQUIRE(s.apply_snapshot(snap_at(ents[0].index, ents[0].term)) == StorageError::Ok);
  REQUIRE(s.append(std::vector<Entry>(ents.begin() + 1, ents.end())) == StorageError::Ok);
}

}  // namespace hasim::raft::testing
