// The failover study as a Study: its flags, its cells (the three faults), its trial and
// the fields each trial reports. Seeds, threads, shards, merge, progress and CSV are the
// generic runner's (reports/study_runner); the writers are in failover_report.cpp.
#include "reports/failover_report.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "reports/study_flags.hpp"

namespace hasim {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

const std::vector<TrialField<FailoverTrial>>& failover_fields() {
  static const std::vector<TrialField<FailoverTrial>> fields{
      {"recovered", [](const FailoverTrial& t) -> std::int64_t { return t.recovered; },
       [](FailoverTrial& t, std::int64_t v) { t.recovered = v != 0; }},
      {"unavailableNs", [](const FailoverTrial& t) { return t.unavailable.ns; },
       [](FailoverTrial& t, std::int64_t v) { t.unavailable = Duration{v}; }},
      {"dualLeader", [](const FailoverTrial& t) -> std::int64_t { return t.dual_leader; },
       [](FailoverTrial& t, std::int64_t v) { t.dual_leader = v != 0; }},
      {"harmful", [](const FailoverTrial& t) -> std::int64_t { return t.harmful; },
       [](FailoverTrial& t, std::int64_t v) { t.harmful = v != 0; }},
  };
  return fields;
}

// What `hasim report diff` compares in failover.json: per fault, the time without a working
// leader and the three kinds of trial counted.
ComparedCells compared_cells() {
  ComparedCells c;
  c.cells = "/faults";
  c.figures = {
      {"unavailable", "time without a working leader", "", "", "/unavailableSamplesNs", ""},
      {"dualLeader", "P(two leaders acted at once)", "/dualLeaderTrials", "/trials", "", ""},
      {"harmful", "P(both leaders' writes accepted)", "/harmfulTrials", "/trials", "", ""},
      {"notRecovered", "P(no leader came back)", "/notRecovered", "/trials", "", ""}};
  c.settings = {"/hasimVersion", "/seed", "/trialsPerFault", "/settings"};
  return c;
}

class FailoverStudy final : public TrialStudy<FailoverTrial> {
 public:
  const StudyInfo& info() const override {
    static const StudyInfo info = [] {
      StudyInfo i{"failover",
                  "time without a working leader after the leader crashes, is cut off or "
                  "pauses; trials with two leaders",
                  1000,
                  "fault",
                  election_timing_flags(),
                  1,
                  compared_cells()};
      i.flags.push_back({"--pause", "how long the leader is paused (default 20s)"});
      i.flags.push_back({"--partition", "how long the leader's node is cut off (default 60s)"});
      i.flags.push_back({"--faults",
                         "cells: crash, partition, pause (over the ideal store), "
                         "etcd-leader-crash, etcd-leader-node-down (over a stacked etcd: time "
                         "until writes succeed again) (default crash,partition,pause)"});
      return i;
    }();
    return info;
  }

  std::optional<std::string> configure(const StudyArgs& args) override {
    FailoverSettings& s = options_.settings;
    std::string error;
    if (!read_election_timing(args.flags, s.leaseDuration, s.renewDeadline, s.retryPeriod,
                              &error)) {
      return error;
    }
    const auto pause =
        positive_duration_flag("--pause", flag_or(args.flags, "--pause", "20s"), &error);
    if (!pause) return error;
    const auto partition =
        positive_duration_flag("--partition", flag_or(args.flags, "--partition", "60s"), &error);
    if (!partition) return error;
    s.pause = *pause;
    s.partition = *partition;
    const auto faults =
        names_flag("--faults", flag_or(args.flags, "--faults", "crash,partition,pause"),
                   kAllFailoverFaults, &error);
    if (!faults) return error;
    // kAllFailoverFaults order whatever the flag's: a cell's index decides its trials' seeds.
    options_.faults.clear();
    for (FailoverFault fault : kAllFailoverFaults) {
      if (std::find(faults->begin(), faults->end(), fault) != faults->end()) {
        options_.faults.push_back(fault);
      }
    }
    options_.trials = args.trials.value_or(info().default_trials);
    options_.seed = args.seed;
    return validate();
  }

