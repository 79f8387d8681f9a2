// The upgrade-skew study as a Study: its flags, its cells (the grid), its trial and what it
// writes. Seeds, threads, shards, merge, progress and CSV are the generic runner's.
#include "reports/upgrade_study.hpp"

#include <algorithm>
#include <map>

#include "reports/study_flags.hpp"
#include "reports/upgrade_text.hpp"

namespace hasim {
namespace {

using Json = nlohmann::json;

std::optional<std::vector<int>> node_list(const std::string& text, std::string* error) {
  std::vector<int> nodes;
  for (const std::string& item : split_list(text)) {
    const bool digits =
        !item.empty() && item.size() <= 3 &&
        std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) {
      *error = "--nodes \"" + text + "\": \"" + item +
               "\" is not a node count; give a comma-separated list of whole numbers from " +
               std::to_string(kUpgradeMinNodes) + " to " + std::to_string(kUpgradeMaxNodes) +
               ", e.g. --nodes 3,5";
      return std::nullopt;
    }
    nodes.push_back(std::stoi(item));
  }
  return nodes;
}

// The grid from --modes, --directions and --nodes.
std::optional<std::vector<UpgradeCell>> cells_from(const std::map<std::string, std::string>& f,
                                                   std::string* error) {
  const auto modes =
      names_flag("--modes", flag_or(f, "--modes", "lease,coordinated,mixed"), kUpgradeModes, error);
  if (!modes) return std::nullopt;
  const auto directions = names_flag("--directions", flag_or(f, "--directions", "upgrade,rollback"),
                                     kUpgradeDirections, error);
  if (!directions) return std::nullopt;
  const auto nodes = node_list(flag_or(f, "--nodes", "3,5"), error);
  if (!nodes) return std::nullopt;
  // The node method alone by default: the main job's figures stay what they were.
  const auto methods =
      names_flag("--methods", flag_or(f, "--methods", "node"), kUpgradeMethods, error);
  if (!methods) return std::nullopt;
  // The ideal store alone by default, for the same reason.
  const auto stores =
      names_flag("--stores", flag_or(f, "--stores", "ideal"), kUpgradeStores, error);
  if (!stores) return std::nullopt;
  return upgrade_grid(*modes, *directions, *nodes, *methods, *stores);
}

// --downtime and --gap, each only if given.
bool timings_from(const std::map<std::string, std::string>& f, UpgradeSpec& spec,
                  std::string* error) {
  for (const auto& [flag, target] :
       {std::pair{"--downtime", &spec.downtime}, std::pair{"--gap", &spec.gap}}) {
    if (!f.contains(flag)) continue;
    const auto d = distribution_flag(flag, f.at(flag), error);
    if (!d) return false;
    *target = *d;
  }
  return true;
}

// What `hasim report diff` compares in upgrade-skew.json: per cell, the probability of a
// violation, how long violating upgrades were in violation, and how long upgrades took.
ComparedCells compared_cells() {
  ComparedCells c;
  c.cells = "/cells";
  c.cell_name = "/cell";
  c.figures = {{"violation", "P(version-skew violation)", "/violatingTrials", "/trials", "", ""},
               {"violationTime", "time in violation (violating trials)", "", "",
                "/trialData/violationTimeNs", "/trialData/violated"},
               {"upgradeDuration", "upgrade duration", "", "", "/trialData/upgradeDurationNs", ""}};
  c.settings = {"/hasimVersion", "/options/seed", "/options/trialsPerCell", "/options/settings"};
  return c;
}

class UpgradeSkewStudy final : public TrialStudy<UpgradeTrial> {
 public:
  explicit UpgradeSkewStudy(UpgradeModelFactory factory) : factory_(std::move(factory)) {}
  UpgradeSkewStudy(const UpgradeOptions& options, UpgradeModelFactory factory)
      : options_(options), factory_(std::move(factory)) {}

