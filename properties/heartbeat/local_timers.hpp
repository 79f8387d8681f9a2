#pragma once
// local-timers (the kernel's clocks, as the heartbeat detector sees them): a timer set for d
// fires when the setter's own monotonic clock has advanced by d, whatever happens to the
// clock's rate meanwhile (sim/clock.hpp: the kernel moves pending timers to their new true
// firing times at a clock-rate change). The detector sets its send timer for `interval`
// ("detector-config") at each round of heartbeats, so consecutive "heartbeat-sent" events of
// one incarnation are exactly `interval` apart on the clock reading each carries
// ("local_ns"), up to the clock's resolution in true time (a tick of true time moves a fast
// clock by more than 1ns), or later if the detector was paused in between (a timer that
// fires while paused is held until it resumes). Never earlier. A "seq" of 1 starts a new
// incarnation, whose first round is not a timer's.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "properties/property.hpp"

namespace hasim {

class LocalTimers final : public Property {
 public:
  explicit LocalTimers(std::string spec) : Property(std::move(spec)) {}
  bool wants(std::string_view kind) const override;
  void on_event(const TraceEvent& event) override;

  // Late by at most this on the local clock: a clock at rate r moves by up to r ns per ns of
  // true time, and the kernel fires at the first true ns at which the deadline is reached.
  static constexpr Duration kResolution = microseconds(1);

 private:
  struct Detector {
    Duration interval{};
    std::optional<std::int64_t> last_local_ns;  // this incarnation's last round
    std::string last;                           // that round, described
    bool paused_since = false;                  // paused since that round
  };
  void on_sent(const TraceEvent& event, Detector& detector);

  std::map<std::string, Detector, std::less<>> detectors_;  // by "node/proc"
};

}  // namespace hasim
