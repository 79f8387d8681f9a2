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
#include <any>
#include <cstdint>
#include <string>
#include <vector>

#include "properties/fault_space.hpp"
#include "scenarios/json_reader.hpp"

namespace hasim {

// What a choice that redraws part of a section instead of adding faults drew (upgrade-timing:
// the upgrade's timings); its choice's RedrawOps (properties/check_system.hpp) apply,
// describe, write and shrink it.
struct Redraw {
  FaultChoice choice;
  std::any value;
};

struct Schedule {
  std::vector<FaultSpec> faults;     // ordered by `at`
  std::vector<Redraw> redraws;       // at most one per redraw choice, in menu order
  std::vector<FaultChoice> enabled;  // this run's swarm draw
};

struct GenerateOptions {
  int max_faults = 6;              // per run, at least 1
  std::vector<FaultChoice> kinds;  // the menu; empty: every applicable kind
};

// The kinds a run draws from: those of `kinds` (every one if empty) that apply to the space.
std::vector<FaultChoice> fault_menu(const FaultSpace& space, const std::vector<FaultChoice>& kinds);

Schedule generate_schedule(const FaultSpace& space, const GenerateOptions& options,
                           std::uint64_t seed);

// The scenario with this schedule's faults (replacing its own) and its redraws applied.
Scenario apply_schedule(Scenario scenario, const Schedule& schedule);
// The same, into a scenario's JSON (a replay file's scenario).
void write_schedule(const Schedule& schedule, Json& scenario);
// Each redraw as one line ("upgrade timing: start at 1m0s, ..."), in order.
std::vector<std::string> describe_redraws(const Schedule& schedule);

}  // namespace hasim
