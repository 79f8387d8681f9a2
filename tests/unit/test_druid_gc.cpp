// The leading sidecar's garbage collection of old backups (models/druid/sidecar_gc.hpp), after
// etcd-backup-restore's garbagecollector.go.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "druid_trace_rig.hpp"
#include "models/druid/sidecar_gc.hpp"
#include "scenario_loader_helpers.hpp"

namespace {

using hasim::Duration;
using hasim::LocalTime;
using hasim::druid::sidecar::GcEntry;
using hasim::druid::sidecar::GcPolicy;
using hasim::druid::sidecar::SnapshotKind;
namespace gc = hasim::druid::sidecar;

constexpr std::int64_t kMinute = 60'000'000'000;
constexpr std::int64_t kHour = 60 * kMinute;
constexpr std::int64_t kDay = 24 * kHour;

LocalTime at(std::int64_t day, std::int64_t hour, std::int64_t minute = 0) {
  return LocalTime{day * kDay + hour * kHour + minute * kMinute};
}

// What Exponential deletes of a listing of full snapshots only, as the sidecar runs it.
std::set<std::size_t> exponential_deletes(const std::vector<GcEntry>& listing, LocalTime now) {
  gc::ExponentialGc policy(now);
  std::set<std::size_t> deleted;
  for (const gc::GcStream& s : gc::gc_streams(listing, GcPolicy::Exponential)) {
    if (policy.collects(listing[s.newer], listing[s.head])) deleted.insert(s.head);
  }
  return deleted;
}

}  // namespace

TEST_CASE("snap streams start at the listing's first entry and at every later full snapshot",
          "[druid-gc]") {
  const std::vector<GcEntry> listing{{SnapshotKind::Incr, at(1, 0)},
                                     {SnapshotKind::Full, at(1, 1)},
                                     {SnapshotKind::Incr, at(1, 2)},
                                     {SnapshotKind::Full, at(1, 3)}};
  CHECK(gc::full_snapshot_indexes(listing) == std::vector<std::size_t>{0, 1, 3});
  const auto limit = gc::gc_streams(listing, GcPolicy::LimitBased);
  REQUIRE(limit.size() == 2);  // the latest stream, [3, 4), is never visited
  CHECK((limit[0].begin == 0 && limit[0].end == 1 && limit[0].head == 0));
  CHECK((limit[1].begin == 1 && limit[1].end == 3 && limit[1].head == 1));
  const auto exponential = gc::gc_streams(listing, GcPolicy::Exponential);
  REQUIRE(exponential.size() == 2);  // newest first
  CHECK((exponential[0].begin == 1 && exponential[0].end == 3 && exponential[0].newer == 3));
  CHECK((exponential[1].begin == 0 && exponential[1].end == 1 && exponential[1].newer == 1));
  CHECK(gc::gc_streams({}, GcPolicy::LimitBased).empty());
}

TEST_CASE("LimitBased keeps the newest maxBackups full snapshots and the latest stream's deltas",
          "[druid-gc]") {
  // 10 streams of a full snapshot and two deltas, an hour apart.
  std::vector<GcEntry> listing;
  for (int h = 0; h < 10; ++h) {
    listing.push_back({SnapshotKind::Full, at(3, h)});
    listing.push_back({SnapshotKind::Incr, at(3, h, 20)});
    listing.push_back({SnapshotKind::Incr, at(3, h, 40)});
  }
  const LocalTime now = at(3, 10);
  const auto streams = gc::gc_streams(listing, GcPolicy::LimitBased);
  REQUIRE(streams.size() == 9);
  std::set<std::size_t> fulls, deltas;
  for (std::size_t k = 0; k < streams.size(); ++k) {
    const auto d = gc::deltas_to_collect(listing, streams[k], now, Duration{0});
    REQUIRE(d.size() == 2);
    CHECK(d[0] > d[1]);  // newest first
    deltas.insert(d.begin(), d.end());
    if (gc::limit_based_collects(k, streams.size() + 1, gc::kDefaultMaxBackups)) {
      fulls.insert(streams[k].head);
    }
  }
  CHECK(fulls == std::set<std::size_t>{0, 3, 6});  // 10 - 7 go, the oldest
  CHECK(deltas.size() == 18);
  CHECK(deltas.count(28) == 0);
  // A retention of 100 minutes keeps the deltas of the last stream visited.
  CHECK(gc::deltas_to_collect(listing, streams[8], now, Duration{100 * kMinute}).empty());
  CHECK(gc::deltas_to_collect(listing, streams[7], now, Duration{100 * kMinute}).size() == 2);
}

TEST_CASE("Exponential keeps the last full snapshot of each hour of the current day",
          "[druid-gc]") {
  const std::vector<GcEntry> listing{
      {SnapshotKind::Full, at(10, 10, 0)}, {SnapshotKind::Full, at(10, 10, 30)},
      {SnapshotKind::Full, at(10, 11, 0)}, {SnapshotKind::Full, at(10, 11, 30)},
      {SnapshotKind::Full, at(10, 12, 0)}, {SnapshotKind::Full, at(10, 12, 20)}};
  // 12:00 is of the current hour (kept); 11:30 and 10:30 end their hours.
  CHECK(exponential_deletes(listing, at(10, 12, 30)) == std::set<std::size_t>{0, 2});
}

