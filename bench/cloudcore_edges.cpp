// KubeEdge CloudCore hot standby (v1.5, a Service over the readiness gate) delivering to
// 1,000 edge nodes with 10 pods each (each pod with one ConfigMap and one Secret: 30,000
// objects, 30,000 ObjectSyncs once delivered), one random object updated every second, for
// one simulated hour with one leader crash at 5m (scenarios/cloudcore/cloudcore-1000-edges.json
// stretched to 1h), measured three ways:
//  - run:   as `hasim run` does it: edge-converges and single-serving online and every event
//           formatted and hashed;
//  - trial: as a study's trial does it: the same properties online, the trace read only by its
//           observers, nothing formatted or hashed;
//  - bare:  the system alone, no observer.
//
//   bench_cloudcore_edges [RUNS [run|trial|bare]]   (default 1 run of each way; the best and
//                                                    the median of each are printed)
//
// Target (issue 14): at least 1,000x faster than real time and at most 200 MB peak resident
// memory. Prints simulated s per wall s, events/s and the peak resident memory. Wall-clock
// time is measured here only.
#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <vector>

#include "properties/property.hpp"
#include "properties/run.hpp"
#include "scenarios/build.hpp"
#include "scenarios/loader.hpp"

namespace {

const std::vector<std::string> kProperties{"edge-converges:120s", "single-serving"};

struct Figures {
  double best = 0;
  double median = 0;
  std::uint64_t events = 0;
  double simulated = 0;
  double peak_rss_mb = 0;  // the process's peak so far, read after this way's runs
};

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// Runs `once` RUNS times; it returns the run's stats, or nullopt when a property failed.
Figures measure(int runs, const std::function<std::optional<hasim::RunStats>()>& once) {
  std::vector<double> seconds;
  Figures f;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const std::optional<hasim::RunStats> stats = once();
    const auto stop = std::chrono::steady_clock::now();
    if (!stats) {
      std::fprintf(stderr, "a property did not hold\n");
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

void print(const char* how, const Figures& f) {
  std::printf("  %-6s median %.3f s wall: %6.0f simulated s per wall s, %.2f M events/s"
              " (best %.0fx), peak RSS so far %.1f MB\n",
              how, f.median, f.simulated / f.median, static_cast<double>(f.events) / f.median / 1e6,
              f.simulated / f.best, f.peak_rss_mb);
}

std::optional<hasim::RunStats> trial(const hasim::Scenario& scenario) {
  auto world = hasim::build_world(scenario, scenario.seed);
  world->trace().disable_hash();
  std::vector<std::unique_ptr<hasim::Property>> properties;
  for (const std::string& spec : kProperties) {
    properties.push_back(hasim::make_property(spec));
    world->trace().add_observer(properties.back().get());
  }
  const hasim::RunStats stats = world->run_until(hasim::TrueTime{scenario.duration.ns});
  for (const auto& property : properties) {
    property->finish(stats.end);
    if (property->violation()) return std::nullopt;
  }
  return stats;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 1;
  const std::string path =
      std::string(HASIM_SOURCE_DIR) + "/scenarios/cloudcore/cloudcore-1000-edges.json";
  hasim::LoadResult load = hasim::load_scenario_file(path);
  if (!load.scenario) {
    std::fprintf(stderr, "%s", hasim::format_errors(load.errors, path).c_str());
    return 2;
  }
  hasim::Scenario scenario = *load.scenario;
  scenario.duration = hasim::minutes(60);
  scenario.properties = kProperties;
  const std::string only = argc > 2 ? argv[2] : "";
  const auto wanted = [&only](const char* how) { return only.empty() || only == how; };
  Figures run, trial_figures, bare;
  if (wanted("run")) run = measure(runs, [&]() -> std::optional<hasim::RunStats> {
    auto result = hasim::run_scenario(scenario, {});
    if (!result || !result->all_held()) return std::nullopt;
    return result->stats;
  });
  if (wanted("trial")) trial_figures = measure(runs, [&] { return trial(scenario); });
  if (wanted("bare")) bare = measure(runs, [&]() -> std::optional<hasim::RunStats> {
    auto world = hasim::build_world(scenario, scenario.seed);
    world->trace().disable_hash();
    return world->run_until(hasim::TrueTime{scenario.duration.ns});
  });
  const double rss_mb = peak_rss_mb();
  const Figures& any = wanted("run") ? run : wanted("trial") ? trial_figures : bare;
  std::printf("1,000 edge nodes x 10 pods (30,000 objects), hot standby v1.5, one leader crash, "
              "%.0f s simulated, %llu events\n",
              any.simulated, static_cast<unsigned long long>(any.events));
  if (wanted("run")) print("run", run);
  if (wanted("trial")) print("trial", trial_figures);
  if (wanted("bare")) print("bare", bare);
  std::printf("  peak RSS of the whole process %.1f MB (target <= 200 MB: %s)\n", rss_mb,
              rss_mb <= 200.0 ? "met" : "NOT met");
  const auto verdict = [](const Figures& f) {
    return f.simulated / f.median >= 1000 ? "met" : "NOT met";
  };
  if (only.empty()) {
    std::printf("target >= 1000x real time (median), as hasim run: %s; as a trial: %s\n",
                verdict(run), verdict(trial_figures));
  }
  return 0;
}
