// Backups of a druid-managed Etcd: the object store's listing (models/druid/snapstore.hpp),
// the probe loop's back-off, and the leading sidecar's snapshotter in a run
// (scenarios/druid/druid-backup-store-outage.json).
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <string>
#include <vector>

#include "druid_trace_rig.hpp"
#include "models/druid/snapstore.hpp"

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
          "[druid-backups]") {
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
