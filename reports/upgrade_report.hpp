#pragma once
// `hasim report upgrade-skew`: the probability that a node-by-node control-plane upgrade or
// rollback violates the version-skew policy (an acting kube-controller-manager or
// kube-scheduler leader newer than some serving kube-apiserver), with plain leases, with
// Coordinated Leader Election (KEP-4355) and with a mixed fleet, next to the KEP's own
// figures and the exact value of the uniform-race model they imply (reports/uniform_race).
//
// The study is a grid of cells (mode x direction x nodes); trial t of cell c (cells in the
// order given) runs with seed trial_seed(seed, c * trials + t). Seeds, threads, shards and
// merge are the generic study runner's (reports/study_runner); the report is a function of
// the trials and the options only, so merged shards give the bytes of a single run.
//
// The study's files, by job: upgrade_cells (cells, options, their checks), upgrade_summary
// (per-cell figures from the trials), upgrade_kep (the comparison with the KEP and the
// uniform race), upgrade_text (tables and sentences shared by the writers), upgrade_json,
// upgrade_markdown, upgrade_html (the charts), upgrade_findings, upgrade_study (the Study).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reports/stats.hpp"
#include "reports/trials.hpp"
#include "reports/upgrade_trial.hpp"

namespace hasim {

inline constexpr std::string_view kUpgradeReportName = "upgrade-skew";
// Bumped whenever the JSON of a report or a shard changes shape; merge refuses shards of
// another format.
inline constexpr int kUpgradeFormatVersion = 1;

inline constexpr ElectionMode kUpgradeModes[] = {ElectionMode::lease, ElectionMode::coordinated,
                                                 ElectionMode::mixed};
inline constexpr UpgradeDirection kUpgradeDirections[] = {UpgradeDirection::upgrade,
                                                          UpgradeDirection::rollback};
inline constexpr UpgradeSpec::Method kUpgradeMethods[] = {
    UpgradeSpec::Method::node, UpgradeSpec::Method::kubeadm, UpgradeSpec::Method::replace};
inline constexpr UpgradeStore kUpgradeStores[] = {UpgradeStore::ideal, UpgradeStore::stacked};
std::string mode_name(ElectionMode mode);
std::string direction_name(UpgradeDirection direction);
std::string store_name(UpgradeStore store);

// mode {lease, coordinated, mixed} x direction {upgrade, rollback} x nodes {3, 5}, in that
// nesting order (so lease/upgrade/3 comes first).
std::vector<UpgradeCell> default_upgrade_cells();
// The cells of every combination, in the same nesting order as the default grid, the method
// innermost (so with the node method alone the grid is the one before methods existed), the
// store outermost (stacked cells after all ideal ones: the ideal cells keep their seeds).
std::vector<UpgradeCell> upgrade_grid(
    const std::vector<ElectionMode>& modes, const std::vector<UpgradeDirection>& directions,
    const std::vector<int>& nodes,
    const std::vector<UpgradeSpec::Method>& methods = {UpgradeSpec::Method::node},
    const std::vector<UpgradeStore>& stores = {UpgradeStore::ideal});

// Everything that changes a result (threads and shards never do).
struct UpgradeOptions {
  UpgradeSettings settings;
  std::uint64_t trials = 10000;  // per cell
  std::uint64_t seed = 1;
  std::vector<UpgradeCell> cells = default_upgrade_cells();
};

// The control-plane sizes a study accepts (the uniform-race model is solved for all of them).
inline constexpr int kUpgradeMinNodes = 2;
inline constexpr int kUpgradeMaxNodes = 9;

// What the simulation needs of the options: at least one trial and one cell, sizes in
// [kUpgradeMinNodes, kUpgradeMaxNodes], semantic versions with the old one older, and
// client-go's rule for leaseDuration / renewDeadline / retryPeriod. The message names the
// `hasim report upgrade-skew` flag to change and how.
std::optional<std::string> validate_upgrade_options(const UpgradeOptions& options);

// What a study needs from the simulation, injectable so tests can run the report machinery
// with a fake model. Both functions must depend only on their arguments.
using UpgradeTrialFn = std::function<UpgradeTrial(const UpgradeCell&, std::uint64_t seed)>;
using UpgradeTimelineFn = std::function<UpgradeTimeline(const UpgradeCell&, std::uint64_t seed)>;
struct UpgradeModel {
  UpgradeTrialFn trial;
  UpgradeTimelineFn timeline;
};

// The trial drawn as a timeline in the report: the first violating trial of the first cell
// (in grid order) that has one, so the chart shows what a violation looks like; trial 0 of
// the first cell if no trial violated.
struct UpgradeSample {
  std::size_t cell = 0;
  std::uint64_t trial = 0;  // within the cell
  std::uint64_t seed = 0;
  UpgradeTimeline timeline;
};

// A whole study: every trial of every cell, and the sample timeline.
struct UpgradeResults {
  UpgradeOptions options;
  std::vector<UpgradeTrial> trials;  // flattened: cell c, trial t at c * trials + t
  UpgradeSample sample;
};

// Completes a study from all of its trials (a single run's, or merged shards'): picks the
// sample trial and simulates its timeline once.
UpgradeResults complete_upgrade_study(const UpgradeOptions& options,
                                      std::vector<UpgradeTrial> trials,
                                      const UpgradeTimelineFn& timeline);

// Per-cell figures, computed from the trials alone.
struct UpgradeCellSummary {
  UpgradeCell cell;
  std::uint64_t trials = 0;
  std::uint64_t violating = 0;
  double probability = 0;
  Interval interval;                      // 95% Wilson
  std::uint64_t kcm_violating = 0;        // trials where the KCM leader violated
  Interval kcm_interval;                  // 95% Wilson
  DurationSummary violation_time;         // over violating trials
  DurationSummary violation_time_all;     // over all trials (0 for the others)
  DurationSummary first_violation;        // from the upgrade's start, violating trials
  std::vector<Duration> violation_times;  // violating trials, ascending (for the CDF)
  std::uint64_t leader_changes = 0;       // sums over the trials
  std::uint64_t lease_writes = 0;
  std::uint64_t candidate_writes = 0;
  Duration total_upgrade_time{};  // sum of upgrade durations
  DurationSummary upgrade_duration;
  std::uint64_t leaders_at_end = 0;

  double mean(std::uint64_t sum) const;
  // (lease + candidate writes) / upgrade time, summed over trials: the apiservers' load.
  double writes_per_second() const;
};
std::vector<UpgradeCellSummary> summarize_upgrade(const UpgradeResults& results);

std::string upgrade_json(const UpgradeResults& results);
std::string upgrade_markdown(const UpgradeResults& results);
std::string upgrade_html(const UpgradeResults& results);

// The options as JSON text (canonical: two shards agree iff these strings are equal).
std::string upgrade_options_json(const UpgradeOptions& options);

// The `hasim report upgrade-skew` flags that reproduce these options (without --jobs,
// --out or --shard), for the reports' "how to reproduce" line. Settings that have no flag
// are not mentioned; the JSON has them all.
std::string upgrade_reproduce_command(const UpgradeOptions& options);

// What hasim found beyond the grid, each kept as a scenario whose verdict a test asserts.
std::vector<std::string> upgrade_findings();

}  // namespace hasim
