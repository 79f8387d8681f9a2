// unstable, MemoryStorage and logSlice (models/raft): the behaviour etcd-io/raft's
// log_unstable_test.go, storage_test.go and types_test.go check, in their table form.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "models/raft/log_unstable.hpp"
#include "models/raft/raft_log.hpp"
#include "models/raft/raftpb_util.hpp"
#include "models/raft/storage.hpp"
#include "models/raft/types.hpp"
#include "models/raft/util.hpp"
#include "raft_log_fixtures.hpp"

using namespace hasim::raft;
using namespace hasim::raft::testing;

TEST_CASE("unstable: stable_to", "[raft]") {
  struct Case {
    std::vector<Entry> entries;
    Index offset, offsetInProgress;
    std::optional<Snapshot> snap;
    Index index;
    Term term;
    Index woffset, woffsetInProgress;
    std::size_t wlen;
  };
  const std::vector<Case> cases = {
      {{}, 0, 0, std::nullopt, 5, 1, 0, 0, 0},
      {terms_at(5, {1}), 5, 6, std::nullopt, 5, 1, 6, 6, 0},
      {terms_at(5, {1, 1}), 5, 6, std::nullopt, 5, 1, 6, 6, 1},
      {terms_at(5, {1, 1}), 5, 7, std::nullopt, 5, 1, 6, 7, 1},
      {terms_at(6, {2}), 6, 7, std::nullopt, 6, 1, 6, 7, 1},  // term mismatch
      {terms_at(5, {1}), 5, 6, std::nullopt, 4, 1, 5, 6, 1},  // an old entry
      {terms_at(5, {1}), 5, 6, snap_at(4, 1), 5, 1, 6, 6, 0},
      {terms_at(5, {1, 1}), 5, 7, snap_at(4, 1), 5, 1, 6, 7, 1},
      {terms_at(6, {2}), 6, 7, snap_at(5, 1), 6, 1, 6, 7, 1},
      {terms_at(5, {1}), 5, 6, snap_at(4, 1), 4, 1, 5, 6, 1},  // the snapshot's index
      {terms_at(5, {2}), 5, 6, snap_at(4, 2), 4, 1, 5, 6, 1},
  };
  for (const Case& c : cases) {
    Unstable u{c.snap, c.entries, c.offset, false, c.offsetInProgress, &discard_logger()};
    u.stable_to({c.term, c.index});
    CHECK(u.offset == c.woffset);
    CHECK(u.offsetInProgress == c.woffsetInProgress);
    CHECK(u.entries.size() == c.wlen);
  }
}

TEST_CASE("unstable: stable_to logs why it ignores an ID", "[raft]") {
  RecordingLogger logger;
  Unstable u{snap_at(4, 1), terms_at(5, {2}), 5, false, 6, &logger};
  u.stable_to({1, 9});
  u.stable_to({1, 4});
  u.stable_to({1, 5});
  const std::vector<std::string> want = {
      "INFO entry at index 9 missing from unstable log; ignoring",
      "INFO entry at index 4 matched unstable snapshot; ignoring",
      "INFO entry at (index,term)=(5,1) mismatched with entry at (5,2) in unstable log; ignoring",
  };
  CHECK(logger.lines == want);
}

TEST_CASE("unstable: truncate_and_append", "[raft]") {
  struct Case {
    std::vector<Entry> entries;
    Index offset, offsetInProgress;
    std::vector<Entry> toappend;
    Index woffset, woffsetInProgress;
    std::vector<Entry> wentries;
    std::string wline;
  };
  const std::vector<Case> cases = {
      {terms_at(5, {1}), 5, 5, terms_at(6, {1, 1}), 5, 5, terms_at(5, {1, 1, 1}), ""},
      {terms_at(5, {1}), 5, 6, terms_at(6, {1, 1}), 5, 6, terms_at(5, {1, 1, 1}), ""},
      {terms_at(5, {1}), 5, 5, terms_at(5, {2, 2}), 5, 5, terms_at(5, {2, 2}),
       "INFO replace the unstable entries from index 5"},
      {terms_at(5, {1}), 5, 5, terms_at(4, {2, 2, 2}), 4, 4, terms_at(4, {2, 2, 2}),
       "INFO replace the unstable entries from index 4"},
      {terms_at(5, {1}), 5, 6, terms_at(5, {2, 2}), 5, 5, terms_at(5, {2, 2}),
       "INFO replace the unstable entries from index 5"},
      {terms_at(5, {1, 1, 1}), 5, 5, terms_at(6, {2}), 5, 5, terms_at(5, {1, 2}),
       "INFO truncate the unstable entries before index 6"},
      {terms_at(5, {1, 1, 1}), 5, 5, terms_at(7, {2, 2}), 5, 5, terms_at(5, {1, 1, 2, 2}),
       "INFO truncate the unstable entries before index 7"},
      {terms_at(5, {1, 1, 1}), 5, 6, terms_at(6, {2}), 5, 6, terms_at(5, {1, 2}),
       "INFO truncate the unstable entries before index 6"},
      {terms_at(5, {1, 1, 1}), 5, 7, terms_at(6, {2}), 5, 6, terms_at(5, {1, 2}),
       "INFO truncate the unstable entries before index 6"},
  };
  for (const Case& c : cases) {
    RecordingLogger logger;
    Unstable u{std::nullopt, c.entries, c.offset, false, c.offsetInProgress, &logger};
    u.truncate_and_append(c.toappend);
    CHECK(u.offset == c.woffset);
    CHECK(u.offsetInProgress == c.woffsetInProgress);
    CHECK(u.entries == c.wentries);
    CHECK(logger.lines ==
          (c.wline.empty() ? std::vector<std::string>{} : std::vector<std::string>{c.wline}));
  }
}

