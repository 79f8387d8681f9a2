// raftLog, unstable and MemoryStorage (models/raft): the behaviour etcd-io/raft's log_test.go,
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

using namespace hasim::raft;

namespace {

// Entries at consecutive indexes from `first` with the given terms (log_test.go index.terms).
std::vector<Entry> terms_at(Index first, std::vector<Term> terms) {
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
std::vector<Entry> term_range(Index first, Term from, Term to) {
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

Snapshot snap_at(Index index, Term term) {
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
void fill(MemoryStorage& s, const std::vector<Entry>& ents) {
  REQUIRE(s.apply_snapshot(snap_at(ents[0].index, ents[0].term)) == StorageError::Ok);
  REQUIRE(s.append(std::vector<Entry>(ents.begin() + 1, ents.end())) == StorageError::Ok);
}

}  // namespace

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
