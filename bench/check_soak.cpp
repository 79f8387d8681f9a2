// Soak: `hasim check` on the built-in scenario (scenarios/check/control-plane-3.json) for
// 100,000 runs, each with its own swarm schedule of up to 6 faults within the properties'
// assumptions, as `hasim check --runs 100000` runs them (default_jobs() threads), without
// writing files. A harness failure (a crash, a HASIM_ASSERT, a run stopped by the kernel's
// event or livelock guard) fails the benchmark; so does any violation, since this
// configuration breaks no documented assumption.
//
//   bench_check_soak [RUNS]   (default 100000)
//
// Prints runs/s, events/s, wall seconds, peak RSS, fault kinds covered and the verdict.
// Wall-clock time is measured here only (a benchmark), never in the simulator.
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>

#include "hasim_builtin.hpp"
#include "reports/check_output.hpp"
#include "scenarios/loader.hpp"

int main(int argc, char** argv) {
  const std::uint64_t runs = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100000;
  if (runs == 0) {
    std::fprintf(stderr, "usage: bench_check_soak [RUNS >= 1]\n");
    return 2;
  }
  const hasim::LoadResult load =
      hasim::load_scenario_text(hasim::kBuiltinCheckScenario, hasim::kBuiltinCheckScenarioName);
  if (!load.scenario) return 2;
  hasim::CheckOptions options;
  options.runs = runs;
  options.jobs = hasim::default_jobs();
  const auto result = hasim::run_check(*load.scenario, options);
  if (!result) return 2;

  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);  // ru_maxrss is in KiB on Linux
  std::printf("%s", hasim::check_summary_text(*result, options).c_str());
  std::printf("  wall      %.1f s (runs %.1f s, shrink %.1f s)\n",
              result->run_seconds + result->shrink_seconds, result->run_seconds,
              result->shrink_seconds);
  std::printf("  runs/s    %.1f\n", static_cast<double>(runs) / result->run_seconds);
  std::printf("  peak RSS  %.1f MiB\n", static_cast<double>(usage.ru_maxrss) / 1024.0);
  const bool clean = result->violating_runs == 0 && result->incomplete_runs == 0;
  std::printf("soak of %llu runs: %s\n", static_cast<unsigned long long>(runs),
              clean ? "no harness failure, no violation" : "FAILED");
  return clean ? 0 : 1;
}
