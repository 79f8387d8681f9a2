// A 3-member etcd raft cluster (models/etcd over models/raft) with etcd's defaults (100 ms
// heartbeat, 1 s election timeout, PreVote, CheckQuorum, WAL with fsync on each member's
// disk) taking 10 proposals per second for one simulated hour, with raft-safety attached and
// the trace hashed (as `hasim run` does, without writing the file).
//
//   bench_raft_cluster [RUNS]   (default 3; the best and the median are printed)
//
// Target (issue 12, part 9): at least 20,000x faster than real time. Prints simulated s per
// wall s, events/s and the peak resident memory. Wall-clock time is measured here only.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "properties/run.hpp"
#include "scenarios/loader.hpp"

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 3;
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
  std::vector<double> seconds;
  std::uint64_t events = 0;
  double simulated = 0;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    auto result = hasim::run_scenario(scenario, {});
    const auto stop = std::chrono::steady_clock::now();
    if (!result || !result->all_held()) {
      std::fprintf(stderr, "raft-safety did not hold\n");
      return 1;
    }
    seconds.push_back(std::chrono::duration<double>(stop - start).count());
    events = result->stats.events;
    simulated = static_cast<double>(result->simulated.ns) / 1e9;
  }
  std::sort(seconds.begin(), seconds.end());
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double best = seconds.front();
  const double median = seconds[seconds.size() / 2];
  std::printf("3 etcd members, 10 proposals/s, %.0f s simulated, %llu events\n", simulated,
              static_cast<unsigned long long>(events));
  std::printf("  best   %.3f s wall: %.0f simulated s per wall s, %.2f M events/s\n", best,
              simulated / best, static_cast<double>(events) / best / 1e6);
  std::printf("  median %.3f s wall: %.0f simulated s per wall s, %.2f M events/s\n", median,
              simulated / median, static_cast<double>(events) / median / 1e6);
  std::printf("  peak RSS %.1f MB\n", static_cast<double>(usage.ru_maxrss) / 1024.0);
  std::printf("target >= 20000x real time (median): %s\n",
              simulated / median >= 20000 ? "met" : "NOT met");
  return 0;
}
