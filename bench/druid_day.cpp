// A day of an etcd-druid-managed Etcd (issue 17's benchmark): 5 members on PersistentVolumes
// over 3 zones, etcd-backup-restore taking a delta snapshot every 5 minutes and a full one
// every 24 hours ("0 0 * * *"), a client writing 10 times a second through the client Service,
// for 24 simulated hours without faults (scenarios/druid/druid-day.json), measured three ways:
//  - run:   as `hasim run` does it: every event formatted and hashed, no property;
//  - trial: as a study's trial does it: no-lost-write online (the writer's history checked for
//           linearizability, the restores judged), nothing formatted or hashed;
//  - bare:  the system alone, no observer.
//
//   bench_druid_day [RUNS [run|trial|bare] [HOURS]]   (default 1 run of each way, 24 hours)
//
// Target (issue 17): at least 5,000x faster than real time. Prints simulated s per wall s,
// events/s and the peak resident memory. Wall-clock time is measured here only.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "bench/run_figures.hpp"
#include "properties/property.hpp"
#include "properties/run.hpp"
#include "scenarios/build.hpp"
#include "scenarios/loader.hpp"

namespace {

using hasim::bench::Figures;
using hasim::bench::print_with_rss;

std::optional<hasim::RunStats> trial(const hasim::Scenario& scenario) {
  auto world = hasim::build_world(scenario, scenario.seed);
  world->trace().disable_hash();
  std::unique_ptr<hasim::Property> no_lost_write = hasim::make_property("no-lost-write");
  world->trace().add_observer(no_lost_write.get());
  const hasim::RunStats stats = world->run_until(hasim::TrueTime{scenario.duration.ns});
  no_lost_write->finish(stats.end);
  if (no_lost_write->violation()) return std::nullopt;
  return stats;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 1;
  const std::string only = argc > 2 && std::string(argv[2]) != "all" ? argv[2] : "";
  const int hours = argc > 3 ? std::max(1, std::atoi(argv[3])) : 24;
  const std::string path = std::string(HASIM_SOURCE_DIR) + "/scenarios/druid/druid-day.json";
  hasim::LoadResult load = hasim::load_scenario_file(path);
  if (!load.scenario) {
    std::fprintf(stderr, "%s", hasim::format_errors(load.errors, path).c_str());
    return 2;
  }
  hasim::Scenario scenario = *load.scenario;
  scenario.duration = hasim::hours(hours);
  scenario.properties.clear();
  const auto wanted = [&only](const char* how) { return only.empty() || only == how; };
  Figures run, trial_figures, bare;
  if (wanted("run"))
    run = hasim::bench::measure(runs, [&]() -> std::optional<hasim::RunStats> {
      auto result = hasim::run_scenario(scenario, {});
      if (!result) return std::nullopt;
      return result->stats;
    });
  if (wanted("trial")) trial_figures = hasim::bench::measure(runs, [&] { return trial(scenario); });
  if (wanted("bare"))
    bare = hasim::bench::measure(runs, [&]() -> std::optional<hasim::RunStats> {
      auto world = hasim::build_world(scenario, scenario.seed);
      world->trace().disable_hash();
      return world->run_until(hasim::TrueTime{scenario.duration.ns});
    });
  const Figures& any = wanted("run") ? run : wanted("trial") ? trial_figures : bare;
  std::printf(
      "etcd-druid, 5 members on PersistentVolumes in 3 zones, deltas every 5m, a full "
      "snapshot every 24h, 10 writes/s: %.0f s simulated, %llu events\n",
      any.simulated, static_cast<unsigned long long>(any.events));
  if (wanted("run")) print_with_rss("run", run);
  if (wanted("trial")) print_with_rss("trial", trial_figures);
  if (wanted("bare")) print_with_rss("bare", bare);
  const auto verdict = [](const Figures& f) {
    return f.simulated / f.median >= 5000 ? "met" : "NOT met";
  };
  if (only.empty()) {
    std::printf("target >= 5000x real time (median): as hasim run %s; as a trial %s; bare %s\n",
                verdict(run), verdict(trial_figures), verdict(bare));
  }
  return 0;
}
