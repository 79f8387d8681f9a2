#include "properties/heartbeat/local_timers.hpp"

#include "models/demo/trace_kinds.hpp"
#include "sim/assert.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {

bool LocalTimers::wants(std::string_view kind) const {
  return kind == demo::trace_kind::kDetectorConfig || kind == demo::trace_kind::kHeartbeatSent ||
         kind == trace_kind::kPause;
}

void LocalTimers::on_event(const TraceEvent& event) {
  if (event.proc.empty() || !wants(event.kind)) return;
  const std::string process = std::string(event.node) + "/" + std::string(event.proc);
  if (event.kind == trace_kind::kPause) {
    const auto it = detectors_.find(process);
    if (it != detectors_.end()) it->second.paused_since = true;
    return;
  }
  Detector& detector = detectors_[process];
  if (event.kind == demo::trace_kind::kDetectorConfig) {
    detector.interval = Duration{event.int_field("interval_ns")};
    return;
  }
  on_sent(event, detector);
}

void LocalTimers::on_sent(const TraceEvent& event, Detector& detector) {
  const std::int64_t local_ns = event.int_field("local_ns");
  const bool timer_round = event.int_field("seq") > 1 && detector.last_local_ns.has_value();
  if (timer_round) {
    HASIM_ASSERT(detector.interval.ns > 0);  // detector-config comes first in each start
    const Duration gap{local_ns - *detector.last_local_ns};
    const bool early = gap < detector.interval;
    const bool late = gap > detector.interval + kResolution && !detector.paused_since;
    if (early || late) {
      violate(event.t,
              std::string(event.node) + "/" + std::string(event.proc) +
                  "'s heartbeat timer, set for " + format_duration(detector.interval) +
                  " on its own clock, fired after " + format_duration(gap) +
                  " of that clock: the kernel fired it " + (early ? "early" : "late"),
              {detector.last, describe_event(event)});
    }
  }
  detector.last_local_ns = local_ns;
  detector.last = describe_event(event);
  detector.paused_since = false;
}

}  // namespace hasim
