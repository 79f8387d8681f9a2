// Leader election on a three-node control plane: kube-apiserver, kube-controller-manager and
// kube-scheduler on each node, electing with client-go's defaults (15s/10s/2s) over the
// ideal store, for one simulated hour with the properties attached and the trace hashed
// (as `hasim run` does, without writing the file). Two variants:
//   election only      the leaders do no other work (workInterval 0): the election itself;
//   with leader work   each leader also writes once a second (the default), which the
//                      single-leader property uses to judge an overlap harmful.
//
//   bench_election_control_plane [RUNS]   (default 5; the best and the median are printed)
//
// Target (issue 3): at least 100,000x faster than real time for the election. Wall-clock
// time is measured here only, never in the simulator.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "scenarios/control_plane/spec.hpp"
#include "scenarios/loader.hpp"
#include "properties/run.hpp"

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  const std::string path = std::string(HASIM_SOURCE_DIR) + "/scenarios/election/steady-state.json";
  hasim::LoadResult load = hasim::load_scenario_file(path);
  if (!load.scenario) {
    std::fprintf(stderr, "%s", hasim::format_errors(load.errors, path).c_str());
    return 2;
  }
  const auto measure = [&](const char* variant, const hasim::Scenario& scenario) {
    std::vector<double> seconds;
    std::uint64_t events = 0;
    double simulated = 0;
    for (int i = 0; i < runs; ++i) {
      const auto start = std::chrono::steady_clock::now();
      auto result = hasim::run_scenario(scenario, {});
      const auto stop = std::chrono::steady_clock::now();
      if (!result || !result->all_held()) {
        std::fprintf(stderr, "the steady-state scenario did not hold\n");
        std::exit(1);
      }
      seconds.push_back(std::chrono::duration<double>(stop - start).count());
      events = result->stats.events;
      simulated = static_cast<double>(result->simulated.ns) / 1e9;
    }
    std::sort(seconds.begin(), seconds.end());
    const double best = seconds.front();
    const double median = seconds[seconds.size() / 2];
    std::printf("%s: %.0f s simulated, %llu events\n", variant, simulated,
                static_cast<unsigned long long>(events));
    std::printf("  best   %.4f s wall: %.0f simulated s per wall s, %.2f M events/s\n", best,
                simulated / best, static_cast<double>(events) / best / 1e6);
    std::printf("  median %.4f s wall: %.0f simulated s per wall s, %.2f M events/s\n", median,
                simulated / median, static_cast<double>(events) / median / 1e6);
    return simulated / median;
  };
  std::printf("3 control-plane nodes, KCM + scheduler electing (15s/10s/2s), ideal store\n");
  hasim::Scenario election_only = *load.scenario;
  election_only.section<hasim::ControlPlaneSpec>()->controllerManager.workInterval =
      hasim::Duration{};
  election_only.section<hasim::ControlPlaneSpec>()->scheduler.workInterval = hasim::Duration{};
  const double speed = measure("election only", election_only);
  measure("with leader work (1 write/s)", *load.scenario);
  std::printf("target >= 100000x real time (election only, median): %s\n",
              speed >= 100000 ? "met" : "NOT met");
  return 0;
}
