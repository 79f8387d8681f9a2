// etcd's periodic auto-compactor (models/etcd/periodic_compactor.hpp, periodic.go): the
// intervals it derives from the retention, the first compaction a whole period after Run at
// the revision recorded then, the next ones every min(period, 1h) at the revision one period
// back, nothing while paused (a follower), and a failed compaction retried a retry interval
// later. The druid pods' etcd runs it with druid's 30m retention (the scenario check at the end).
#include <catch2/catch.hpp>
#include <vector>

#include "druid_trace_rig.hpp"
#include "scenarios/build.hpp"
#include "models/etcd/periodic_compactor.hpp"

using hasim::Duration;
using hasim::LocalTime;
using hasim::etcd::PeriodicCompactor;

namespace {

struct Compaction {
  std::int64_t at_minute;
  std::int64_t revision;
  bool operator==(const Compaction&) const = default;
};

// Wakes every retry interval for `minutes`; the revision is 1 + 100 per minute; `paused` decides
// per minute; every compaction succeeds unless `fail` says otherwise.
std::vector<Compaction> run(
    Duration period, std::int64_t minutes,
    bool (*paused)(std::int64_t) = [](std::int64_t) { return false; },
    bool (*fail)(std::int64_t) = [](std::int64_t) { return false; }) {
  PeriodicCompactor c(period, LocalTime{}, 1);
  std::vector<Compaction> out;
  const std::int64_t step = c.retry_interval().ns;
  for (std::int64_t t = step; t <= hasim::minutes(minutes).ns; t += step) {
    const std::int64_t minute = t / hasim::minutes(1).ns;
    const auto target = c.wake(LocalTime{t}, 1 + 100 * minute, paused(minute));
    if (!target) continue;
    const bool ok = !fail(minute);
    if (ok) out.push_back({minute, *target});
    c.compacted(LocalTime{t}, *target, ok, 1 + 100 * minute);
    REQUIRE(c.revisions().size() <= c.retentions());
  }
  return out;
}

}  // namespace

TEST_CASE("periodic compactor: intervals from the retention", "[etcd-compactor]") {
  const PeriodicCompactor half(hasim::minutes(30), LocalTime{}, 0);
  CHECK(half.retry_interval() == hasim::minutes(3));
  CHECK(half.compact_interval() == hasim::minutes(30));
  CHECK(half.retentions() == 11);
  const PeriodicCompactor day(hasim::hours(24), LocalTime{}, 0);
  CHECK(day.retry_interval() == hasim::minutes(6));  // periodic.go caps both at an hour
  CHECK(day.compact_interval() == hasim::hours(1));
  CHECK(day.retentions() == 241);
}

TEST_CASE("periodic compactor: a period after Run, then every period, one period back",
          "[etcd-compactor]") {
  // revs[0] is the revision recorded one period (11 wakes of 3 minutes) before: after the
  // first compaction the window restarts, so the second takes minute 27's.
  CHECK(run(hasim::minutes(30), 100) == std::vector<Compaction>{{30, 1}, {60, 2701}, {90, 5701}});
  // A day's retention compacts hourly once a day has passed, each time at the revision the
  // window kept from a day before.
  CHECK(run(hasim::hours(24), 26 * 60) ==
        std::vector<Compaction>{{24 * 60, 1}, {25 * 60, 5401}, {26 * 60, 11401}});
}

TEST_CASE("periodic compactor: paused on a follower, retried after a failure", "[etcd-compactor]") {
  // A follower until minute 40: the first compaction waits for leadership; the revision one
  // period back is then the one recorded at minute 9 (revs slide while paused).
  const auto follower = [](std::int64_t minute) { return minute < 40; };
  const std::vector<Compaction> led = run(hasim::minutes(30), 45, follower);
  REQUIRE(led.size() == 1);
  CHECK(led[0].at_minute == 42);
  CHECK(led[0].revision == 901);
  // The compaction at minute 30 fails: tried again at the next wake, 3 minutes on.
  const auto fails_at_30 = [](std::int64_t minute) { return minute == 30; };
  const std::vector<Compaction> retried = run(
      hasim::minutes(30), 40, [](std::int64_t) { return false; }, fails_at_30);
  REQUIRE(retried.size() == 1);
  CHECK(retried[0] == Compaction{33, 1});
}

TEST_CASE("druid's etcd compacts after 30 minutes, on the leader only", "[etcd-compactor][slow]") {
  struct Compactions final : hasim::TraceObserver {
    std::vector<std::string> pods;
    std::vector<std::int64_t> at;
    bool wants(std::string_view kind) const override {
      return kind == "druid-etcd-auto-compaction";
    }
    void on_event(const hasim::TraceEvent& e) override {
      pods.emplace_back(e.string_field("pod"));
      at.push_back(e.t.ns / hasim::minutes(1).ns);
      CHECK(e.string_field("outcome") == "completed");
    }
  } seen;
  hasim::LoadResult load =
      hasim::load_scenario_file(hasim::loader_test::source_path("scenarios/druid/druid-day.json"));
  REQUIRE(load.scenario.has_value());
  auto world = hasim::build_world(*load.scenario, 1);
  world->trace().disable_hash();
  world->trace().add_observer(&seen);
  world->run_until(hasim::TrueTime{hasim::minutes(35).ns});
  // One compaction, by the leader's etcd, 30 minutes after it started (plus the 3-minute
  // wake that first finds the period over).
  REQUIRE(seen.pods.size() == 1);
  CHECK(seen.at[0] == 30);
}
