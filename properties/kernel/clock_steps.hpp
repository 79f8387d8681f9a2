#pragma once
// clock-steps (the kernel's clocks, sim/clock.hpp): a clock step, as an NTP step or an
// operator's `date -s` makes one, moves its node's wall clock by exactly the step: the
// "clock-step" event's reading after ("wall_ns") is the reading before ("was_ns") plus the
// step the fault asked for ("by_ns"). A step the other way turns a clock that should jump
// ahead (expiring every lease its node judges by wall time) into one that falls behind.
#include <string>

#include "properties/property.hpp"

namespace hasim {

class ClockSteps final : public Property {
 public:
  explicit ClockSteps(std::string spec) : Property(std::move(spec)) {}
  bool wants(std::string_view kind) const override;
  void on_event(const TraceEvent& event) override;
};

}  // namespace hasim
