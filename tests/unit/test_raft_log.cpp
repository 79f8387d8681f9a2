// raftLog (models/raft/raft_log.*): the behaviour etcd-io/raft's log_test.go checks, in its
// table form. unstable, MemoryStorage and logSlice are in test_raft_storage.cpp.
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

TEST_CASE("raft log: find_conflict", "[raft]") {
  struct Case {
    std::vector<Entry> ents;
    Index want;
  };
  const std::vector<Case> cases = {
      {{}, 0},
      {terms_at(1, {1, 2, 3}), 0},
      {terms_at(2, {2, 3}), 0},
      {terms_at(3, {3}), 0},
      {terms_at(1, {1, 2, 3, 4, 4}), 4},
      {terms_at(2, {2, 3, 4, 5}), 4},
      {terms_at(3, {3, 4, 4}), 4},
      {terms_at(4, {4, 4}), 4},
      {terms_at(1, {4, 4}), 1},
      {terms_at(2, {1, 4, 4}), 2},
      {terms_at(3, {1, 2, 4, 4}), 3},
  };
  for (const Case& c : cases) {
    MemoryStorage storage;
    RaftLog log = new_log(storage, discard_logger());
    log.append(terms_at(1, {1, 2, 3}));
    CHECK(log.find_conflict(c.ents) == c.want);
  }
}

TEST_CASE("raft log: find_conflict logs upstream's line", "[raft]") {
  MemoryStorage storage;
  RecordingLogger logger;
  RaftLog log = new_log(storage, logger);
  log.append(terms_at(1, {1, 2, 3}));
  logger.lines.clear();
  CHECK(log.find_conflict(terms_at(2, {1, 4})) == 2);
  REQUIRE(logger.lines.size() == 1);
  CHECK(logger.lines[0] ==
        "INFO found conflict at index 2 [existing term: 2, conflicting term: 1]");
}

TEST_CASE("raft log: find_conflict_by_term", "[raft]") {
  struct Case {
    std::vector<Entry> ents;  // ents[0]: the snapshot's index and term
    Index index;
    Term term;
    Index want;
  };
  const auto a = terms_at(0, {0, 2, 2, 5, 5, 5});
  const auto b = terms_at(10, {3, 3, 3, 4, 4, 4});
  const std::vector<Case> cases = {
      {a, 100, 2, 100}, {a, 5, 6, 5},   {a, 5, 5, 5},   {a, 5, 4, 2},  {a, 5, 2, 2},
      {a, 5, 1, 0},     {a, 1, 2, 1},   {a, 1, 1, 0},   {a, 0, 0, 0},  {b, 30, 3, 30},
      {b, 14, 9, 14},   {b, 14, 4, 14}, {b, 14, 3, 12}, {b, 14, 2, 9}, {b, 11, 5, 11},
      {b, 10, 5, 10},   {b, 10, 3, 10}, {b, 10, 2, 9},  {b, 9, 2, 9},  {b, 4, 2, 4},
      {b, 0, 0, 0},
  };
  for (const Case& c : cases) {
    MemoryStorage storage;
    REQUIRE(storage.apply_snapshot(snap_at(c.ents[0].index, c.ents[0].term)) == StorageError::Ok);
    RaftLog log = new_log(storage, discard_logger());
    log.append(std::span<const Entry>(c.ents).subspan(1));
    const auto [index, term] = log.find_conflict_by_term(c.index, c.term);
    CHECK(index == c.want);
    CHECK(term == log.zero_term_on_out_of_bounds(log.term(index)));
  }
}

TEST_CASE("raft log: is_up_to_date", "[raft]") {
  MemoryStorage storage;
  RaftLog log = new_log(storage, discard_logger());
  log.append(terms_at(1, {1, 2, 3}));
  const Index last = log.last_index();
  CHECK(log.is_up_to_date({4, last - 1}));
  CHECK(log.is_up_to_date({4, last + 1}));
  CHECK_FALSE(log.is_up_to_date({2, last + 1}));
  CHECK_FALSE(log.is_up_to_date({3, last - 1}));
  CHECK(log.is_up_to_date({3, last}));
  CHECK(log.is_up_to_date({3, last + 1}));
}

