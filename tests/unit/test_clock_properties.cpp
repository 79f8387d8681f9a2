// local-timers (properties/heartbeat/local_timers.hpp) and clock-steps
// (properties/kernel/clock_steps.hpp): the kernel's clocks and timers judged from the trace.
#include <catch2/catch.hpp>

#include "models/demo/trace_kinds.hpp"
#include "properties/heartbeat/local_timers.hpp"
#include "properties/kernel/clock_steps.hpp"
#include "sim/trace_kinds.hpp"

using namespace hasim;
namespace dk = hasim::demo::trace_kind;

namespace {

TrueTime at_ms(std::int64_t ms) { return TrueTime{ms * 1'000'000}; }

struct Detector {
  LocalTimers property{"local-timers"};
  Detector() {
    property.on_event(StoredTraceEvent{at_ms(0), "n1", "heartbeat", dk::kDetectorConfig,
                                 {{"interval_ns", std::int64_t{1'000'000'000}},
                                  {"timeout_ns", std::int64_t{3'000'000'000}}}});
  }
  void sent(std::int64_t true_ms, std::int64_t seq, std::int64_t local_ns) {
    property.on_event(StoredTraceEvent{at_ms(true_ms), "n1", "heartbeat", dk::kHeartbeatSent,
                                 {{"seq", seq}, {"local_ns", local_ns}}});
  }
  void pause(std::int64_t true_ms) {
    property.on_event(StoredTraceEvent{at_ms(true_ms), "n1", "heartbeat", trace_kind::kPause, {}});
  }
  bool violated() const { return property.violation().has_value(); }
};

}  // namespace

TEST_CASE("local-timers: rounds exactly an interval apart on the local clock hold",
          "[heartbeat]") {
  Detector d;
  d.sent(0, 1, 0);
  d.sent(2000, 2, 1'000'000'000);      // a slow clock: 2s of true time, 1s of its own
  d.sent(2300, 3, 2'000'000'003);      // a fast one, a few ns past the deadline
  d.pause(2500);
  d.sent(9000, 4, 9'000'000'000);      // held through a pause: late is allowed
  d.sent(9500, 1, 100);                // restarted: a new incarnation
  d.sent(10500, 2, 1'000'000'100);
  CHECK_FALSE(d.violated());
}

TEST_CASE("local-timers: a timer that fires late or early on its own clock", "[heartbeat]") {
  for (const std::int64_t local : {1'500'000'000LL, 750'000'000LL}) {
    Detector d;
    d.sent(0, 1, 0);
    d.sent(1000, 2, local);
    REQUIRE(d.violated());
    CHECK_THAT(d.property.violation()->detail,
               Catch::Contains(local > 1'000'000'000 ? "fired it late" : "fired it early"));
  }
}

TEST_CASE("clock-steps: the wall clock moves by exactly the step", "[kernel]") {
  ClockSteps property("clock-steps");
  const auto step = [&](std::int64_t by, std::int64_t was, std::int64_t wall) {
    property.on_event(StoredTraceEvent{at_ms(1000), "n1", "", trace_kind::kClockStep,
                                 {{"by_ns", by}, {"wall_ns", wall}, {"was_ns", was}}});
  };
  step(-5'000, 10'000, 5'000);
  step(3'000, 10'000, 13'000);
  CHECK_FALSE(property.violation().has_value());
  step(-5'000, 10'000, 15'000);
  REQUIRE(property.violation().has_value());
  CHECK_THAT(property.violation()->detail, Catch::Contains("moved by 5µs"));
}
