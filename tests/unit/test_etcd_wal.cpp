// The etcd member's WAL (models/etcd/wal.hpp): the record codec round-trips, and a replay
// rebuilds what etcd's would (snapshot, entries with later records replacing a suffix, the
// last HardState; an unfinished snapshot ignored).
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <map>

#include "models/etcd/trace_entries.hpp"
#include "models/etcd/wal.hpp"

using namespace hasim;
using namespace hasim::etcd;

namespace {

rc::Gen<raft::Entry> gen_entry() {
  return rc::gen::apply(
      [](std::uint64_t term, std::uint64_t index, int type, std::string data) {
        raft::Entry e;
        e.term = term;
        e.index = index;
        e.type = static_cast<raft::EntryType>(type);
        e.data = std::move(data);
        return e;
      },
      rc::gen::arbitrary<std::uint64_t>(), rc::gen::arbitrary<std::uint64_t>(),
      rc::gen::inRange(0, 3), rc::gen::arbitrary<std::string>());
}

rc::Gen<std::vector<raft::PeerId>> gen_ids() {
  return rc::gen::container<std::vector<raft::PeerId>>(rc::gen::arbitrary<raft::PeerId>());
}

// The files of a fake volume.
struct Files {
  std::map<std::string, std::vector<std::string>> files;
  const std::vector<std::string>& operator()(const std::string& name) const {
    static const std::vector<std::string> none;
    const auto it = files.find(name);
    return it == files.end() ? none : it->second;
  }
  // One write per record (the member flushes several at once: see the encoder's test).
  void add(const std::string& file, const WalRecord& r) {
    WalEncoder encoder;
    encoder.encode(r);
    files[file].push_back(encoder.flush());
  }
};

raft::Entry entry(raft::Term term, raft::Index index, std::string data = "") {
  raft::Entry e;
  e.term = term;
  e.index = index;
  e.data = std::move(data);
  return e;
}

raft::Snapshot snapshot(raft::Index index, raft::Term term) {
  raft::Snapshot s;
  s.metadata.index = index;
  s.metadata.term = term;
  s.metadata.confState.voters = {1, 2, 3};
  s.data = "state";
  return s;
}

std::vector<raft::Index> indexes(const std::vector<raft::Entry>& entries) {
  std::vector<raft::Index> out;
  for (const auto& e : entries) out.push_back(e.index);
  return out;
}

}  // namespace

TEST_CASE("WAL records round-trip", "[etcd]") {
  rc::prop("entries", [] {
    const raft::Entry e = *gen_entry();
    const auto back = decode_wal_record(encode(entry_record(e)));
    RC_ASSERT(back.has_value());
    RC_ASSERT(back->type == WalRecord::Type::entry);
    RC_ASSERT(back->entry == e);
  });
  rc::prop("hard states", [](std::uint64_t term, std::uint64_t vote, std::uint64_t commit) {
    const raft::HardState hs{term, vote, commit};
    const auto back = decode_wal_record(encode(state_record(hs)));
    RC_ASSERT(back.has_value() && back->type == WalRecord::Type::state && back->state == hs);
  });
  rc::prop("snapshot markers", [](std::uint64_t index, std::uint64_t term, bool install,
                                  std::uint64_t start) {
    const WalSnapshotMarker m{index, term, install, start};
    const auto back = decode_wal_record(encode(marker_record(m)));
    RC_ASSERT(back.has_value() && back->type == WalRecord::Type::snapshot && back->marker == m);
  });
  rc::prop("snapshot files", [](std::uint64_t index, std::uint64_t term, std::string data,
                                bool autoLeave, std::uint64_t segment) {
    SnapRecord r;
    r.snapshot.metadata.index = index;
    r.snapshot.metadata.term = term;
    r.snapshot.metadata.confState.voters = *gen_ids();
    r.snapshot.metadata.confState.learners = *gen_ids();
    r.snapshot.metadata.confState.votersOutgoing = *gen_ids();
    r.snapshot.metadata.confState.learnersNext = *gen_ids();
    r.snapshot.metadata.confState.autoLeave = autoLeave;
    r.snapshot.data = std::move(data);
    r.firstSegment = segment;
    RC_ASSERT(decode_snap_record(encode(r)) == std::optional<SnapRecord>(r));
  });
  rc::prop("a truncated record does not decode", [] {
    const std::string bytes = encode(entry_record(*gen_entry()));
    const auto cut = *rc::gen::inRange<std::size_t>(0, bytes.size());
    RC_ASSERT(!decode_wal_record(bytes.substr(0, cut)).has_value());
  });
}