TEST_CASE("raft log: append over stable entries", "[raft]") {
  struct Case {
    std::vector<Entry> ents;
    Index windex;
    std::vector<Entry> wents;
    Index wunstable;
  };
  const std::vector<Case> cases = {
      {{}, 2, terms_at(1, {1, 2}), 3},
      {terms_at(3, {2}), 3, terms_at(1, {1, 2, 2}), 3},
      {terms_at(1, {2}), 1, terms_at(1, {2}), 1},           // conflicts with index 1
      {terms_at(2, {3, 3}), 3, terms_at(1, {1, 3, 3}), 2},  // conflicts with index 2
  };
  for (const Case& c : cases) {
    MemoryStorage storage;
    REQUIRE(storage.append(terms_at(1, {1, 2})) == StorageError::Ok);
    RaftLog log = new_log(storage, discard_logger());
    CHECK(log.append(c.ents) == c.windex);
    const auto got = log.entries(1, noLimit);
    REQUIRE(got.ok());
    CHECK(got.value == c.wents);
    CHECK(log.unstable.offset == c.wunstable);
  }
}

TEST_CASE("raft log: maybe_append", "[raft]") {
  const Index lastindex = 3;
  const Term lastterm = 3;
  const Index commit = 1;
  struct Case {
    EntryID prev;
    Index committed;
    std::vector<Entry> ents;
    std::optional<Index> wlasti;
    Index wcommit;
  };
  const std::vector<Case> cases = {
      // No match: the term differs, or the index is past the end.
      {{lastterm - 1, lastindex}, lastindex, terms_at(lastindex + 1, {4}), std::nullopt, commit},
      {{lastterm, lastindex + 1}, lastindex, terms_at(lastindex + 2, {4}), std::nullopt, commit},
      // Match with the last entry.
      {{lastterm, lastindex}, lastindex, {}, lastindex, lastindex},
      {{lastterm, lastindex}, lastindex + 1, {}, lastindex, lastindex},
      {{lastterm, lastindex}, lastindex - 1, {}, lastindex, lastindex - 1},
      {{lastterm, lastindex}, 0, {}, lastindex, commit},
      {{}, lastindex, {}, 0, commit},
      {{lastterm, lastindex}, lastindex, terms_at(lastindex + 1, {4}), lastindex + 1, lastindex},
      {{lastterm, lastindex},
       lastindex + 1,
       terms_at(lastindex + 1, {4}),
       lastindex + 1,
       lastindex + 1},
      {{lastterm, lastindex},
       lastindex + 2,
       terms_at(lastindex + 1, {4}),
       lastindex + 1,
       lastindex + 1},
      {{lastterm, lastindex},
       lastindex + 2,
       terms_at(lastindex + 1, {4, 4}),
       lastindex + 2,
       lastindex + 2},
      // Match in the middle.
      {{lastterm - 1, lastindex - 1}, lastindex, terms_at(lastindex, {4}), lastindex, lastindex},
      {{lastterm - 2, lastindex - 2},
       lastindex,
       terms_at(lastindex - 1, {4}),
       lastindex - 1,
       lastindex - 1},
      {{lastterm - 2, lastindex - 2},
       lastindex,
       terms_at(lastindex - 1, {4, 4}),
       lastindex,
       lastindex},
  };
  for (const Case& c : cases) {
    const LogSlice app{100, c.prev, c.ents};
    REQUIRE_FALSE(app.valid().has_value());
    MemoryStorage storage;
    RaftLog log = new_log(storage, discard_logger());
    log.append(terms_at(1, {1, 2, 3}));
    log.committed = commit;
    CHECK(log.maybe_append(app, c.committed) == c.wlasti);
    CHECK(log.committed == c.wcommit);
    if (c.wlasti && !c.ents.empty()) {
      const auto got =
          log.slice(log.last_index() - c.ents.size() + 1, log.last_index() + 1, noLimit);
      REQUIRE(got.ok());
      CHECK(got.value == c.ents);
    }
  }
}

TEST_CASE("raft log: compaction side effects", "[raft]") {
  const Index lastIndex = 1000;
  const Index unstableIndex = 750;
  MemoryStorage storage;
  REQUIRE(storage.append(term_range(1, 1, unstableIndex + 1)) == StorageError::Ok);
  RaftLog log = new_log(storage, discard_logger());
  log.append(term_range(unstableIndex + 1, unstableIndex + 1, lastIndex + 1));
  REQUIRE(log.maybe_commit(log.last_entry_id()));
  log.applied_to(log.committed, 0);

  REQUIRE(storage.compact(500) == StorageError::Ok);
  CHECK(log.last_index() == lastIndex);
  for (Index j = 500; j <= log.last_index(); ++j) {
    REQUIRE(log.term(j).value == j);
    REQUIRE(log.match_term({j, j}));
  }
  const auto unstable = log.next_unstable_ents();
  REQUIRE(unstable.size() == 250);
  CHECK(unstable[0].index == 751);

  const Index prev = log.last_index();
  Entry next;
  next.index = next.term = log.last_index() + 1;
  log.append(std::vector<Entry>{next});
  CHECK(log.last_index() == prev + 1);
  CHECK(log.entries(log.last_index(), noLimit).value.size() == 1);
}

