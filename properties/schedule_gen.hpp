#pragma once
// RapidCheck generators of fault schedules, swarm style (Groce et al., "Swarm Testing",
// ISSTA 2012): each run first draws which fault kinds are enabled, how many faults, how
// intense (outages up to a tenth, a third or all of the envelope) and whether they come
// spread over the run or in one burst, then draws the faults. Runs therefore differ in kind
// as well as in detail, which finds bugs that need many faults of one kind, or the absence
// of another kind, far more often than one fixed mix does.
//
// The generators are ordinary rc::Gen values; `hasim check` samples them with a seed of its
// own (rc::Random(seed)), so a run's schedule is a pure function of (scenario, options, seed)
// and needs no RapidCheck test runner. RapidCheck's generator state is not thread-safe:
// draw schedules on one thread.
#include <cstdint>
#include <optional>
#include <vector>

#include "models/cluster/upgrade_spec.hpp"
#include "properties/fault_space.hpp"

namespace hasim {

struct Schedule {
  std::vector<FaultSpec> faults;       // ordered by `at`
  std::optional<UpgradeSpec> upgrade;  // drawn timings, if upgrade-timing was enabled
  std::vector<FaultChoice> enabled;    // this run's swarm draw
};

struct GenerateOptions {
  int max_faults = 6;              // per run, at least 1
  std::vector<FaultChoice> kinds;  // the menu; empty: every applicable kind
};

// The kinds a run draws from: those of `kinds` (every one if empty) that apply to the space.
std::vector<FaultChoice> fault_menu(const FaultSpace& space, const std::vector<FaultChoice>& kinds);

Schedule generate_schedule(const FaultSpace& space, const GenerateOptions& options,
                           std::uint64_t seed);

// The scenario with this schedule's faults (replacing its own) and upgrade timings.
Scenario apply_schedule(Scenario scenario, const Schedule& schedule);

}  // namespace hasim