TEST_CASE("Exponential keeps the last full snapshot of each earlier day, none beyond 5 weeks",
          "[druid-gc]") {
  const std::vector<GcEntry> days{{SnapshotKind::Full, at(8, 6)},
                                  {SnapshotKind::Full, at(8, 18)},
                                  {SnapshotKind::Full, at(9, 6)},
                                  {SnapshotKind::Full, at(9, 18)},
                                  {SnapshotKind::Full, at(10, 12)}};
  CHECK(exponential_deletes(days, at(10, 12, 30)) == std::set<std::size_t>{0, 2});
  const std::vector<GcEntry> old{{SnapshotKind::Full, at(1, 0)},
                                 {SnapshotKind::Full, at(2, 0)},
                                 {SnapshotKind::Full, at(60, 0)}};
  CHECK(exponential_deletes(old, at(60, 1)) == std::set<std::size_t>{0, 1});
}

TEST_CASE("Exponential never deletes the newest stream nor more than it lists", "[druid-gc]") {
  rc::prop("random listings", [] {
    const auto n = *rc::gen::inRange<std::size_t>(1, 40);
    std::vector<GcEntry> listing;
    std::int64_t t = *rc::gen::inRange<std::int64_t>(0, 30) * kDay;
    for (std::size_t i = 0; i < n; ++i) {
      t += *rc::gen::inRange<std::int64_t>(1, 3 * kDay / kMinute) * kMinute;
      const bool full = i == 0 || *rc::gen::arbitrary<bool>();
      listing.push_back({full ? SnapshotKind::Full : SnapshotKind::Incr, LocalTime{t}});
    }
    const LocalTime now{t + *rc::gen::inRange<std::int64_t>(0, 40) * kDay};
    const auto deleted = exponential_deletes(listing, now);
    const auto idx = gc::full_snapshot_indexes(listing);
    RC_ASSERT(deleted.count(idx.back()) == 0);
    RC_ASSERT(deleted.size() + 1 <= idx.size());
    for (std::size_t i : deleted) RC_ASSERT(listing[i].kind == SnapshotKind::Full);
  });
}

TEST_CASE("garbage-collection policies parse by upstream's names", "[druid-gc]") {
  CHECK(gc::parse_gc_policy("LimitBased") == GcPolicy::LimitBased);
  CHECK(gc::parse_gc_policy("Exponential") == GcPolicy::Exponential);
  CHECK_FALSE(gc::parse_gc_policy("limitbased").has_value());
  CHECK(gc::name(GcPolicy::Exponential) == "Exponential");
}

TEST_CASE("the leading sidecar collects old backups every minute and keeps the newest two",
          "[druid-gc][scenario-rerun]") {
  // scenarios/druid/druid-backup-gc: full snapshots at 0m25s, 10m, 20m, 30m and 40m, a delta
  // every minute; the leader moves at 22m.
  const auto passes = hasim::druid_test::of_kind(
      hasim::druid_test::run_trace("scenarios/druid/druid-backup-gc.json"), "druid-br-gc");
  REQUIRE(passes.size() > 30);
  std::int64_t fulls = 0, deltas = 0, most = 0;
  std::set<std::string> pods;
  for (const auto& pass : passes) {
    CHECK(pass.at("failed") == 0);
    fulls += pass.at("deleted_full").get<std::int64_t>();
    deltas += pass.at("deleted_delta").get<std::int64_t>();
    most = std::max(most, pass.at("listed").get<std::int64_t>());
    pods.insert(pass.at("pod").get<std::string>());
  }
  CHECK(fulls == 3);          // five taken, two kept
  CHECK(deltas >= 4 * 9);     // the deltas of every stream but the latest
  CHECK(most <= 2 + 1 + 11);  // two full snapshots, a new one, and a stream of deltas
  CHECK(pods == std::set<std::string>{"etcd-main-0", "etcd-main-1"});
}

TEST_CASE("garbage-collection settings get errors naming the field", "[druid-gc]") {
  const auto scenario = nlohmann::json::parse(
      std::ifstream(hasim::loader_test::source_path("scenarios/druid/druid-backup-gc.json")));
  auto with = [&scenario](const char* key, nlohmann::json value) {
    auto copy = scenario;
    copy["etcdDruid"]["backup"][key] = std::move(value);
    return hasim::loader_test::all_messages(hasim::loader_test::load(copy));
  };
  CHECK_THAT(with("garbageCollectionPolicy", "limitbased"),
             Catch::Contains("garbageCollectionPolicy") && Catch::Contains("\"Exponential\""));
  auto exponential = scenario;
  exponential["etcdDruid"]["backup"]["garbageCollectionPolicy"] = "Exponential";
  CHECK_THAT(hasim::loader_test::all_messages(hasim::loader_test::load(exponential)),
             Catch::Contains("LimitBased policy only"));
  CHECK_THAT(with("maxBackupsLimitBasedGC", -1), Catch::Contains("maxBackupsLimitBasedGC"));
  CHECK_THAT(with("garbageCollectionPeriod", "-1m"), Catch::Contains("garbageCollectionPeriod"));
  CHECK_THAT(with("deltaSnapshotRetentionPeriod", "soon"),
             Catch::Contains("deltaSnapshotRetentionPeriod"));
  CHECK(with("garbageCollectionPeriod", "0s").empty());  // no collector: allowed
}
