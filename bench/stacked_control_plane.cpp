// Issue 13 part 9: three control-plane nodes with stacked etcd (a member on each node, each
// kube-apiserver reaching its own through kube-apiserver's etcd client), kube-controller-
// manager and kube-scheduler electing with client-go's defaults and 1 write/s of leader work,
// for one simulated hour (scenarios/stacked/quorum-lost-regained.json without its faults),
// measured two ways:
//  - run:   as `hasim run` does it: the scenario's properties online, every event hashed;
//  - trial: as a study's trial does it: the properties online, nothing formatted or hashed.
//
//   bench_stacked_control_plane [RUNS [run|trial]]   (default 3 runs of each way)
//
// Target: at least 10,000x faster than real time. Prints simulated s per wall s, events/s and
// the peak resident memory. Wall-clock time is measured here only, never in the simulator.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
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
  const std::string path =
      std::string(HASIM_SOURCE_DIR) + "/scenarios/stacked/quorum-lost-regained.json";
  hasim::LoadResult load = hasim::load_scenario_file(path);
  if (!load.scenario) {
    std::fprintf(stderr, "%s", hasim::format_errors(load.errors, path).c_str());
    return 2;
  }
  hasim::Scenario scenario = *load.scenario;
  scenario.faults.clear();  // steady state: the everyday cost of the stacked control plane
  scenario.duration = hasim::minutes(60);
  const hasim::TrueTime end{scenario.duration.ns};
  const std::string only = argc > 2 ? argv[2] : "";
  const auto wanted = [&only](const char* how) { return only.empty() || only == how; };
  Figures run, trial;
  if (wanted("run")) run = hasim::bench::measure(runs, [&]() -> std::optional<hasim::RunStats> {
    auto result = hasim::run_scenario(scenario, {});
    if (!result || !result->all_held()) return std::nullopt;
    return result->stats;
  });
  if (wanted("trial")) trial = hasim::bench::measure(runs, [&]() -> std::optional<hasim::RunStats> {
    auto world = hasim::build_world(scenario, scenario.seed);
    world->trace().disable_hash();
    std::vector<std::unique_ptr<hasim::Property>> properties;
    for (const std::string& name : scenario.properties) {
      properties.push_back(hasim::make_property(name));
      world->trace().add_observer(properties.back().get());
    }
    const hasim::RunStats stats = world->run_until(end);
    for (auto& property : properties) {
      property->finish(stats.end);
      if (property->violation()) return std::nullopt;
    }
    return stats;
  });
  const Figures& any = wanted("run") ? run : trial;
  std::printf("3 control-plane nodes, stacked 3-member etcd, KCM + scheduler electing with 1 "
              "write/s, %.0f s simulated, %llu events\n",
              any.simulated, static_cast<unsigned long long>(any.events));
  if (wanted("run")) print("run", run);
  if (wanted("trial")) print("trial", trial);
  std::printf("  peak RSS %.1f MB\n", hasim::bench::peak_rss_mb());
  const auto verdict = [](const Figures& f) {
    return f.simulated / f.median >= 10000 ? "met" : "NOT met";
  };
  if (only.empty()) {
    std::printf("target >= 10000x real time (median), as hasim run: %s; as a trial: %s\n",
                verdict(run), verdict(trial));
  }
  return 0;
}