TEST_CASE("the encoder's writes round-trip, several records to a write", "[etcd]") {
  rc::prop("a flush holds every record encoded since the last, in order", [] {
    const auto entries = *rc::gen::container<std::vector<raft::Entry>>(gen_entry());
    WalEncoder encoder;
    for (const raft::Entry& e : entries) encoder.encode(entry_record(e));
    const raft::HardState hs{*rc::gen::arbitrary<std::uint64_t>(), 1, 2};
    encoder.encode(state_record(hs));
    const std::string write = encoder.flush();
    RC_ASSERT(encoder.empty());
    const auto back = decode_wal_write(write);
    RC_ASSERT(back.has_value());
    RC_ASSERT(back->size() == entries.size() + 1);
    for (std::size_t i = 0; i < entries.size(); ++i) RC_ASSERT((*back)[i].entry == entries[i]);
    RC_ASSERT(back->back().state == hs);
    // A write cut short decodes only at a frame boundary, and then to the records before it.
    const auto cut = *rc::gen::inRange<std::size_t>(0, write.size());
    const auto torn = decode_wal_write(write.substr(0, cut));
    if (torn) {
      RC_ASSERT(torn->size() < back->size());
      for (std::size_t i = 0; i < torn->size(); ++i) RC_ASSERT((*torn)[i].entry == (*back)[i].entry);
    }
  });
}

TEST_CASE("traced entries round-trip", "[etcd]") {
  rc::prop("encode then decode", [](std::uint64_t first) {
    RC_PRE(first < (1ULL << 62));
    const auto terms = *rc::gen::container<std::vector<std::uint64_t>>(rc::gen::inRange<std::uint64_t>(0, 5));
    std::vector<raft::Entry> entries;
    for (std::size_t i = 0; i < terms.size(); ++i) {
      entries.push_back(entry(terms[i], first + i, *rc::gen::arbitrary<std::string>()));
    }
    const auto back = decode_trace_entries(first, encode_trace_entries(entries));
    RC_ASSERT(back.has_value());
    RC_ASSERT(back->size() == entries.size());
    for (std::size_t i = 0; i < entries.size(); ++i) {
      RC_ASSERT((*back)[i] == (TracedEntry{first + i, entries[i].term,
                                           entry_payload_hash(entries[i])}));
    }
  });
}

TEST_CASE("a replay overwrites a suffix and keeps the last HardState", "[etcd]") {
  Files f;
  const std::string wal0 = wal_segment_name(0);
  for (raft::Index i = 2; i <= 5; ++i) f.add(wal0, entry_record(entry(1, i)));
  f.add(wal0, state_record({1, 1, 3}));
  f.add(wal0, entry_record(entry(2, 4)));  // a new leader's entry replaces 4 and 5
  f.add(wal0, state_record({2, 2, 4}));
  const Replayed r = replay(snapshot(1, 1), f);
  CHECK(r.snapshot.metadata.index == 1);
  CHECK(indexes(r.entries) == std::vector<raft::Index>{2, 3, 4});
  CHECK(r.entries.back().term == 2);
  CHECK(r.state == raft::HardState{2, 2, 4});
  raft::MemoryStorage storage;
  load(r, storage);
  CHECK(storage.last_index().value == 4);
  CHECK(storage.term(4).value == 2);
}

TEST_CASE("a replay starts from the newest snapshot whose marker reached the WAL", "[etcd]") {
  Files f;
  for (raft::Index i = 2; i <= 20; ++i) f.add(wal_segment_name(0), entry_record(entry(1, i)));
  f.add(wal_segment_name(0), state_record({1, 1, 20}));
  // A snapshot at 10: its file, a new segment headed by its marker starting at 21.
  f.files[std::string(kSnapFile)].push_back(encode(SnapRecord{snapshot(10, 1), 0}));
  f.add(wal_segment_name(1), marker_record({10, 1, false, 21}));
  f.add(wal_segment_name(1), state_record({1, 1, 20}));
  f.add(wal_segment_name(1), entry_record(entry(1, 21)));
  // A snapshot at 21 whose marker never reached the disk: ignored.
  f.files[std::string(kSnapFile)].push_back(encode(SnapRecord{snapshot(21, 1), 1}));
  const Replayed r = replay(snapshot(1, 1), f);
  CHECK(r.snapshot.metadata.index == 10);
  CHECK(indexes(r.entries).front() == 11);
  CHECK(indexes(r.entries).back() == 21);
  CHECK(r.firstSegment == 0);
  CHECK(r.lastSegment == 1);
  CHECK(r.segmentStarts == std::vector<raft::Index>{0, 21});
}

TEST_CASE("an installed snapshot discards the log before it", "[etcd]") {
  Files f;
  for (raft::Index i = 2; i <= 8; ++i) f.add(wal_segment_name(0), entry_record(entry(1, i)));
  f.files[std::string(kSnapFile)].push_back(encode(SnapRecord{snapshot(6, 3), 0}));
  f.add(wal_segment_name(0), marker_record({6, 3, true, 0}));
  f.add(wal_segment_name(0), entry_record(entry(3, 7)));
  f.add(wal_segment_name(0), state_record({3, 0, 6}));
  const Replayed r = replay(snapshot(1, 1), f);
  CHECK(r.snapshot.metadata.index == 6);
  CHECK(indexes(r.entries) == std::vector<raft::Index>{7});
  CHECK(r.entries.front().term == 3);
}