TEST_CASE("unstable: indexes, next entries and snapshot, restore", "[raft]") {
  Unstable u{snap_at(4, 1), terms_at(5, {1, 1}), 5, false, 5, &discard_logger()};
  CHECK(u.maybe_first_index() == Index{5});
  CHECK(u.maybe_last_index() == Index{6});
  CHECK(u.maybe_term(4) == Term{1});
  CHECK(u.maybe_term(6) == Term{1});
  CHECK_FALSE(u.maybe_term(3).has_value());
  CHECK_FALSE(u.maybe_term(7).has_value());
  CHECK(u.next_entries().size() == 2);
  CHECK(u.next_snapshot().has_value());
  u.accept_in_progress();
  CHECK(u.offsetInProgress == 7);
  CHECK(u.next_entries().empty());
  CHECK_FALSE(u.next_snapshot().has_value());
  u.truncate_and_append(terms_at(7, {2}));
  CHECK(u.next_entries() == terms_at(7, {2}));
  u.restore(snap_at(6, 2));
  CHECK(u.offset == 7);
  CHECK(u.offsetInProgress == 7);
  CHECK(u.entries.empty());
  CHECK_FALSE(u.snapshotInProgress);
  u.stable_snap_to(6);
  CHECK_FALSE(u.snapshot.has_value());
  CHECK_FALSE(u.maybe_last_index().has_value());
}

TEST_CASE("memory storage: term, entries, first and last index", "[raft]") {
  const auto ents = terms_at(3, {3, 4, 5, 6});
  MemoryStorage s;
  fill(s, ents);
  CHECK(s.term(2).err == StorageError::ErrCompacted);
  CHECK(s.term(3).value == 3);
  CHECK(s.term(6).value == 6);
  CHECK(s.term(7).err == StorageError::ErrUnavailable);
  CHECK(s.first_index().value == 4);
  CHECK(s.last_index().value == 6);

  const auto size = [&](std::size_t i) { return entry_size(ents[i]); };
  struct Case {
    Index lo, hi;
    std::uint64_t maxSize;
    StorageError werr;
    std::vector<Entry> want;
  };
  const std::vector<Case> cases = {
      {2, 6, noLimit, StorageError::ErrCompacted, {}},
      {3, 4, noLimit, StorageError::ErrCompacted, {}},
      {4, 5, noLimit, StorageError::Ok, terms_at(4, {4})},
      {4, 7, noLimit, StorageError::Ok, terms_at(4, {4, 5, 6})},
      {4, 7, 0, StorageError::Ok, terms_at(4, {4})},
      {4, 7, size(1) + size(2), StorageError::Ok, terms_at(4, {4, 5})},
      {4, 7, size(1) + size(2) + size(3) / 2, StorageError::Ok, terms_at(4, {4, 5})},
      {4, 7, size(1) + size(2) + size(3) - 1, StorageError::Ok, terms_at(4, {4, 5})},
      {4, 7, size(1) + size(2) + size(3), StorageError::Ok, terms_at(4, {4, 5, 6})},
  };
  for (const Case& c : cases) {
    const auto got = s.entries(c.lo, c.hi, c.maxSize);
    CHECK(got.err == c.werr);
    CHECK(got.value == c.want);
  }
  MemoryStorage empty;
  CHECK(empty.entries(1, 1, noLimit).err == StorageError::ErrUnavailable);
}