  void read_options(const Json& j) override {
    options_.trials = j.at("trialsPerFault").get<std::uint64_t>();
    options_.seed = j.at("seed").get<std::uint64_t>();
    const Json& s = j.at("settings");
    FailoverSettings& f = options_.settings;
    f.leaseDuration = Duration{s.at("leaseDurationNs").get<std::int64_t>()};
    f.renewDeadline = Duration{s.at("renewDeadlineNs").get<std::int64_t>()};
    f.retryPeriod = Duration{s.at("retryPeriodNs").get<std::int64_t>()};
    f.pause = Duration{s.at("pauseNs").get<std::int64_t>()};
    f.partition = Duration{s.at("partitionNs").get<std::int64_t>()};
    options_.faults.assign(std::begin(kFailoverFaults), std::end(kFailoverFaults));
    if (j.contains("faults")) {
      options_.faults.clear();
      for (const Json& name : j.at("faults")) {
        const auto it = std::find_if(
            std::begin(kAllFailoverFaults), std::end(kAllFailoverFaults),
            [&](FailoverFault fault) { return to_string(fault) == name.get<std::string>(); });
        if (it == std::end(kAllFailoverFaults)) throw std::runtime_error("unknown fault");
        options_.faults.push_back(*it);
      }
    }
  }

  OrderedJson options_json() const override {
    const FailoverSettings& s = options_.settings;
    OrderedJson j = {{"trialsPerFault", options_.trials},
                     {"seed", options_.seed},
                     {"settings",
                      {{"leaseDurationNs", s.leaseDuration.ns},
                       {"renewDeadlineNs", s.renewDeadline.ns},
                       {"retryPeriodNs", s.retryPeriod.ns},
                       {"pauseNs", s.pause.ns},
                       {"partitionNs", s.partition.ns}}}};
    // Only another set of cells than the default: the default's options keep their bytes.
    if (!options_.default_faults()) {
      OrderedJson faults = OrderedJson::array();
      for (FailoverFault f : options_.faults) faults.push_back(std::string(to_string(f)));
      j["faults"] = faults;
    }
    return j;
  }

  std::optional<std::string> validate() const override {
    const FailoverSettings& s = options_.settings;
    if (options_.trials == 0) return "--trials must be at least 1";
    if (options_.faults.empty())
      return "--faults names no fault; e.g. --faults crash,etcd-leader-crash";
    if (options_.trials > std::numeric_limits<std::uint64_t>::max() / options_.faults.size()) {
      return "--trials " + std::to_string(options_.trials) + " is too many; use fewer trials";
    }
    if (s.pause.ns <= 0 || s.partition.ns <= 0) return "--pause and --partition must be positive";
    return election_timing_problem(s.leaseDuration, s.renewDeadline, s.retryPeriod, "failover");
  }

  std::uint64_t trials_per_cell() const override { return options_.trials; }
  std::uint64_t seed() const override { return options_.seed; }
  std::size_t cell_count() const override { return options_.faults.size(); }
  std::string cell_name(std::size_t cell) const override {
    return std::string(to_string(options_.faults.at(cell)));
  }

  Report report() override {
    const FailoverResults r = summarize_failover(options_, trials_);
    return {failover_json(r), failover_markdown(r), failover_html(r)};
  }
  Table cell_table() const override {
    return failover_cell_table(summarize_failover(options_, trials_));
  }

 protected:
  void prepare_trials() override {
    scenario_ = failover_scenario(options_.settings);
    stacked_ = failover_scenario(options_.settings, true);
  }
  FailoverTrial run_trial(std::size_t cell, std::uint64_t seed) const override {
    const FailoverFault fault = options_.faults.at(cell);
    return run_failover_trial(is_etcd_fault(fault) ? stacked_ : scenario_, options_.settings, fault,
                              seed);
  }
  const std::vector<TrialField<FailoverTrial>>& fields() const override {
    return failover_fields();
  }

 private:
  FailoverOptions options_;
  Scenario scenario_;  // built once, read by every trial
  Scenario stacked_;   // ... by the etcd faults' trials
};

}  // namespace

std::unique_ptr<Study> make_failover_study() { return std::make_unique<FailoverStudy>(); }

}  // namespace hasim
