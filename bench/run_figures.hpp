#pragma once
// What the whole-system benchmarks (bench_raft_cluster, bench_cloudcore_edges) measure of one
// way of running a scenario: RUNS runs timed on the wall clock (here only, never in the
// simulator), the best and the median, the run's events and simulated seconds, and the
// process's peak RSS after them. Header-only: each bench is one translation unit.
#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <vector>

#include "properties/run.hpp"

namespace hasim::bench {

struct Figures {
  double best = 0;
  double median = 0;
  std::uint64_t events = 0;
  double simulated = 0;
  double peak_rss_mb = 0;  // the process's peak so far, read after this way's runs
};

inline double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// Runs `once` RUNS times; it returns the run's stats, or nullopt when a property failed
// (then `failure` is printed and the bench exits 1).
inline Figures measure(int runs, const std::function<std::optional<RunStats>()>& once,
                       const char* failure = "a property did not hold") {
  std::vector<double> seconds;
  Figures f;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const std::optional<RunStats> stats = once();
    const auto stop = std::chrono::steady_clock::now();
    if (!stats) {
      std::fprintf(stderr, "%s\n", failure);
      std::exit(1);
    }
    seconds.push_back(std::chrono::duration<double>(stop - start).count());
    malloc_trim(0);  // give the freed heap back (glibc) before the next run
    f.events = stats->events;
    f.simulated = static_cast<double>(stats->end.ns) / 1e9;
  }
  f.peak_rss_mb = peak_rss_mb();
  std::sort(seconds.begin(), seconds.end());
  f.best = seconds.front();
  f.median = seconds[seconds.size() / 2];
  return f;
}

// One way's line: the median's wall time, simulated s per wall s and events/s, and the best.
inline void print(const char* how, const Figures& f) {
  std::printf(
      "  %-6s median %.3f s wall: %6.0f simulated s per wall s, %.2f M events/s"
      " (best %.0fx)\n",
      how, f.median, f.simulated / f.median, static_cast<double>(f.events) / f.median / 1e6,
      f.simulated / f.best);
}

// print, with the process's peak RSS after this way's runs.
inline void print_with_rss(const char* how, const Figures& f) {
  std::printf(
      "  %-6s median %.3f s wall: %6.0f simulated s per wall s, %.2f M events/s"
      " (best %.0fx), peak RSS so far %.1f MB\n",
      how, f.median, f.simulated / f.median, static_cast<double>(f.events) / f.median / 1e6,
      f.simulated / f.best, f.peak_rss_mb);
}

}  // namespace hasim::bench
