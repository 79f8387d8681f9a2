// The headline study's cost: TRIALS trials of the 3-node lease-based upgrade (the KEP's
// "about a 25%" cell) with the default settings, run as `hasim report upgrade-skew` runs them
// (run_trials, one scenario built once), without writing files.
//
//   bench_upgrade_skew [TRIALS] [--threads N,N,...]   (default 10000 trials; threads: all)
//
// For each thread count: wall seconds, trials/s, CPU per trial and the scaling efficiency
// against the first count (trials/s over the first's, divided by the thread ratio). Then
// peak RSS (run 1,000 and 100,000 trials: it stays flat) and, as a sanity check, the
// violation rate, which must not depend on the thread count. Wall-clock and CPU time are
// measured here only (a benchmark), never in the simulator or a report.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "reports/stats.hpp"
#include "reports/trials.hpp"
#include "reports/upgrade_trial.hpp"

namespace {

// "1,2,4" -> {1, 2, 4}; empty on a malformed list.
std::vector<unsigned> parse_threads(const char* text) {
  std::vector<unsigned> counts;
  std::string item;
  for (const char* p = text;; ++p) {
    if (*p == ',' || *p == '\0') {
      const unsigned long n = item.empty() ? 0 : std::strtoul(item.c_str(), nullptr, 10);
      if (n == 0 || n > 1024) return {};
      counts.push_back(static_cast<unsigned>(n));
      item.clear();
      if (*p == '\0') break;
    } else {
      item += *p;
    }
  }
  return counts;
}

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

struct Timing {
  double wall = 0.0;
  double cpu = 0.0;
  std::uint64_t violating = 0;
};

Timing run(const hasim::Scenario& scenario, std::uint64_t trials, unsigned jobs) {
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = process_cpu_seconds();
  // Cell 0 of the default grid, so these are the report's own trials and seeds.
  const auto results =
      hasim::run_trials<hasim::UpgradeTrial>(0, trials, jobs, [&](std::uint64_t index) {
        return hasim::run_upgrade_trial(scenario, hasim::trial_seed(1, index));
      });
  Timing timing;
  timing.cpu = process_cpu_seconds() - cpu_start;
  timing.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const hasim::UpgradeTrial& t : results) timing.violating += t.violated ? 1 : 0;
  return timing;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t trials = 10000;
  std::vector<unsigned> threads{hasim::default_jobs()};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      threads = parse_threads(argv[++i]);
    } else {
      trials = std::strtoull(argv[i], nullptr, 10);
    }
  }
  if (trials == 0 || threads.empty()) {
    std::fprintf(stderr, "usage: bench_upgrade_skew [TRIALS >= 1] [--threads N,N,...]\n");
    return 2;
  }
  const hasim::UpgradeSettings settings;
  const hasim::UpgradeCell cell{hasim::ElectionMode::lease, hasim::UpgradeDirection::upgrade, 3};
  const hasim::Scenario scenario = hasim::upgrade_scenario(settings, cell);
  std::printf("%s, %llu trials, %u hardware threads\n", hasim::describe(cell).c_str(),
              static_cast<unsigned long long>(trials), hasim::default_jobs());
  std::printf("  threads   wall s   trials/s   CPU ms/trial   efficiency\n");
  double first_rate = 0.0;
  std::uint64_t violating = 0;
  for (std::size_t k = 0; k < threads.size(); ++k) {
    const Timing t = run(scenario, trials, threads[k]);
    const double rate = static_cast<double>(trials) / t.wall;
    if (k == 0) first_rate = rate;
    const double efficiency = rate / first_rate / (static_cast<double>(threads[k]) / threads[0]);
    std::printf("  %7u %8.2f %10.1f %14.3f %11.0f%%\n", threads[k], t.wall, rate,
                t.cpu * 1e3 / static_cast<double>(trials), efficiency * 100.0);
    if (k > 0 && t.violating != violating) {
      std::fprintf(stderr, "results differ between thread counts: a determinism bug\n");
      return 1;
    }
    violating = t.violating;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);  // ru_maxrss is in KiB on Linux
  std::printf("  peak RSS  %.1f MiB\n", static_cast<double>(usage.ru_maxrss) / 1024.0);
  std::printf(
      "  violated  %llu (%s %s)\n", static_cast<unsigned long long>(violating),
      hasim::format_probability(static_cast<double>(violating) / static_cast<double>(trials))
          .c_str(),
      hasim::format_interval(hasim::wilson_interval(violating, trials)).c_str());
  return 0;
}
