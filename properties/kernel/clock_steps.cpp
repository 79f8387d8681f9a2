#include "properties/kernel/clock_steps.hpp"

#include "sim/trace_kinds.hpp"

namespace hasim {

bool ClockSteps::wants(std::string_view kind) const { return kind == trace_kind::kClockStep; }

void ClockSteps::on_event(const TraceEvent& event) {
  if (event.kind != trace_kind::kClockStep) return;
  const std::int64_t by = event.int_field("by_ns");
  const std::int64_t moved = event.int_field("wall_ns") - event.int_field("was_ns");
  if (moved == by) return;
  violate(event.t,
          std::string(event.node) + "'s clock was stepped by " + format_duration(Duration{by}) +
              " but its wall clock moved by " + format_duration(Duration{moved}),
          {describe_event(event)});
}

}  // namespace hasim