  const StudyInfo& info() const override {
    static const StudyInfo info = [] {
      StudyInfo i{std::string(kUpgradeReportName),
                  "P(version-skew violation) in node-by-node upgrades and rollbacks: leases, "
                  "Coordinated Leader Election, mixed fleets",
                  10000,
                  "cell",
                  {{"--nodes", "control-plane sizes (default 3,5)"},
                   {"--modes", "election modes (default lease,coordinated,mixed)"},
                   {"--directions", "upgrade and/or rollback (default upgrade,rollback)"},
                   {"--methods",
                    "upgrade methods: node, kubeadm, replace (default node; see the scenario's "
                    "upgrade.method)"},
                   {"--stores",
                    "what the kube-apiservers stand on: ideal (a store that never fails), "
                    "stacked (an etcd member on every control-plane node, upgraded with it) "
                    "(default ideal)"},
                   {"--from", "old version (default 1.31.0)"},
                   {"--to", "new version (default 1.32.0)"},
                   {"--downtime", "how long a node is down (default 30s..90s)"},
                   {"--gap", "wait before the next node (default 30s..60s)"}},
                  kUpgradeFormatVersion,
                  compared_cells()};
      for (StudyFlag& flag : election_timing_flags()) i.flags.push_back(std::move(flag));
      return i;
    }();
    return info;
  }

  std::optional<std::string> configure(const StudyArgs& args) override {
    UpgradeSettings& s = options_.settings;
    std::string error;
    if (!read_election_timing(args.flags, s.leaseDuration, s.renewDeadline, s.retryPeriod,
                              &error)) {
      return error;
    }
    s.old_version = flag_or(args.flags, "--from", s.old_version);
    s.new_version = flag_or(args.flags, "--to", s.new_version);
    if (!timings_from(args.flags, s.upgrade, &error)) return error;
    auto cells = cells_from(args.flags, &error);
    if (!cells) return error;
    options_.cells = std::move(*cells);
    options_.trials = args.trials.value_or(info().default_trials);
    options_.seed = args.seed;
    return validate();
  }

  void read_options(const Json& j) override { options_ = upgrade_options_from_json(j); }
  nlohmann::ordered_json options_json() const override { return upgrade_options_to_json(options_); }
  std::optional<std::string> validate() const override {
    return validate_upgrade_options(options_);
  }

  std::uint64_t trials_per_cell() const override { return options_.trials; }
  std::uint64_t seed() const override { return options_.seed; }
  std::size_t cell_count() const override { return options_.cells.size(); }
  std::string cell_name(std::size_t cell) const override { return describe(options_.cells[cell]); }

  Report report() override {
    // The sample timeline is not in the trials (nor in shards): it is one more simulation,
    // run here from the options, so a merge draws exactly what a single run draws.
    const UpgradeModel model = factory_(options_.settings, {});
    const UpgradeResults r = complete_upgrade_study(options_, trials_, model.timeline);
    return {upgrade_json(r), upgrade_markdown(r), upgrade_html(r)};
  }
  Table cell_table() const override {
    UpgradeResults r;
    r.options = options_;
    r.trials = trials_;
    return upgrade_cell_table(summarize_upgrade(r));
  }

 protected:
  void prepare_trials() override { model_ = factory_(options_.settings, options_.cells); }
  UpgradeTrial run_trial(std::size_t cell, std::uint64_t seed) const override {
    return model_.trial(options_.cells[cell], seed);
  }
  const std::vector<TrialField<UpgradeTrial>>& fields() const override {
    return upgrade_trial_fields();
  }

 private:
  UpgradeOptions options_;
  UpgradeModelFactory factory_;
  UpgradeModel model_;  // built once before trials run; read-only while they do
};

}  // namespace

UpgradeModel simulated_upgrade_model(const UpgradeSettings& settings,
                                     const std::vector<UpgradeCell>& cells) {
  auto scenarios = std::make_shared<std::map<UpgradeCell, Scenario>>();
  for (const UpgradeCell& cell : cells) {
    if (!scenarios->contains(cell)) scenarios->emplace(cell, upgrade_scenario(settings, cell));
  }
  UpgradeModel model;
  // Read-only after construction, so worker threads share it.
  model.trial = [scenarios](const UpgradeCell& cell, std::uint64_t seed) {
    return run_upgrade_trial(scenarios->at(cell), seed);
  };
  model.timeline = [settings](const UpgradeCell& cell, std::uint64_t seed) {
    return upgrade_timeline(upgrade_scenario(settings, cell), seed);
  };
  return model;
}

std::unique_ptr<Study> make_upgrade_skew_study(UpgradeModelFactory factory) {
  return std::make_unique<UpgradeSkewStudy>(std::move(factory));
}

std::unique_ptr<Study> make_upgrade_skew_study(const UpgradeOptions& options,
                                               UpgradeModelFactory factory) {
  return std::make_unique<UpgradeSkewStudy>(options, std::move(factory));
}

}  // namespace hasim
