#pragma once
// `hasim report upgrade-skew`: the probability that a node-by-node control-plane upgrade or
// rollback violates the version-skew policy (an acting kube-controller-manager or
// kube-scheduler leader newer than some serving kube-apiserver), with plain leases, with
// Coordinated Leader Election (KEP-4355) and with a mixed fleet, next to the KEP's own
// figures and the exact value of the uniform-race model they imply (reports/uniform_race).
//
// The study is a grid of cells (mode x direction x nodes); trial t of cell c (cells in the
// order given) runs with seed trial_seed(seed, c * trials + t). A shard runs the slice
// trial_range(cells * trials, shard) of that flattened index range and writes its trials to
// one JSON file; merging every shard's trials gives exactly the trials of a single run, and
// the report is a function of those trials and the options only, so the merged files are
// byte-identical to a single run's.
//
// Files: upgrade-skew.json (versioned, with every trial), upgrade-skew.md, upgrade-skew.html;
// a shard writes upgrade-skew.shard-I-of-N.json.
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

// mode {lease, coordinated, mixed} x direction {upgrade, rollback} x nodes {3, 5}, in that
// nesting order (so lease/upgrade/3 comes first).
std::vector<UpgradeCell> default_upgrade_cells();
// The cells of every combination, in the same nesting order as the default grid.
std::vector<UpgradeCell> upgrade_grid(const std::vector<ElectionMode>& modes,
                                      const std::vector<UpgradeDirection>& directions,
                                      const std::vector<int>& nodes);

struct UpgradeOptions {
  UpgradeSettings settings;
  std::uint64_t trials = 10000;  // per cell
  std::uint64_t seed = 1;
  unsigned jobs = 1;  // never changes a result, so it is not written to any file
  std::vector<UpgradeCell> cells = default_upgrade_cells();
  ShardSpec shard;  // {0, 1}: the whole study
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
// The real simulation: upgrade_scenario + run_upgrade_trial / upgrade_timeline, with each
// cell's scenario built once up front (it does not depend on the seed).
UpgradeModel simulated_upgrade_model(const UpgradeSettings& settings,
                                     const std::vector<UpgradeCell>& cells);

// The trials of one shard: trials[k] is flattened index range.begin + k.
struct UpgradeShard {
  UpgradeOptions options;
  TrialRange range;
  std::vector<UpgradeTrial> trials;
};

// Runs options.shard's slice of the study on options.jobs threads.
UpgradeShard run_upgrade_shard(const UpgradeOptions& options, const UpgradeTrialFn& trial,
                               const TrialProgress& progress = {});

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
  UpgradeOptions options;            // shard {0, 1}
  std::vector<UpgradeTrial> trials;  // flattened: cell c, trial t at c * trials + t
  UpgradeSample sample;
};

// Completes a study from all of its trials (a single run's, or merged shards'): picks the
// sample trial and simulates its timeline once.
UpgradeResults complete_upgrade_study(const UpgradeOptions& options,
                                      std::vector<UpgradeTrial> trials,
                                      const UpgradeTimelineFn& timeline);

// A single run: run_upgrade_shard over everything, then complete_upgrade_study.
UpgradeResults run_upgrade_study(const UpgradeOptions& options, const UpgradeModel& model,
                                 const TrialProgress& progress = {});

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

// "upgrade-skew.json", "upgrade-skew.md", "upgrade-skew.html"
std::vector<std::string> upgrade_report_files();
// "upgrade-skew.shard-I-of-N.json"
std::string upgrade_shard_file_name(ShardSpec shard);

// A shard file: the options, the shard, its range and its trials as compact arrays.
std::string upgrade_shard_json(const UpgradeShard& shard);
// Reads a shard file back. On a malformed file returns nullopt with a sentence in `error`.
std::optional<UpgradeShard> parse_upgrade_shard(std::string_view text, std::string* error);

// Checks that the shards belong together (same format, hasim version and options, one
// shard count N, every shard index exactly once, each with the range trial_range gives and
// that many trials) and concatenates their trials in order. `names` label the shards in
// messages (file names). nullopt with a message naming the problem and the fix otherwise.
struct MergedUpgradeTrials {
  UpgradeOptions options;  // shard {0, 1}
  std::vector<UpgradeTrial> trials;
};
std::optional<MergedUpgradeTrials> merge_upgrade_shards(const std::vector<std::string>& texts,
                                                        const std::vector<std::string>& names,
                                                        std::string* error);

// The options as JSON text (canonical: two shards agree iff these strings are equal) and
// back. Used by shard files and the report.
std::string upgrade_options_json(const UpgradeOptions& options);

// The `hasim report upgrade-skew` flags that reproduce these options (without --jobs,
// --out or --shard), for the reports' "how to reproduce" line. Settings that have no flag
// are not mentioned; the JSON has them all.
std::string upgrade_reproduce_command(const UpgradeOptions& options);

}  // namespace hasim