TEST_CASE("raft log: next_committed_ents, accept_applying, applied_to", "[raft]") {
  const auto ents = terms_at(4, {1, 1, 1});
  auto make = [&](RaftLog& log, MemoryStorage& storage, EntryEncodingSize maxSize) {
    REQUIRE(storage.apply_snapshot(snap_at(3, 1)) == StorageError::Ok);
    REQUIRE(storage.append({ents[0]}) == StorageError::Ok);
    log = new_log_with_size(storage, discard_logger(), maxSize);
    log.append(ents);
    log.stable_to({1, 4});
    log.maybe_commit({1, 5});
  };
  struct Case {
    Index applied, applying;
    bool allowUnstable;
    std::vector<Entry> want;
  };
  const std::vector<Case> cases = {
      {3, 3, true, {ents[0], ents[1]}}, {3, 4, true, {ents[1]}}, {3, 5, true, {}},
      {4, 4, true, {ents[1]}},          {4, 5, true, {}},        {5, 5, true, {}},
      {3, 3, false, {ents[0]}},         {3, 4, false, {}},       {4, 4, false, {}},
  };
  for (const Case& c : cases) {
    MemoryStorage storage;
    RaftLog log;
    make(log, storage, noLimit);
    log.applied_to(c.applied, 0);
    log.accept_applying(c.applying, 0, c.allowUnstable);
    log.applyingEntsPaused = false;  // as upstream's table sets it (paused: false)
    CHECK(log.has_next_committed_ents(c.allowUnstable) == !c.want.empty());
    CHECK(log.next_committed_ents(c.allowUnstable) == c.want);
  }
  SECTION("paused, or a snapshot pending: nothing") {
    MemoryStorage storage;
    RaftLog log;
    make(log, storage, noLimit);
    log.applied_to(3, 0);
    log.applyingEntsPaused = true;
    CHECK_FALSE(log.has_next_committed_ents(true));
    log.applyingEntsPaused = false;
    log.restore(snap_at(4, 1));
    CHECK(log.next_committed_ents(true).empty());
  }
  SECTION("the applying budget") {
    const EntryEncodingSize maxSize = 100;
    struct Pause {
      Index index;
      bool allowUnstable;
      EntryEncodingSize size;
      bool wpaused;
    };
    for (const Pause& p : std::vector<Pause>{{3, true, 99, true},
                                             {5, true, 99, false},
                                             {5, true, 100, true},
                                             {4, false, 99, false},
                                             {4, false, 101, true},
                                             {3, false, 99, true}}) {
      MemoryStorage storage;
      RaftLog log;
      make(log, storage, maxSize);
      log.applied_to(3, 0);
      log.accept_applying(p.index, p.size, p.allowUnstable);
      CHECK(log.applyingEntsPaused == p.wpaused);
    }
    MemoryStorage storage;
    RaftLog log;
    make(log, storage, maxSize);
    log.applied_to(3, 0);
    log.accept_applying(5, maxSize + 5, false);
    log.applied_to(4, 6);
    CHECK(log.applyingEntsSize == maxSize - 1);
    CHECK_FALSE(log.applyingEntsPaused);
    log.applied_to(5, 1000);  // more than outstanding: no underflow
    CHECK(log.applyingEntsSize == 0);
    CHECK(log.applying == 5);
  }
}

TEST_CASE("raft log: commit_to never decreases", "[raft]") {
  MemoryStorage storage;
  RaftLog log = new_log(storage, discard_logger());
  log.append(terms_at(1, {1, 2, 3}));
  log.committed = 2;
  log.commit_to(1);
  CHECK(log.committed == 2);
  log.commit_to(3);
  CHECK(log.committed == 3);
}

