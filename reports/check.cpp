#include "reports/check.hpp"

#include <algorithm>
#include <chrono>

#include "properties/check_system.hpp"
#include "properties/guided.hpp"
#include "sim/assert.hpp"
#include "sim/text.hpp"

namespace hasim {
namespace {

struct RunVerdict {
  std::string property;  // first violated spec; empty if every property held
  bool completed = true;
  std::uint64_t events = 0;
  RunCoverage coverage;  // --guided only
};

RunVerdict verdict_of(const RunResult& result) {
  RunVerdict verdict;
  verdict.completed = result.stats.status == RunStatus::completed;
  verdict.events = result.trace_events;
  for (std::size_t i = 0; i < result.violations.size(); ++i) {
    if (result.violations[i]) {
      verdict.property = result.property_specs[i];
      break;
    }
  }
  return verdict;
}

// Hands every event of the run to `coverage`, from before the first fault.
WorldHook observe(CoverageObserver& coverage) {
  return [&coverage](World& world) { world.trace().add_observer(&coverage); };
}

RunVerdict run_once(const Scenario& scenario, const Schedule& schedule, std::uint64_t seed,
                    std::uint64_t max_events, CoverageObserver* coverage = nullptr) {
  RunOptions options;
  options.seed = seed;
  options.max_events = max_events;
  if (coverage != nullptr) options.hook = observe(*coverage);
  const auto result = run_scenario(apply_schedule(scenario, schedule), options);
  HASIM_ASSERT(result.has_value());  // no trace file, so it cannot fail
  return verdict_of(*result);
}

// The scenario's own run (its faults, its seed), made once: unless --max-events gives the
// event budget, it sets its scale (a drawn schedule may make a run a few times longer --
// retries, elections, re-lists -- but one twenty times longer is a model caught in a storm,
// e.g. a raft leader re-sending snapshots to a follower whose unsafe power loss left it ahead
// of the leader, which would stall the check for hours); with --guided it is the corpus's
// first kept run.
void own_run(const Scenario& scenario, const CheckOptions& options, CheckResult& result,
             std::optional<Corpus>& corpus) {
  if (options.max_events) result.event_budget = *options.max_events;
  if (options.max_events && !options.guided) return;
  CoverageObserver coverage;
  RunOptions run;
  run.max_events = options.max_events;
  if (options.guided) run.hook = observe(coverage);
  const auto own = run_scenario(scenario, run);
  HASIM_ASSERT(own.has_value());  // no trace file, so it cannot fail
  if (!options.max_events) {
    // Cannot overflow: the kernel stops a run at 4e9 events.
    result.event_budget = std::max(kMinEventBudget, own->stats.events * kDefaultEventBudgetFactor);
  }
  if (options.guided) {
    corpus.emplace().offer(Schedule{scenario.faults, {}, {}}, scenario.seed, coverage.finish());
  }
}

// Runs per batch: enough to keep every thread busy, few enough that schedules stay small.
constexpr std::uint64_t kCheckBatch = 4096;
// Guided runs per batch: the corpus grows between batches, so small batches follow new
// coverage sooner; fixed, so the runs drawn do not depend on --jobs.
constexpr std::uint64_t kGuidedBatch = 32;

// The schedules and simulation seeds of runs [begin, end).
struct Batch {
  std::vector<Schedule> schedules;
  std::vector<std::uint64_t> seeds;
};

// Three runs in four mutate a kept run (with its seed), once anything is kept; half of those
// take the frontier's turns (each new kept run's first mutants).
Batch draw_batch(const Scenario& scenario, const CheckOptions& options, const FaultSpace& space,
                 Corpus* corpus, std::uint64_t begin, std::uint64_t end, CheckResult& result) {
  Batch b;
  for (std::uint64_t i = begin; i < end; ++i) {
    if (i == 0 && !scenario.faults.empty()) {
      b.schedules.push_back(Schedule{scenario.faults, {}, {}});
      b.seeds.push_back(scenario.seed);
      continue;
    }
    const std::uint64_t seed = check_run_seed(options.seed, i);
    if (corpus != nullptr && !corpus->entries().empty() && trial_seed(seed, 3) % 4 != 0) {
      const auto parent = trial_seed(seed, 4) % 2 == 0 ? corpus->take_fresh_turn() : std::nullopt;
      if (auto m = mutate_schedule(*corpus, parent, scenario, space, options.generate,
                                   trial_seed(seed, 2))) {
        ++result.mutated_runs;
        b.schedules.push_back(std::move(m->schedule));
        b.seeds.push_back(m->seed);
        continue;
      }
    }
    b.schedules.push_back(generate_schedule(space, options.generate, trial_seed(seed, 1)));
    b.seeds.push_back(seed);
  }
  return b;
}

void count_kinds(const Schedule& s, CheckResult& result) {
  for (const FaultChoice& c : s.enabled) ++result.runs_by_kind[fault_choice_index(c)];
  for (const FaultSpec& f : s.faults) {
    if (const auto c = choice_of(f)) ++result.faults_by_kind[fault_choice_index(*c)];
  }
  // A redrawn section counts as one fault of its choice (upgrade-timing).
  for (const Redraw& r : s.redraws) ++result.faults_by_kind[fault_choice_index(r.choice)];
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::uint64_t check_run_seed(std::uint64_t base_seed, std::uint64_t run) {
  return trial_seed(base_seed, run);
}

std::optional<CheckResult> run_check(const Scenario& scenario, const CheckOptions& options,
                                     std::string* error) {
  const auto fail = [error](std::string message) -> std::optional<CheckResult> {
    if (error != nullptr) *error = std::move(message);
    return std::nullopt;
  };
  if (scenario.properties.empty()) {
    return fail(
        "the scenario names no properties, so nothing can be violated; add e.g. "
        "\"properties\": [\"single-leader\"] (`hasim list` shows them)");
  }
  CheckResult result;
  result.space = fault_space(scenario, options.within_assumptions);
  result.menu = fault_menu(result.space, options.generate.kinds);
  result.faults_by_kind.assign(fault_choices().size(), 0);
  result.runs_by_kind.assign(fault_choices().size(), 0);
  if (result.menu.empty()) {
    std::vector<std::string> applicable;
    for (const FaultChoice& c : result.space.applicable) applicable.push_back(c);
    return fail("none of the chosen fault kinds applies to this scenario; it can take " +
                (applicable.empty() ? std::string("none") : join_words(applicable)));
  }

  std::optional<Corpus> corpus;
  own_run(scenario, options, result, corpus);

  // Runs go in batches: schedules are drawn on this thread (RapidCheck's generator state is
  // global), run on `jobs` threads, and reduced in run order; memory stays bounded for any
  // number of runs.
  std::optional<std::uint64_t> first;
  std::optional<Schedule> first_schedule;
  std::optional<std::uint64_t> first_seed;
  std::string first_property;
  const auto start = std::chrono::steady_clock::now();
  const std::uint64_t batch = options.guided ? kGuidedBatch
                              : options.stop_at_first
                                  ? std::max<std::uint64_t>(8, 4ULL * options.jobs)
                                  : kCheckBatch;
  std::uint64_t runs_made = 0;
  for (std::uint64_t begin = 0; begin < options.runs && !(first && options.stop_at_first);
       begin += batch) {
    const std::uint64_t end = std::min(options.runs, begin + batch);
    runs_made = end;
    Batch drawn = draw_batch(scenario, options, result.space, corpus ? &*corpus : nullptr, begin,
                             end, result);
    for (const Schedule& s : drawn.schedules) count_kinds(s, result);
    std::vector<RunVerdict> verdicts = run_trials<RunVerdict>(
        begin, end, std::max(1u, options.jobs),
        [&](std::uint64_t i) {
          const std::size_t k = i - begin;
          if (!corpus)
            return run_once(scenario, drawn.schedules[k], drawn.seeds[k], result.event_budget);
          CoverageObserver coverage;
          RunVerdict v = run_once(scenario, drawn.schedules[k], drawn.seeds[k], result.event_budget,
                                  &coverage);
          v.coverage = coverage.finish();
          return v;
        },
        [&](std::uint64_t done, std::uint64_t) {
          if (options.progress) options.progress(begin + done, options.runs);
        });
    for (std::uint64_t k = 0; k < verdicts.size(); ++k) {
      result.events += verdicts[k].events;
      // Run 0 with the scenario's own faults is its own run, which own_run offered already:
      // offered twice, its features would count as commoner than they are.
      const bool own_again = begin + k == 0 && !scenario.faults.empty();
      if (corpus && !own_again) {
        corpus->offer(drawn.schedules[k], drawn.seeds[k], std::move(verdicts[k].coverage));
      }
      if (!verdicts[k].completed) ++result.incomplete_runs;
      if (verdicts[k].property.empty()) continue;
      ++result.violating_runs;
      ++result.violations_by_property[verdicts[k].property];
      if (!first) {
        first = begin + k;
        first_schedule = drawn.schedules[k];
        first_seed = drawn.seeds[k];
        first_property = verdicts[k].property;
      }
    }
  }
  if (corpus) {
    result.kept_runs = corpus->entries().size();
    result.features = corpus->features();
  }
  result.run_seconds = seconds_since(start);
  result.runs = runs_made;
  if (!first) return result;

  const auto shrink_start = std::chrono::steady_clock::now();
  CheckFailure failure;
  failure.run = *first;
  failure.seed = *first_seed;
  failure.property = first_property;
  failure.original = *first_schedule;
  failure.shrunk = shrink_schedule(
      failure.original,
      [&](const Schedule& candidate) {
        return run_once(scenario, candidate, failure.seed, result.event_budget).property ==
               failure.property;
      },
      options.max_shrink_steps);
  failure.minimal = apply_schedule(scenario, failure.shrunk.minimal);
  failure.minimal.seed = failure.seed;
  RunOptions rerun;
  rerun.seed = failure.seed;
  rerun.capture_lines = 5'000'000;
  rerun.max_events = result.event_budget;
  failure.rerun = *run_scenario(failure.minimal, rerun);
  HASIM_ASSERT(verdict_of(failure.rerun).property == failure.property);  // shrinking kept it
  failure.broken_assumptions = broken_assumptions(failure.minimal);
  result.shrink_seconds = seconds_since(shrink_start);
  result.failure = std::move(failure);
  return result;
}

}  // namespace hasim
