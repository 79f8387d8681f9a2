// Backups of a druid-managed Etcd: the object store's listing (models/druid/snapstore.hpp),
// the probe loop's back-off, the restorer, and the leading sidecar's snapshotter in a run
// (scenarios/druid/druid-backup-store-outage.json).
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "druid_trace_rig.hpp"
#include "models/druid/snapshot_restorer.hpp"
#include "models/druid/snapstore.hpp"
#include "models/etcd/kv_snapshot.hpp"
#include "models/etcd/mvcc/apply.hpp"

using namespace hasim;
using namespace hasim::druid;
using hasim::druid_test::of_kind;
using hasim::druid_test::run_trace;

namespace {

StoredSnapshot snap(sidecar::SnapshotKind kind, std::int64_t start, std::int64_t last,
                    std::int64_t created_s) {
  StoredSnapshot s;
  s.kind = kind;
  s.start_revision = start;
  s.last_revision = last;
  s.created_on = LocalTime{created_s * 1'000'000'000};
  s.name = sidecar::snapshot_name(kind, start, last, s.created_on, false);
  return s;
}

constexpr auto kFull = sidecar::SnapshotKind::Full;
constexpr auto kIncr = sidecar::SnapshotKind::Incr;

}  // namespace

TEST_CASE("the latest full snapshot and the deltas listed after it", "[druid-backups]") {
  CHECK_FALSE(latest_full_and_deltas({}).full.has_value());
  const std::vector<StoredSnapshot> deltas_only{snap(kIncr, 1, 5, 10), snap(kIncr, 6, 9, 20)};
  const LatestSnapshots none = latest_full_and_deltas(deltas_only);
  CHECK_FALSE(none.full.has_value());
  CHECK(none.deltas.size() == 2);  // no full snapshot: every delta of the list
  const std::vector<StoredSnapshot> listing{snap(kFull, 0, 5, 10), snap(kIncr, 6, 9, 20),
                                            snap(kFull, 0, 12, 30), snap(kIncr, 13, 15, 40),
                                            snap(kIncr, 16, 20, 50)};
  const LatestSnapshots latest = latest_full_and_deltas(listing);
  REQUIRE(latest.full.has_value());
  CHECK(latest.full->last_revision == 12);
  REQUIRE(latest.deltas.size() == 2);
  CHECK(latest.deltas.front().start_revision == 13);
  CHECK(latest.deltas.back().last_revision == 20);
}

TEST_CASE("the store lists by last revision, then creation second, metadata only",
          "[druid-backups]") {
  Snapstore store;
  StoredSnapshot late = snap(kIncr, 6, 9, 50);
  late.events.resize(3);
  store.save(late);
  store.save(snap(kFull, 0, 5, 40));
  store.save(snap(kFull, 0, 9, 30));  // same last revision as the delta, created earlier
  const std::vector<StoredSnapshot> listed = store.list(false);
  REQUIRE(listed.size() == 3);
  CHECK(listed[0].last_revision == 5);
  CHECK(listed[1].kind == kFull);
  CHECK(listed[2].kind == kIncr);
  CHECK(listed[2].events.empty());
  CHECK(store.list(true)[2].events.size() == 3);
}

// The listing's order and GetLatestFullSnapshotAndDeltaSnapList against a naive reading.
TEST_CASE("latest_full_and_deltas agrees with a naive scan", "[druid-backups]") {
  rc::prop("naive", [](std::vector<std::pair<bool, std::uint8_t>> spec) {
    Snapstore store;
    std::int64_t second = 0;
    for (const auto& [full, rev] : spec) store.save(snap(full ? kFull : kIncr, 0, rev, ++second));
    const std::vector<StoredSnapshot> listed = store.list(false);
    RC_ASSERT(std::is_sorted(listed.begin(), listed.end(), [](const auto& a, const auto& b) {
      return a.last_revision < b.last_revision;
    }));
    const LatestSnapshots latest = latest_full_and_deltas(listed);
    // Naive: the index of the last full snapshot; everything after it.
    std::optional<std::size_t> last_full;
    for (std::size_t i = 0; i < listed.size(); ++i) {
      if (listed[i].kind == kFull) last_full = i;
    }
    RC_ASSERT(latest.full.has_value() == last_full.has_value());
    const std::size_t first = last_full ? *last_full + 1 : 0;
    RC_ASSERT(latest.deltas.size() == listed.size() - first);
    if (last_full) RC_ASSERT(latest.full->name == listed[*last_full].name);
  });
}

TEST_CASE("the probe loop backs off 2s doubling to 128s after a snapshotter failure",
          "[druid-backups]") {
  sidecar::ExponentialBackoff backoff;
  std::vector<std::int64_t> waits;
  for (int i = 0; i < 9; ++i)
    waits.push_back(sidecar::next_backoff_time(backoff).ns / 1'000'000'000);
  CHECK(waits == std::vector<std::int64_t>{2, 4, 8, 16, 32, 64, 128, 128, 128});
  backoff.start = true;
  sidecar::reset_backoff(backoff);
  CHECK_FALSE(backoff.start);
  CHECK(sidecar::next_backoff_time(backoff) == seconds(2));
}

// In a run: the leading sidecar's snapshots cover every revision once, in order (each delta
// starts after the previous snapshot), an outage's failed uploads are retried until one
// succeeds, and druid's BackupReady goes True, Unknown, False and True again.
TEST_CASE("the snapshotter's deltas cover the revisions in order across an outage",
          "[druid-backups][scenario-rerun]") {
  const auto events = run_trace("scenarios/druid/druid-backup-store-outage.json");
  std::int64_t last = -1;
  int saved = 0;
  int failed = 0;
  for (const auto& e : of_kind(events, "druid-br-snapshot")) {
    if (e.at("outcome") != "saved") {
      ++failed;
      CHECK(e.at("start") == last + 1);  // the retry starts where the store stopped
      continue;
    }
    ++saved;
    if (e.at("snapshot") == "Full") {
      CHECK(e.at("start") == 0);
    } else {
      CHECK(e.at("start") == last + 1);
    }
    CHECK(e.at("last") > last);
    last = e.at("last");
  }
  CHECK(saved > 10);
  CHECK(failed >= 2);
  std::vector<std::string> backup_ready;
  for (const auto& e : of_kind(events, "druid-condition")) {
    if (e.at("type") == "BackupReady") backup_ready.push_back(e.at("status"));
  }
  CHECK(backup_ready == std::vector<std::string>{"Unknown", "True", "Unknown", "False", "True"});
}

// ---- the restorer (models/druid/snapshot_restorer.hpp) ----------------------------------

namespace {

// Every write txn's events, as the snapshotter's watch sees them.
struct EventRecorder final : etcd::mvcc::TxnObserver {
  std::vector<etcd::mvcc::Event> events;
  void on_txn_end(std::int64_t, const std::vector<etcd::mvcc::Event>& ev) override {
    events.insert(events.end(), ev.begin(), ev.end());
  }
};

StoredSnapshot full_of(const etcd::mvcc::KvStore& store) {
  etcd::mvcc::KvStore copy = store;
  etcd::mvcc::Applier applier(copy);
  StoredSnapshot s = snap(kFull, 0, store.current_revision(), 1);
  s.backend = etcd::encode_store(copy, applier);
  return s;
}

StoredSnapshot delta_of(const std::vector<etcd::mvcc::Event>& events, std::size_t from,
                        std::size_t to) {
  StoredSnapshot s = snap(kIncr, events[from].kv.mod_revision, events[to - 1].kv.mod_revision, 2);
  s.events.assign(events.begin() + static_cast<std::ptrdiff_t>(from),
                  events.begin() + static_cast<std::ptrdiff_t>(to));
  return s;
}

// The backend's records (revision, tombstone, KeyValue), comparable.
std::vector<std::tuple<std::int64_t, std::int64_t, bool, etcd::mvcc::KeyValue>> records(
    const etcd::mvcc::KvStore& store) {
  std::vector<std::tuple<std::int64_t, std::int64_t, bool, etcd::mvcc::KeyValue>> out;
  for (const auto& [rev, record] : store.backend()) {
    out.emplace_back(rev.main, rev.sub, record.tombstone, record.kv);
  }
  return out;
}

etcd::mvcc::KvStore decoded(const RestoredBackend& restored) {
  etcd::mvcc::KvStore store;
  etcd::mvcc::Applier applier(store);
  REQUIRE(etcd::decode_store(restored.backend, store, applier));
  return store;
}

}  // namespace

TEST_CASE("a restore replays the deltas onto the full snapshot, and refuses a gap",
          "[druid-backups]") {
  etcd::mvcc::KvStore store;
  EventRecorder recorder;
  store.put("a", "1");
  store.put("b", "1");
  const StoredSnapshot full = full_of(store);  // revision 3
  store.set_observer(&recorder);
  store.put("a", "2");          // 4
  store.delete_range("b", "");  // 5
  store.put("c", "1");          // 6
  store.put("a", "3");          // 7
  const auto& ev = recorder.events;
  REQUIRE(ev.size() == 4);
  const RestoredBackend restored = restore_backend(full, {delta_of(ev, 0, 2), delta_of(ev, 2, 4)});
  REQUIRE(restored.ok);
  CHECK(restored.revision == 7);
  CHECK(records(decoded(restored)) == records(store));
  // A gap (revision 6 in no delta): the second delta ends at 6, not 7.
  const RestoredBackend gap = restore_backend(full, {delta_of(ev, 0, 2), delta_of(ev, 3, 4)});
  CHECK_FALSE(gap.ok);
  CHECK_THAT(gap.error, Catch::Matchers::Contains("mismatched event revision"));
  // A first delta wholly inside the full snapshot is skipped; one overlapping it is cut.
  const StoredSnapshot later_full = full_of(store);
  CHECK(restore_backend(later_full, {delta_of(ev, 0, 4)}).revision == 7);
  CHECK(restore_backend(full_of(store), {}).revision == 7);
}

// Random writes cut into a full snapshot and deltas: the restore equals the original store.
TEST_CASE("restore_backend reaches the store the writes made", "[druid-backups]") {
  rc::prop("replay", [](std::vector<std::pair<std::uint8_t, bool>> ops, std::uint8_t cut_at,
                        std::vector<std::uint8_t> cuts) {
    etcd::mvcc::KvStore store;
    EventRecorder recorder;
    const std::size_t cut = ops.empty() ? 0 : cut_at % (ops.size() + 1);
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (i == cut) store.set_observer(&recorder);
      const std::string key(1, static_cast<char>('a' + ops[i].first % 5));
      if (ops[i].second)
        store.put(key, std::to_string(i));
      else
        store.delete_range(key, "");
    }
    store.set_observer(nullptr);
    etcd::mvcc::KvStore base;  // the store at the cut, replayed from nothing
    for (std::size_t i = 0; i < cut; ++i) {
      const std::string key(1, static_cast<char>('a' + ops[i].first % 5));
      if (ops[i].second)
        base.put(key, std::to_string(i));
      else
        base.delete_range(key, "");
    }
    const auto& ev = recorder.events;
    std::vector<StoredSnapshot> deltas;
    std::size_t from = 0;
    for (const std::uint8_t c : cuts) {  // delta boundaries on revision boundaries
      if (from >= ev.size()) break;
      std::size_t to = std::min(from + 1 + c % 4, ev.size());
      while (to < ev.size() && ev[to].kv.mod_revision == ev[to - 1].kv.mod_revision) ++to;
      deltas.push_back(delta_of(ev, from, to));
      from = to;
    }
    if (from < ev.size()) deltas.push_back(delta_of(ev, from, ev.size()));
    const RestoredBackend restored = restore_backend(full_of(base), deltas);
    RC_ASSERT(restored.ok);
    RC_ASSERT(restored.revision == store.current_revision());
    RC_ASSERT(records(decoded(restored)) == records(store));
  });
}