TEST_CASE("memory storage: compact", "[raft]") {
  struct Case {
    Index i;
    StorageError werr;
    Index windex;
    Term wterm;
    Index wfirst;
  };
  for (const Case& c : std::vector<Case>{{2, StorageError::ErrCompacted, 3, 3, 4},
                                         {3, StorageError::ErrCompacted, 3, 3, 4},
                                         {4, StorageError::Ok, 4, 4, 5},
                                         {5, StorageError::Ok, 5, 5, 6}}) {
    MemoryStorage s;
    fill(s, terms_at(3, {3, 4, 5}));
    CHECK(s.compact(c.i) == c.werr);
    CHECK(s.first_index().value == c.wfirst);
    CHECK(s.term(c.windex).value == c.wterm);
    CHECK(s.term(c.windex - 1).err == StorageError::ErrCompacted);
    CHECK(s.last_index().value == 5);
  }
}

TEST_CASE("memory storage: create_snapshot and apply_snapshot", "[raft]") {
  ConfState cs;
  cs.voters = {1, 2, 3};
  for (Index i : {Index{4}, Index{5}}) {
    MemoryStorage s;
    fill(s, terms_at(3, {3, 4, 5}));
    const auto snap = s.create_snapshot(i, &cs, "data");
    REQUIRE(snap.ok());
    CHECK(snap.value.data == "data");
    CHECK(snap.value.metadata.index == i);
    CHECK(snap.value.metadata.term == i);
    CHECK(snap.value.metadata.confState == cs);
    CHECK(s.snapshot().value == snap.value);
    CHECK(s.create_snapshot(i, nullptr, "").err == StorageError::ErrSnapOutOfDate);
  }
  MemoryStorage s;
  Snapshot snap = snap_at(4, 4);
  snap.metadata.confState = cs;
  CHECK(s.apply_snapshot(snap) == StorageError::Ok);
  CHECK(s.initial_state().value.confState == cs);
  CHECK(s.apply_snapshot(snap_at(3, 3)) == StorageError::ErrSnapOutOfDate);
  MemoryStorage boot;  // bootstrapping: only a ConfState, at index 0
  Snapshot confOnly;
  confOnly.metadata.confState = cs;
  CHECK(boot.apply_snapshot(confOnly) == StorageError::Ok);
  CHECK(error_text(StorageError::ErrSnapOutOfDate) ==
        "requested index is older than the existing snapshot");
}

TEST_CASE("memory storage: append", "[raft]") {
  struct Case {
    std::vector<Entry> entries;
    std::vector<Entry> want;  // the log after the dummy at 3
  };
  const std::vector<Case> cases = {
      {terms_at(1, {1, 2}), terms_at(4, {4, 5})},
      {terms_at(3, {3, 4, 5}), terms_at(4, {4, 5})},
      {terms_at(3, {3, 6, 6}), terms_at(4, {6, 6})},
      {terms_at(3, {3, 4, 5, 5}), terms_at(4, {4, 5, 5})},
      {terms_at(2, {3, 3, 5}), terms_at(4, {5})},
      {terms_at(4, {5}), terms_at(4, {5})},
      {terms_at(6, {5}), terms_at(4, {4, 5, 5})},
  };
  for (const Case& c : cases) {
    MemoryStorage s;
    fill(s, terms_at(3, {3, 4, 5}));
    CHECK(s.append(c.entries) == StorageError::Ok);
    const auto got = s.entries(4, s.last_index().value + 1, noLimit);
    REQUIRE(got.ok());
    CHECK(got.value == c.want);
  }
}

TEST_CASE("log slice: valid and last entry", "[raft]") {
  auto e = [](Index index, Term term) {
    Entry entry;
    entry.index = index;
    entry.term = term;
    return entry;
  };
  CHECK(LogSlice{}.last_entry_id() == EntryID{});
  CHECK(LogSlice{0, {10, 123}, {}}.valid() ==
        std::optional<std::string>("leader term 0: entry {term:10 index:123} has a newer term"));
  CHECK_FALSE(LogSlice{10, {10, 123}, {}}.valid().has_value());
  CHECK_FALSE(LogSlice{2, {1, 1}, {e(2, 1), e(3, 1), e(4, 2)}}.valid().has_value());
  CHECK(LogSlice{2, {1, 1}, {e(2, 1), e(3, 1), e(4, 2)}}.last_entry_id() == EntryID{2, 4});
  CHECK(LogSlice{10, {5, 123}, {e(124, 4)}}.valid() ==
        std::optional<std::string>(
            "leader term 10: entries {term:5 index:123} and {term:4 index:124} not consistent"));
  CHECK(LogSlice{10, {2, 12}, {e(13, 2), e(15, 2)}}.valid().has_value());
  CHECK(LogSlice{10, {2, 12}, {e(13, 2), e(14, 3)}}.last_index() == 14);
}
