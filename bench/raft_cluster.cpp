// A 3-member etcd raft cluster (models/etcd over models/raft) with etcd's defaults (100 ms
// heartbeat, 1 s election timeout, PreVote, CheckQuorum, WAL with fsync on each member's
// disk) taking 10 proposals per second for one simulated hour, measured three ways:
//  - run:   as `hasim run` does it: raft-safety online and every event formatted and hashed;
//  - trial: as a study's trial does it (reports/upgrade_trial.cpp): raft-safety online, the
//           trace read only by its observers, nothing formatted or hashed;
//  - bare:  the cluster alone, no observer.
//
//   bench_raft_cluster [RUNS [run|trial|bare]]   (default 3 runs of each way; the best and
//                                                 the median of each are printed)
//
// Target (issue 12, part 9): at least 20,000x faster than real time. Prints simulated s per
// wall s, events/s and the peak resident memory. Wall-clock time is measured here only.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "bench/run_figures.hpp"
#include "properties/property.hpp"
#include "properties/run.hpp"
#include "scenarios/build.hpp"
#include "scenarios/loader.hpp"

namespace {

using hasim::bench::Figures;
using hasim::bench::print;


}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  const std::string path = std::string(HASIM_SOURCE_DIR) + "/scenarios/raft/raft-leader-crash.json";
  hasim::LoadResult load = hasim::load_scenario_file(path);
  if (!load.scenario) {
    std::fprintf(stderr, "%s", hasim::format_errors(load.errors, path).c_str());
    return 2;
  }
  hasim::Scenario scenario = *load.scenario;
  scenario.faults.clear();  // steady state: the cost of raft doing its everyday work
  scenario.duration = hasim::minutes(60);
  scenario.properties = {"raft-safety"};
  const hasim::TrueTime end{scenario.duration.ns};
  const std::string only = argc > 2 ? argv[2] : "";
  const auto wanted = [&only](const char* how) { return only.empty() || only == how; };
  Figures run, trial, bare;
  if (wanted("run")) run = hasim::bench::measure(runs, [&]() -> std::optional<hasim::RunStats> {
    auto result = hasim::run_scenario(scenario, {});
    if (!result || !result->all_held()) return std::nullopt;
    return result->stats;
  });
  if (wanted("trial")) trial = hasim::bench::measure(runs, [&]() -> std::optional<hasim::RunStats> {
    auto world = hasim::build_world(scenario, scenario.seed);
    world->trace().disable_hash();
    const auto safety = hasim::make_property("raft-safety");
    world->trace().add_observer(safety.get());
    const hasim::RunStats stats = world->run_until(end);
    safety->finish(stats.end);
    if (safety->violation()) return std::nullopt;
    return stats;
  });
  if (wanted("bare")) bare = hasim::bench::measure(runs, [&]() -> std::optional<hasim::RunStats> {
    auto world = hasim::build_world(scenario, scenario.seed);
    world->trace().disable_hash();
    return world->run_until(end);
  });
  const Figures& any = wanted("run") ? run : wanted("trial") ? trial : bare;
  std::printf("3 etcd members, 10 proposals/s, %.0f s simulated, %llu events\n", any.simulated,
              static_cast<unsigned long long>(any.events));
  if (wanted("run")) print("run", run);
  if (wanted("trial")) print("trial", trial);
  if (wanted("bare")) print("bare", bare);
  std::printf("  peak RSS %.1f MB\n", hasim::bench::peak_rss_mb());
  const auto verdict = [](const Figures& f) { return f.simulated / f.median >= 20000 ? "met" : "NOT met"; };
  if (only.empty()) {
    std::printf("target >= 20000x real time (median), as hasim run: %s; as a trial: %s\n",
                verdict(run), verdict(trial));
  }
  return 0;
}
