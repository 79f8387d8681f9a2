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

#include "bench/run_figures.hpp"
#include "properties/property.hpp"
#include "properties/run.hpp"
#include "scenarios/build.hpp"
#include "scenarios/loader.hpp"

namespace {

using hasim::bench::Figures;
using hasim::bench::peak_rss_mb;
using hasim::bench::print_with_rss;

const std::vector<std::string> kProperties{"edge-converges:120s", "single-serving"};

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
  if (wanted("run"))
    run = hasim::bench::measure(runs, [&]() -> std::optional<hasim::RunStats> {
      auto result = hasim::run_scenario(scenario, {});
      if (!result || !result->all_held()) return std::nullopt;
      return result->stats;
    });
  if (wanted("trial")) trial_figures = hasim::bench::measure(runs, [&] { return trial(scenario); });
  if (wanted("bare"))
    bare = hasim::bench::measure(runs, [&]() -> std::optional<hasim::RunStats> {
      auto world = hasim::build_world(scenario, scenario.seed);
      world->trace().disable_hash();
      return world->run_until(hasim::TrueTime{scenario.duration.ns});
    });
  const double rss_mb = peak_rss_mb();
  const Figures& any = wanted("run") ? run : wanted("trial") ? trial_figures : bare;
  std::printf(
      "1,000 edge nodes x 10 pods (30,000 objects), hot standby v1.5, one leader crash, "
      "%.0f s simulated, %llu events\n",
      any.simulated, static_cast<unsigned long long>(any.events));
  if (wanted("run")) print_with_rss("run", run);
  if (wanted("trial")) print_with_rss("trial", trial_figures);
  if (wanted("bare")) print_with_rss("bare", bare);
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
