// LocalClock: wall and monotonic readings, rate (drift) in ppb, steps, and the conversion of
// a local monotonic deadline to the true instant a timer fires.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "sim/clock.hpp"
#include "sim/int128.hpp"

using namespace hasim;
using namespace hasim::literals;

namespace {

// Rates from 0.5x to 2x of true time, in ppb.
rc::Gen<std::int64_t> gen_rate() {
  return rc::gen::inRange<std::int64_t>(kRatePerfect / 2, 2 * kRatePerfect + 1);
}

// One step of a clock's history: time passes, then maybe a rate change or a clock step.
struct Change {
  std::int64_t advance_ns;
  int kind;  // 0: nothing, 1: set_rate, 2: step
  std::int64_t rate_ppb;
  std::int64_t step_ns;
};

rc::Gen<Change> gen_change() {
  return rc::gen::construct<Change>(
      rc::gen::oneOf(rc::gen::inRange<std::int64_t>(0, 10),
                     rc::gen::inRange<std::int64_t>(0, 100'000'000'000)),  // up to 100 s
      rc::gen::inRange(0, 3), gen_rate(),
      rc::gen::inRange<std::int64_t>(-3'600'000'000'000, 3'600'000'000'001));  // +-1h
}

// Applies a generated history to `clock`, returning the true time it ends at.
TrueTime apply_history(LocalClock& clock, const std::vector<Change>& history) {
  TrueTime now = clock.segment_start();
  for (const Change& c : history) {
    now = now + nanoseconds(c.advance_ns);
    if (c.kind == 1) clock.set_rate(now, c.rate_ppb);
    if (c.kind == 2) clock.step(now, nanoseconds(c.step_ns));
  }
  return now;
}

}  // namespace

TEST_CASE("a perfect clock reads true time plus its offset", "[clock]") {
  const LocalClock clock(5_s);
  CHECK(clock.wall(TrueTime{0}) == LocalTime{5'000'000'000});
  CHECK(clock.wall(TrueTime{1'000}) == LocalTime{5'000'001'000});
  CHECK(clock.monotonic(TrueTime{0}) == LocalTime{0});  // the offset is a wall-clock thing
  CHECK(clock.monotonic(TrueTime{1'000}) == LocalTime{1'000});
  CHECK(clock.true_time_of_monotonic(LocalTime{7'000}) == TrueTime{7'000});
}

TEST_CASE("a 2x clock reaches local 10s at true 5s; a 0.5x clock at true 20s", "[clock]") {
  const LocalClock fast({}, 2 * kRatePerfect);
  CHECK(fast.monotonic(TrueTime{5'000'000'000}) == LocalTime{10'000'000'000});
  CHECK(fast.true_time_of_monotonic(LocalTime{10'000'000'000}) == TrueTime{5'000'000'000});
  const LocalClock slow({}, kRatePerfect / 2);
  CHECK(slow.monotonic(TrueTime{20'000'000'000}) == LocalTime{10'000'000'000});
  CHECK(slow.true_time_of_monotonic(LocalTime{10'000'000'000}) == TrueTime{20'000'000'000});
  // The 0.5x clock reads the same for two consecutive true nanoseconds; the timer fires at
  // the first of them.
  CHECK(slow.monotonic(TrueTime{3}) == LocalTime{1});
  CHECK(slow.true_time_of_monotonic(LocalTime{2}) == TrueTime{4});
}

TEST_CASE("a 10% slow node's 15s lease timer fires at true 16.666666667s", "[clock]") {
  const LocalClock clock({}, 900'000'000);
  const TrueTime fire = clock.true_time_of_monotonic(LocalTime{} + 15_s);
  CHECK(fire == TrueTime{16'666'666'667});
  CHECK(clock.monotonic(fire) >= LocalTime{} + 15_s);
  CHECK(clock.monotonic(fire - 1_ns) < LocalTime{} + 15_s);
}

TEST_CASE("a deadline already reached converts to the segment start", "[clock]") {
  LocalClock clock({}, 3 * kRatePerfect / 2);
  clock.set_rate(TrueTime{10'000}, kRatePerfect);
  CHECK(clock.segment_start() == TrueTime{10'000});
  CHECK(clock.true_time_of_monotonic(LocalTime{0}) == TrueTime{10'000});
  CHECK(clock.true_time_of_monotonic(clock.monotonic(TrueTime{10'000})) == TrueTime{10'000});
}

TEST_CASE("a deadline beyond the representable range converts to TrueTime::max", "[clock]") {
  const LocalClock slow({}, kRatePerfect / 2);
  CHECK(slow.true_time_of_monotonic(LocalTime{std::numeric_limits<std::int64_t>::max() / 2 + 1}) ==
        TrueTime::max());
}

TEST_CASE("rate_from_ppm: +50 ppm runs 50us fast per second", "[clock]") {
  STATIC_REQUIRE(rate_from_ppm(0) == kRatePerfect);
  STATIC_REQUIRE(rate_from_ppm(50) == 1'000'050'000);
  STATIC_REQUIRE(rate_from_ppm(-100) == 999'900'000);
  const LocalClock fast({}, rate_from_ppm(50));
  CHECK(fast.monotonic(TrueTime{} + 1_s) == LocalTime{} + 1_s + 50_us);
  const LocalClock slow({}, rate_from_ppm(-100));
  CHECK(slow.monotonic(TrueTime{} + 10_s) == LocalTime{} + 10_s - 1_ms);
  CHECK(slow.rate_ppb() == 999'900'000);
}

TEST_CASE("set_rate keeps the readings continuous and changes only the slope", "[clock]") {
  LocalClock clock(1_h);
  clock.set_rate(TrueTime{} + 10_s, 2 * kRatePerfect);
  CHECK(clock.monotonic(TrueTime{} + 10_s) == LocalTime{} + 10_s);
  CHECK(clock.wall(TrueTime{} + 10_s) == LocalTime{} + 1_h + 10_s);
  CHECK(clock.monotonic(TrueTime{} + 11_s) == LocalTime{} + 12_s);
  CHECK(clock.wall(TrueTime{} + 11_s) == LocalTime{} + 1_h + 12_s);
  CHECK(clock.rate_ppb() == 2 * kRatePerfect);
}

TEST_CASE("a step moves the wall clock but not the monotonic clock", "[clock]") {
  LocalClock clock;
  clock.step(TrueTime{} + 10_s, -30_s);  // NTP steps the clock back
  CHECK(clock.wall(TrueTime{} + 10_s) == LocalTime{} - 20_s);
  CHECK(clock.monotonic(TrueTime{} + 10_s) == LocalTime{} + 10_s);
  CHECK(clock.wall(TrueTime{} + 15_s) == LocalTime{} - 15_s);
  CHECK(clock.monotonic(TrueTime{} + 15_s) == LocalTime{} + 15_s);
  // A timer set before the step still fires after its monotonic duration.
  CHECK(clock.true_time_of_monotonic(LocalTime{} + 25_s) == TrueTime{} + 25_s);
}

TEST_CASE("clock readings are monotone and steps move only the wall clock", "[clock]") {
  rc::prop("monotonic never decreases; wall - monotonic changes only by steps", [] {
    const auto offset = *rc::gen::inRange<std::int64_t>(-3'600'000'000'000, 3'600'000'000'000);
    LocalClock clock(nanoseconds(offset), *gen_rate());
    const auto history = *rc::gen::container<std::vector<Change>>(gen_change());
    TrueTime now{};
    LocalTime last_monotonic = clock.monotonic(now);
    LocalTime last_wall = clock.wall(now);
    std::int64_t steps = 0;
    for (const Change& c : history) {
      // Readings across time passing within one segment: monotone, and the slope is the rate.
      const TrueTime later = now + nanoseconds(c.advance_ns);
      const LocalTime mono = clock.monotonic(later);
      const LocalTime wall = clock.wall(later);
      RC_ASSERT(mono >= last_monotonic);
      RC_ASSERT(wall >= last_wall);
      const std::int64_t ideal = static_cast<std::int64_t>(static_cast<Int128>(c.advance_ns) *
                                                           clock.rate_ppb() / kRatePerfect);
      RC_ASSERT((mono - last_monotonic).ns >= ideal);
      RC_ASSERT((mono - last_monotonic).ns <= ideal + 1);
      RC_ASSERT(wall - mono == nanoseconds(offset + steps));
      now = later;
      if (c.kind == 1) {
        clock.set_rate(now, c.rate_ppb);
        RC_ASSERT(clock.monotonic(now) == mono);
        RC_ASSERT(clock.wall(now) == wall);
        RC_ASSERT(clock.rate_ppb() == c.rate_ppb);
      } else if (c.kind == 2) {
        clock.step(now, nanoseconds(c.step_ns));
        steps += c.step_ns;
        RC_ASSERT(clock.monotonic(now) == mono);
        RC_ASSERT(clock.wall(now) == wall + nanoseconds(c.step_ns));
      }
      RC_ASSERT(clock.segment_start() <= now);
      last_monotonic = clock.monotonic(now);
      last_wall = clock.wall(now);
    }
  });
}

TEST_CASE("true_time_of_monotonic finds the first instant a deadline is reached", "[clock]") {
  rc::prop("monotonic(t) >= L and (t is the segment start or monotonic(t - 1ns) < L)", [] {
    LocalClock clock(nanoseconds(*rc::gen::inRange<std::int64_t>(-1'000'000'000, 1'000'000'000)),
                     *gen_rate());
    apply_history(clock, *rc::gen::container<std::vector<Change>>(gen_change()));
    const TrueTime start = clock.segment_start();
    const auto ahead = *rc::gen::oneOf(rc::gen::inRange<std::int64_t>(0, 100),
                                       rc::gen::inRange<std::int64_t>(0, 1'000'000'000'000'000));
    const LocalTime deadline = clock.monotonic(start) + nanoseconds(ahead);
    const TrueTime t = clock.true_time_of_monotonic(deadline);
    RC_ASSERT(t >= start);
    RC_ASSERT(clock.monotonic(t) >= deadline);
    // (RC_ASSERT captures its expression and would not short-circuit a bare ||.)
    const bool first_instant = t == start || clock.monotonic(t - 1_ns) < deadline;
    RC_ASSERT(first_instant);
  });
  rc::prop("a deadline at or before the segment's start reading fires at the segment start", [] {
    LocalClock clock({}, *gen_rate());
    apply_history(clock, *rc::gen::container<std::vector<Change>>(gen_change()));
    const auto behind = *rc::gen::inRange<std::int64_t>(0, 1'000'000'000'000);
    const TrueTime start = clock.segment_start();
    RC_ASSERT(clock.true_time_of_monotonic(clock.monotonic(start) - nanoseconds(behind)) == start);
  });
  rc::prop("a later deadline never fires earlier", [] {
    const LocalClock clock({}, *gen_rate());
    const auto a = *rc::gen::inRange<std::int64_t>(0, 1'000'000'000'000);
    const auto b = *rc::gen::inRange<std::int64_t>(0, 1'000'000'000'000);
    const LocalTime la{std::min(a, b)};
    const LocalTime lb{std::max(a, b)};
    RC_ASSERT(clock.true_time_of_monotonic(la) <= clock.true_time_of_monotonic(lb));
  });
}
