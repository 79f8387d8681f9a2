// The headline study's cost: 10,000 trials of the 3-node lease-based upgrade (the KEP's
// "about a 25%" cell) with the default settings, run as `hasim report upgrade-skew` runs them
// (run_trials on default_jobs() threads, one scenario built once), without writing files.
//
//   bench_upgrade_skew [TRIALS]   (default 10000)
//
// Prints trials/s, wall seconds, peak RSS and, as a sanity check, the violation rate.
// Target: 10,000 trials in at most 60 s on a 2-core machine. Wall-clock time is measured here
// only (a benchmark), never in the simulator or a report.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "reports/stats.hpp"
#include "reports/trials.hpp"
#include "reports/upgrade_trial.hpp"

int main(int argc, char** argv) {
  const std::uint64_t trials = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10000;
  if (trials == 0) {
    std::fprintf(stderr, "usage: bench_upgrade_skew [TRIALS >= 1]\n");
    return 2;
  }
  const unsigned jobs = hasim::default_jobs();
  const hasim::UpgradeSettings settings;
  const hasim::UpgradeCell cell{hasim::ElectionMode::lease, hasim::UpgradeDirection::upgrade, 3};
  const auto start = std::chrono::steady_clock::now();
  const hasim::Scenario scenario = hasim::upgrade_scenario(settings, cell);
  // Cell 0 of the default grid, so these are the report's own trials and seeds.
  const auto results =
      hasim::run_trials<hasim::UpgradeTrial>(0, trials, jobs, [&](std::uint64_t index) {
        return hasim::run_upgrade_trial(scenario, hasim::trial_seed(1, index));
      });
  const auto stop = std::chrono::steady_clock::now();
  const double wall = std::chrono::duration<double>(stop - start).count();

  std::uint64_t violating = 0;
  for (const hasim::UpgradeTrial& t : results) violating += t.violated ? 1 : 0;
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);  // ru_maxrss is in KiB on Linux
  const double peak_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;

  std::printf("%s, %llu trials on %u threads\n", hasim::describe(cell).c_str(),
              static_cast<unsigned long long>(trials), jobs);
  std::printf("  wall      %.2f s\n", wall);
  std::printf("  trials/s  %.1f\n", static_cast<double>(trials) / wall);
  std::printf("  peak RSS  %.1f MiB\n", peak_mib);
  std::printf(
      "  violated  %llu (%s %s)\n", static_cast<unsigned long long>(violating),
      hasim::format_probability(static_cast<double>(violating) / static_cast<double>(trials))
          .c_str(),
      hasim::format_interval(hasim::wilson_interval(violating, trials)).c_str());
  const double projected = wall * 10000.0 / static_cast<double>(trials);
  std::printf("target <= 60 s for 10,000 trials: %s (%.1f s projected)\n",
              projected <= 60.0 ? "met" : "NOT met", projected);
  return 0;
}