TEST_CASE("raft log: stable_to, with and without a snapshot", "[raft]") {
  struct Case {
    Index index;
    Term term;
    Index wunstable;
  };
  for (const Case& c : std::vector<Case>{{1, 1, 2}, {2, 2, 3}, {2, 1, 1}, {3, 1, 1}}) {
    MemoryStorage storage;
    RaftLog log = new_log(storage, discard_logger());
    log.append(terms_at(1, {1, 2}));
    log.stable_to({c.term, c.index});
    CHECK(log.unstable.offset == c.wunstable);
  }
  const Index si = 5;
  const Term st = 2;
  struct SnapCase {
    Index index;
    Term term;
    bool newEntry;
    Index wunstable;
  };
  for (const SnapCase& c : std::vector<SnapCase>{{si + 1, st, false, si + 1},
                                                 {si, st, false, si + 1},
                                                 {si + 1, st, true, si + 2},
                                                 {si, st, true, si + 1},
                                                 {si + 1, st + 1, true, si + 1},
                                                 {si - 1, st, true, si + 1}}) {
    MemoryStorage storage;
    REQUIRE(storage.apply_snapshot(snap_at(si, st)) == StorageError::Ok);
    RaftLog log = new_log(storage, discard_logger());
    if (c.newEntry) log.append(terms_at(si + 1, {st}));
    log.stable_to({c.term, c.index});
    CHECK(log.unstable.offset == c.wunstable);
  }
}

TEST_CASE("raft log: compaction and all_entries", "[raft]") {
  MemoryStorage storage;
  REQUIRE(storage.append(term_range(1, 1, 1001)) == StorageError::Ok);
  RaftLog log = new_log(storage, discard_logger());
  log.applied_to(log.committed, 0);
  const std::vector<std::pair<Index, std::size_t>> steps = {{300, 700}, {500, 500}, {800, 200}};
  for (const auto& [compact, left] : steps) {
    REQUIRE(storage.compact(compact) == StorageError::Ok);
    CHECK(log.all_entries().size() == left);
  }
  CHECK(storage.compact(299) == StorageError::ErrCompacted);
}

TEST_CASE("raft log: restore from storage, term ranges", "[raft]") {
  MemoryStorage storage;
  REQUIRE(storage.apply_snapshot(snap_at(1000, 1000)) == StorageError::Ok);
  RaftLog log = new_log(storage, discard_logger());
  CHECK(log.all_entries().empty());
  CHECK(log.first_index() == 1001);
  CHECK(log.committed == 1000);
  CHECK(log.unstable.offset == 1001);
  CHECK(log.term(1000).value == 1000);

  MemoryStorage s2;
  REQUIRE(s2.apply_snapshot(snap_at(100, 1)) == StorageError::Ok);
  RaftLog l2 = new_log(s2, discard_logger());
  l2.append(term_range(101, 1, 100));
  CHECK(l2.term(99).err == StorageError::ErrCompacted);
  CHECK(l2.term(100).value == 1);
  CHECK(l2.term(150).value == 50);
  CHECK(l2.term(199).value == 99);
  CHECK(l2.term(200).err == StorageError::ErrUnavailable);
  CHECK(l2.must_check_out_of_bounds(99, 102) == StorageError::ErrCompacted);
  CHECK(l2.must_check_out_of_bounds(100, 102) == StorageError::ErrCompacted);
  CHECK(l2.must_check_out_of_bounds(101, 101) == StorageError::Ok);
  CHECK(l2.must_check_out_of_bounds(200, 200) == StorageError::Ok);

  // An unstable snapshot past Storage's: the gap between them is compacted.
  RecordingLogger logger;
  MemoryStorage s3;
  REQUIRE(s3.apply_snapshot(snap_at(100, 1)) == StorageError::Ok);
  RaftLog l3 = new_log(s3, logger);
  l3.restore(snap_at(105, 1));
  CHECK(l3.term(100).err == StorageError::ErrCompacted);
  CHECK(l3.term(104).err == StorageError::ErrCompacted);
  CHECK(l3.term(105).value == 1);
  CHECK(l3.term(106).err == StorageError::ErrUnavailable);
  REQUIRE(logger.lines.size() == 1);
  CHECK(logger.lines[0] ==
        "INFO log [committed=100, applied=100, applying=100, unstable.offset=101, "
        "unstable.offsetInProgress=101, len(unstable.Entries)=0] starts to restore snapshot "
        "[index: 105, term: 1]");
}

