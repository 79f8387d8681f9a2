// The raft-election study as a Study: its cells (Figure 16's lines and the etcd cells), its
// trial and the fields each trial reports. Seeds, threads, shards, merge, progress and CSV
// are the generic runner's (reports/study_runner); the writers are in
// raft_election_report.cpp.
#include <limits>

#include "reports/raft_election_report.hpp"

namespace hasim {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

const std::vector<TrialField<RaftElectionTrial>>& raft_election_fields() {
  using T = RaftElectionTrial;
  static const std::vector<TrialField<T>> fields{
      {"ran", [](const T& t) -> std::int64_t { return t.ran; },
       [](T& t, std::int64_t v) { t.ran = v != 0; }},
      {"elected", [](const T& t) -> std::int64_t { return t.elected; },
       [](T& t, std::int64_t v) { t.elected = v != 0; }},
      {"downtimeNs", [](const T& t) { return t.downtime.ns; },
       [](T& t, std::int64_t v) { t.downtime = Duration{v}; }},
      {"terms", [](const T& t) { return t.terms; }, [](T& t, std::int64_t v) { t.terms = v; }},
      {"lagging", [](const T& t) { return t.lagging; },
       [](T& t, std::int64_t v) { t.lagging = v; }},
  };
  return fields;
}

// What `hasim report diff` compares in raft-election.json: per line, the time from the
// crash to a new leader and the share of trials with none within the horizon.
ComparedCells compared_cells() {
  ComparedCells c;
  c.cells = "/lines";
  c.figures = {
      {"downtime", "time from the crash to a new leader", "", "", "/downtimeSamplesNs", ""},
      {"overHorizon", "P(no leader within the horizon)", "/overHorizon", "/trials", "", ""}};
  c.settings = {"/hasimVersion", "/seed", "/trialsPerLine", "/timerRule"};
  return c;
}

class RaftElectionStudy final : public TrialStudy<RaftElectionTrial> {
 public:
  const StudyInfo& info() const override {
    static const StudyInfo info{
        "raft-election",
        "the Raft paper's Figure 16 (time without a leader after a crash) on etcd raft in "
        "paper mode, and etcd's defaults with 3 and 5 members, PreVote on and off",
        1000,
        "line (a tenth for 150-150)",
        {{"--timer-rule",
          "paper lines: \"etcd\" (etcd raft restarts the election timer at every new term, "
          "the default) or \"paper\" (the Raft paper's rule: only a leader's message or a "
          "granted vote restarts it)"}},
        2,  // 2: options and report carry timerRule
        compared_cells()};
    return info;
  }

  std::optional<std::string> configure(const StudyArgs& args) override {
    options_.trials = args.trials.value_or(info().default_trials);
    options_.seed = args.seed;
    const auto rule = args.flags.find("--timer-rule");
    if (rule != args.flags.end()) options_.timerRule = rule->second;
    return validate();
  }
  void read_options(const Json& j) override {
    options_.trials = j.at("trialsPerLine").get<std::uint64_t>();
    options_.seed = j.at("seed").get<std::uint64_t>();
    options_.timerRule = j.at("timerRule").get<std::string>();
  }
  OrderedJson options_json() const override {
    return {{"trialsPerLine", options_.trials},
            {"seed", options_.seed},
            {"timerRule", options_.timerRule}};
  }
  std::optional<std::string> validate() const override {
    if (options_.trials == 0) return "--trials must be at least 1";
    if (options_.timerRule != "etcd" && options_.timerRule != "paper") {
      return "--timer-rule \"" + options_.timerRule +
             "\" is not a rule; use \"etcd\" (the default) or \"paper\"";
    }
    if (options_.trials > std::numeric_limits<std::uint32_t>::max()) {
      return "--trials " + std::to_string(options_.trials) + " is too many; use fewer trials";
    }
    return std::nullopt;
  }

  std::uint64_t trials_per_cell() const override { return options_.trials; }
  std::uint64_t seed() const override { return options_.seed; }
  std::size_t cell_count() const override { return raft_election_cells().size(); }
  std::string cell_name(std::size_t cell) const override {
    return raft_election_cells()[cell].name;
  }

  Report report() override {
    const RaftElectionResults r = summarize_raft_election(options_, trials_);
    return {raft_election_json(r), raft_election_markdown(r), raft_election_html(r)};
  }
  Table cell_table() const override {
    return raft_election_cell_table(summarize_raft_election(options_, trials_));
  }

 protected:
  void prepare_trials() override {
    if (!scenarios_.empty()) return;
    for (const RaftElectionCell& cell : raft_election_cells()) {
      scenarios_.push_back(raft_election_scenario(cell, options_.timerRule == "paper"));
    }
  }
  RaftElectionTrial run_trial(std::size_t cell, std::uint64_t seed) const override {
    return run_raft_election_trial(scenarios_[cell], raft_election_cells()[cell], seed);
  }
  // 150-150 runs only the first tenth of its trials (the paper ran 100 against 1,000); the
  // others stay as not run, so the layout stays cells x trials for shards and merge.
  RaftElectionTrial run_trial_in_cell(std::size_t cell, std::uint64_t index,
                                      std::uint64_t seed) const override {
    const RaftElectionCell& c = raft_election_cells()[cell];
    const std::uint64_t share = (trials_per_cell() + c.divisor - 1) / c.divisor;
    return index < share ? run_trial(cell, seed) : RaftElectionTrial{};
  }
  const std::vector<TrialField<RaftElectionTrial>>& fields() const override {
    return raft_election_fields();
  }

 private:
  RaftElectionOptions options_;
  std::vector<Scenario> scenarios_;  // one per cell, built once, read by every trial
};

}  // namespace

std::unique_ptr<Study> make_raft_election_study() { return std::make_unique<RaftElectionStudy>(); }

}  // namespace hasim
