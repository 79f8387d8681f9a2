// The heartbeat demo's check half (properties/check_system.hpp): its properties and their
// one assumption `hasim check` can break, equal clock rates.
#include "properties/heartbeat/check.hpp"

#include "properties/detect_crash.hpp"
#include "properties/heartbeat/local_timers.hpp"
#include "properties/no_false_suspicion.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

// no-false-suspicion assumes equal clock rates: within the assumptions, no clock-rate fault.
bool forbids(const Scenario& scenario, const FaultSpace&, const FaultChoiceDef& choice) {
  return choice.name == "clock-rate" && names_property(scenario, "no-false-suspicion");
}

void broken(const Scenario& scenario, std::vector<std::string>& out) {
  const RateSpread r = rate_spread(scenario);
  if (r.any && r.low != r.high && names_property(scenario, "no-false-suspicion")) {
    out.push_back("clock rates are not equal (" + r.high_who + " at " + rate_text(r.high) + ", " +
                  r.low_who + " at " + rate_text(r.low) + "), as no-false-suspicion assumes");
  }
}

std::unique_ptr<Property> detect_crash(const std::string& spec, std::optional<Duration> bound) {
  HASIM_ASSERT(bound.has_value());
  return std::make_unique<DetectCrash>(spec, *bound);
}

std::unique_ptr<Property> no_false_suspicion(const std::string& spec, std::optional<Duration>) {
  return std::make_unique<NoFalseSuspicion>(spec);
}

std::unique_ptr<Property> local_timers(const std::string& spec, std::optional<Duration>) {
  return std::make_unique<LocalTimers>(spec);
}

}  // namespace

const CheckSystem& heartbeat_check_system() {
  static const CheckSystem system{
      "heartbeat",
      {
          {{"detect-crash", "BOUND",
            "every running peer suspects a crashed or downed process within BOUND (true time) "
            "of the crash, unless it restarts first",
            "the heartbeat model runs; nothing else (a partition only makes suspicion come "
            "sooner)"},
           detect_crash},
          {{"no-false-suspicion", "",
            "a detector suspects a peer only if, within its timeout before, the peer stopped or "
            "paused, a message from the peer to it was dropped, or the detector itself was paused",
            "one-way latency below timeout - interval, equal clock rates"},
           no_false_suspicion},
          {{"local-timers", "",
            "each detector's heartbeat rounds are exactly its interval apart on its own "
            "monotonic clock (later only across a pause), whatever its clock's rate does: the "
            "kernel fires a timer when the setter's clock reaches the deadline",
            "nothing: it judges the kernel's timers and clocks"},
           local_timers},
      },
      {},
      nullptr,
      forbids,
      broken,
  };
  return system;
}

}  // namespace hasim