TEST_CASE("raft log: slice honours the size limit across storage and unstable", "[raft]") {
  const Index offset = 100;
  const Index last = offset + 100;
  const Index half = offset + 50;
  Entry halfe;
  halfe.index = halfe.term = half;
  halfe.typeSet = true;
  const std::uint64_t size = entry_size(halfe);
  REQUIRE(size == 8);  // 1+2 for term 150, 1+2 for index 150, 1+1 for type 0 set on purpose

  MemoryStorage storage;
  REQUIRE(storage.apply_snapshot(snap_at(offset, 0)) == StorageError::Ok);
  REQUIRE(storage.append(term_range(offset + 1, offset + 1, half)) == StorageError::Ok);
  RaftLog log = new_log(storage, discard_logger());
  log.append(term_range(half, half, last));

  auto ents = [](Index from, Index to) { return term_range(from, from, to); };
  struct Case {
    Index lo, hi;
    std::uint64_t lim;
    std::vector<Entry> want;
  };
  const std::vector<Case> cases = {
      {offset + 1, offset + 1, noLimit, {}},
      {offset + 1, half - 1, noLimit, ents(offset + 1, half - 1)},
      {offset + 1, half + 1, noLimit, ents(offset + 1, half + 1)},
      {offset + 1, last, noLimit, ents(offset + 1, last)},
      {half - 1, half + 1, noLimit, ents(half - 1, half + 1)},
      {half, last, noLimit, ents(half, last)},
      {offset + 1, last, 0, ents(offset + 1, offset + 2)},
      {half - 1, half + 1, 0, ents(half - 1, half)},
      {half, last, 0, ents(half, half + 1)},
      {half + 1, last, 0, ents(half + 1, half + 2)},
      {offset + 1, last, size - 1, ents(offset + 1, offset + 2)},
      {half - 1, half + 1, size, ents(half - 1, half)},
      {half, last, size + 1, ents(half, half + 1)},
      {offset + 1, last, size * 2, ents(offset + 1, offset + 3)},
      {half - 2, half + 1, size * 2, ents(half - 2, half)},
      {half - 1, half + 1, size * 2, ents(half - 1, half + 1)},
      {half, last, size * 2, ents(half, half + 2)},
      {half - 2, half + 1, size * 3 - 1, ents(half - 2, half)},
      {half - 1, half + 2, size * 3, ents(half - 1, half + 2)},
  };
  for (const Case& c : cases) {
    const auto got = log.slice(c.lo, c.hi, c.lim);
    REQUIRE(got.ok());
    CHECK(got.value == c.want);
  }
  CHECK(log.slice(offset, offset + 1, noLimit).err == StorageError::ErrCompacted);
}

TEST_CASE("raft log: scan pages through slice", "[raft]") {
  const Index offset = 47;
  const Index last = offset + 20;
  const Index half = offset + 10;
  MemoryStorage storage;
  REQUIRE(storage.apply_snapshot(snap_at(offset, 0)) == StorageError::Ok);
  REQUIRE(storage.append(term_range(offset + 1, offset + 1, half)) == StorageError::Ok);
  RaftLog log = new_log(storage, discard_logger());
  log.append(term_range(half, half, last));
  const EntryEncodingSize entrySize = ents_size(term_range(half, half, half + 1));

  for (EntryEncodingSize pageSize : {EntryEncodingSize{0}, EntryEncodingSize{1},
                                     EntryEncodingSize{10}, entrySize, entrySize + 1}) {
    for (Index lo = offset + 1; lo < last; ++lo) {
      for (Index hi = lo; hi <= last; ++hi) {
        std::vector<Entry> got;
        const std::string err = log.scan(lo, hi, pageSize, [&](const std::vector<Entry>& e) {
          got.insert(got.end(), e.begin(), e.end());
          CHECK((e.size() == 1 || ents_size(e) <= pageSize));
          return std::string();
        });
        REQUIRE(err.empty());
        REQUIRE(got == log.slice(lo, hi, noLimit).value);
      }
    }
  }
  int iters = 0;
  CHECK(log.scan(offset + 1, half, 0, [&](const std::vector<Entry>&) {
    return ++iters == 2 ? std::string("break") : std::string();
  }) == "break");
  CHECK(iters == 2);
  CHECK(log.scan(offset + 1, offset + 11, entrySize * 2,
                 [&](const std::vector<Entry>& e) {
                   CHECK(e.size() == 2);
                   return std::string();
                 })
            .empty());
}
