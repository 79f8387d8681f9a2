#pragma once
// Shrinking a failing fault schedule to a minimal one, in the order a reader cares about:
//   1. fewest faults  (drop the generated upgrade timing, then chunks of faults, halves first,
//                      then single faults: delta debugging, Zeller & Hildebrandt 2002);
//   2. shortest       (each fault's duration and magnitude -- "for", latency, clock step,
//                      clock-rate distance from 1 -- binary-searched down on the ms grid);
//   3. earliest       (each fault's "at", then the upgrade's start, binary-searched down).
// A candidate is kept only if it still fails (the caller's predicate: same scenario, same
// seed, same property violated). Every candidate run counts as a step; the search stops at
// `max_steps`, keeping the best schedule found so far. Binary search assumes failure is
// monotone in the value; where it is not, the result is still failing, only maybe not the
// least value.
#include <functional>

#include "properties/schedule_gen.hpp"

namespace hasim {

using StillFails = std::function<bool(const Schedule&)>;

struct ShrinkResult {
  Schedule minimal;
  int steps = 0;           // candidate schedules run
  int accepted = 0;        // of which still failed and were kept
  bool exhausted = false;  // stopped at max_steps
};

ShrinkResult shrink_schedule(Schedule failing, const StillFails& still_fails, int max_steps);

}  // namespace hasim
