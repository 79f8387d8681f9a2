#pragma once
// `hasim check`: property-based exploration of a scenario. Run 0 is the scenario's own fault
// schedule (when it has one); runs 1..N-1 draw a swarm schedule each (properties/
// schedule_gen.hpp) and run the scenario with it under every property it names. The first
// violating run (lowest index, so the answer does not depend on --jobs) is shrunk to a
// minimal schedule (properties/shrink.hpp) and re-run with its trace captured, for the
// replay file, the explanation and the timeline (reports/check_output.hpp). With --guided,
// most runs mutate the schedule of a run kept for its new coverage instead (properties/
// guided.hpp); runs still go in fixed batches reduced in order, so the answer does not depend
// on --jobs either.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "properties/shrink.hpp"
#include "reports/trials.hpp"
#include "properties/run.hpp"

namespace hasim {

struct CheckOptions {
  std::uint64_t runs = 100;
  std::uint64_t seed = 1;
  unsigned jobs = 1;
  GenerateOptions generate;
  bool within_assumptions = true;  // draw faults only within the properties' assumptions
  int max_shrink_steps = 1000;
  // Stop after the first violating run (runs go in small batches in order, so the run found
  // is still the lowest-indexed violation); the counts then cover the runs made.
  bool stop_at_first = false;
  // Events per run, at most; a run that reaches it stops and counts as incomplete (its
  // violations so far still count). Unset: kDefaultEventBudgetFactor times the events of the
  // scenario's own run, and at least kMinEventBudget.
  std::optional<std::uint64_t> max_events;
  // Coverage-guided (properties/guided.hpp): most runs mutate a kept run's schedule, aiming
  // faults at moments of its trace, instead of drawing a fresh one.
  bool guided = false;
  TrialProgress progress;  // runs done of runs
};

inline constexpr std::uint64_t kDefaultEventBudgetFactor = 20;
inline constexpr std::uint64_t kMinEventBudget = 1'000'000;

struct CheckFailure {
  std::uint64_t run = 0;   // index of the first violating run
  std::uint64_t seed = 0;  // its simulation seed (kept while shrinking)
  std::string property;    // the property spec it violated first (in scenario order)
  Schedule original;
  ShrinkResult shrunk;
  Scenario minimal;                             // the scenario with the minimal schedule
  RunResult rerun;                              // the minimal schedule re-run, trace captured
  std::vector<std::string> broken_assumptions;  // of the minimal scenario
};

struct CheckResult {
  FaultSpace space;
  std::vector<FaultChoice> menu;  // the kinds drawn from: applicable and chosen (--kinds)
  std::uint64_t runs = 0;
  std::uint64_t violating_runs = 0;
  std::uint64_t incomplete_runs = 0;  // stopped by the event budget or the livelock guard
  std::uint64_t event_budget = 0;     // events per run, at most (CheckOptions::max_events)
  std::map<std::string, std::uint64_t> violations_by_property;
  // --guided: runs whose schedule mutated a kept run's, runs kept for new coverage (the
  // scenario's own run first), and the features covered.
  std::uint64_t mutated_runs = 0;
  std::uint64_t kept_runs = 0;
  std::uint64_t features = 0;
  // Per fault choice, indexed as fault_choices() (properties/check_system.hpp).
  std::vector<std::uint64_t> faults_by_kind;  // faults drawn
  std::vector<std::uint64_t> runs_by_kind;    // runs with the kind enabled
  std::uint64_t events = 0;                   // over every run
  double run_seconds = 0;                     // wall time of the runs (display only)
  double shrink_seconds = 0;  // wall time of shrinking and the re-run (display only)
  std::optional<CheckFailure> failure;
};

// nullopt (with a sentence in `error` naming the fix) when the scenario cannot be checked:
// it names no property, or no fault kind of `options.generate.kinds` applies to it.
std::optional<CheckResult> run_check(const Scenario& scenario, const CheckOptions& options,
                                     std::string* error = nullptr);

// The seeds of run i: its simulation seed (run 0: the scenario's) and its schedule's seed.
std::uint64_t check_run_seed(std::uint64_t base_seed, std::uint64_t run);

}  // namespace hasim
