// The leading sidecar's snapshot schedule (models/druid/sidecar_snapshot.hpp): names, the
// full-snapshot window, whether a full snapshot is due when leading starts, and the deltas.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <chrono>
#include <string>

#include "civil_time.hpp"
#include "models/druid/sidecar_snapshot.hpp"

using namespace hasim;
using namespace hasim::druid::sidecar;
using hasim::testing::utc;

namespace {

CronSchedule hourly() {
  const auto schedule = parse_cron(kDefaultFullSnapshotSchedule);
  REQUIRE(schedule.has_value());
  return *schedule;
}

}  // namespace

TEST_CASE("snapshot names as GenerateSnapshotName writes them", "[druid-snapshot]") {
  const LocalTime t = utc(2026, 11, 27, 3, 0, 0) + milliseconds(999);
  CHECK(snapshot_name(SnapshotKind::Full, 0, 1234, t, false) ==
        "Full-00000000-00001234-1795748400");
  CHECK(snapshot_name(SnapshotKind::Incr, 1235, 1240, t, false) ==
        "Incr-00001235-00001240-1795748400");
  CHECK(snapshot_name(SnapshotKind::Full, 0, 7, t, true) ==
        "Full-00000000-00000007-1795748400.final");
  // Wider than 8 digits: printed whole, as %08d does.
  CHECK(snapshot_name(SnapshotKind::Incr, 123456789, 123456790, t, false) ==
        "Incr-123456789-123456790-1795748400");
}

TEST_CASE("the full-snapshot window follows the schedule's fields", "[druid-snapshot]") {
  CHECK(full_snapshot_max_time_window_hours("0 */1 * * *") == 1);
  CHECK(full_snapshot_max_time_window_hours("0 */6 * * *") == 6);
  CHECK(full_snapshot_max_time_window_hours("0 0 * * *") == 24);    // daily
  CHECK(full_snapshot_max_time_window_hours("0 0 * * 1") == 168);   // weekly
  CHECK(full_snapshot_max_time_window_hours("0 */6 1 * *") == 24);  // a day of the month named
  CHECK(full_snapshot_max_time_window_hours("0 */x * * *") == 24);  // ParseFloat fails
  CHECK(full_snapshot_max_time_window_hours("@hourly") == 24);      // fewer than five fields
}

TEST_CASE("a full snapshot at startup: none, final, too old, failed, or the next too late",
          "[druid-snapshot]") {
  const CronSchedule schedule = hourly();
  const LocalTime now = utc(2026, 11, 27, 10, 20);
  CHECK(full_snapshot_required_at_startup(std::nullopt, true, schedule, 1, now));
  CHECK(full_snapshot_required_at_startup(PrevFullSnapshot{now - minutes(5), true}, true, schedule,
                                          1, now));
  CHECK(full_snapshot_required_at_startup(PrevFullSnapshot{now - minutes(5), false}, false,
                                          schedule, 1, now));
  // 61 min old with a 1 h window: required.
  CHECK(full_snapshot_required_at_startup(PrevFullSnapshot{now - minutes(61), false}, true,
                                          schedule, 1, now));
  // Taken at 10:00:02 (2 s after the cron fired): "missed" by upstream's exact comparison, but
  // the next one at 11:00 is 1 h after it, not beyond the window: not required.
  CHECK_FALSE(full_snapshot_required_at_startup(
      PrevFullSnapshot{utc(2026, 11, 27, 10, 0, 2), false}, true, schedule, 1, now));
  // Taken at 9:50: the next at 11:00 would be 70 min after it: required.
  CHECK(full_snapshot_required_at_startup(PrevFullSnapshot{utc(2026, 11, 27, 9, 50), false}, true,
                                          schedule, 1, now));
  // Taken exactly at the scheduled 10:00: not missed.
  CHECK_FALSE(full_snapshot_required_at_startup(PrevFullSnapshot{utc(2026, 11, 27, 10, 0), false},
                                                true, schedule, 1, now));
}

TEST_CASE("deltas: only with events, from the previous snapshot's next revision",
          "[druid-snapshot]") {
  CHECK_FALSE(plan_delta(100, 0, 0).take);
  const DeltaPlan plan = plan_delta(100, 3, 107);
  CHECK(plan.take);
  CHECK(plan.start_revision == 101);
  CHECK(plan.last_revision == 107);
  CHECK(delta_snapshot_timer(minutes(5)) == minutes(5));
  CHECK(delta_snapshot_timer(milliseconds(500)) == kDefaultDeltaSnapshotInterval);
  CHECK(delta_snapshot_timer(seconds(1)) == seconds(1));
  CHECK(delta_memory_limit_reached(kDefaultDeltaSnapMemoryLimit, kDefaultDeltaSnapMemoryLimit));
  CHECK_FALSE(
      delta_memory_limit_reached(kDefaultDeltaSnapMemoryLimit - 1, kDefaultDeltaSnapMemoryLimit));
}

// The startup rule against a naive reading of the upstream functions, on random ages.
TEST_CASE("full_snapshot_required_at_startup agrees with a naive reading", "[druid-snapshot]") {
  const CronSchedule schedule = hourly();
  rc::prop("naive", [&](std::uint32_t age_s, std::uint32_t now_offset_s, bool failed) {
    const LocalTime now = utc(2026, 11, 27) + seconds(now_offset_s % 86'400);
    const PrevFullSnapshot prev{now - seconds(age_s % 10'000), false};
    // Naive: the hourly schedule's next activation is the next whole hour after now.
    const std::int64_t hour_ns = 3'600'000'000'000LL;
    const LocalTime next{(now.ns / hour_ns + 1) * hour_ns};
    const Duration age = now - prev.created_on;
    bool expected = failed || age > hours(1);
    if (!expected) {
      const bool missed = next - hours(1) != prev.created_on;
      expected = missed && (next - now) + age > hours(1);
    }
    RC_ASSERT(full_snapshot_required_at_startup(prev, !failed, schedule, 1, now) == expected);
  });
}
