// The upgrade-skew study's figures from its trials: the sample trial, per-cell summaries,
// and the fields each trial carries into JSON and CSV.
#include "reports/upgrade_text.hpp"

#include <algorithm>

namespace hasim {
UpgradeResults complete_upgrade_study(const UpgradeOptions& options,
                                      std::vector<UpgradeTrial> trials,
                                      const UpgradeTimelineFn& timeline) {
  HASIM_ASSERT(trials.size() == options.trials * options.cells.size());
  UpgradeResults r;
  r.options = options;
  r.trials = std::move(trials);
  const auto first_violation = std::find_if(r.trials.begin(), r.trials.end(),
                                            [](const UpgradeTrial& t) { return t.violated; });
  const std::size_t index = first_violation == r.trials.end()
                                ? 0
                                : static_cast<std::size_t>(first_violation - r.trials.begin());
  r.sample.cell = index / options.trials;
  r.sample.trial = index % options.trials;
  r.sample.seed = trial_seed(options.seed, index);
  r.sample.timeline = timeline(options.cells[r.sample.cell], r.sample.seed);
  return r;
}

double UpgradeCellSummary::mean(std::uint64_t sum) const {
  return trials == 0 ? 0.0 : static_cast<double>(sum) / static_cast<double>(trials);
}

double UpgradeCellSummary::writes_per_second() const {
  if (total_upgrade_time.ns <= 0) return 0.0;
  return static_cast<double>(lease_writes + candidate_writes) /
         (static_cast<double>(total_upgrade_time.ns) / 1e9);
}

std::vector<UpgradeCellSummary> summarize_upgrade(const UpgradeResults& r) {
  std::vector<UpgradeCellSummary> out;
  const std::uint64_t per_cell = r.options.trials;
  for (std::size_t c = 0; c < r.options.cells.size(); ++c) {
    UpgradeCellSummary s;
    s.cell = r.options.cells[c];
    std::vector<Duration> all, firsts, durations;
    for (std::uint64_t t = 0; t < per_cell; ++t) {
      const UpgradeTrial& trial = r.trials[c * per_cell + t];
      ++s.trials;
      all.push_back(trial.violation_time);
      if (trial.kcm_violated) ++s.kcm_violating;
      if (trial.violated) {
        ++s.violating;
        s.violation_times.push_back(trial.violation_time);
        if (trial.first_violation) firsts.push_back(*trial.first_violation);
      }
      s.leader_changes += trial.leader_changes;
      s.lease_writes += trial.lease_writes;
      s.candidate_writes += trial.candidate_writes;
      s.total_upgrade_time += trial.upgrade_duration;
      durations.push_back(trial.upgrade_duration);
      s.leaders_at_end += trial.leaders_at_end ? 1 : 0;
    }
    s.probability = static_cast<double>(s.violating) / static_cast<double>(s.trials);
    s.interval = wilson_interval(s.violating, s.trials);
    s.kcm_interval = wilson_interval(s.kcm_violating, s.trials);
    std::sort(s.violation_times.begin(), s.violation_times.end());
    s.violation_time = summarize_durations(s.violation_times);
    s.violation_time_all = summarize_durations(std::move(all));
    s.first_violation = summarize_durations(std::move(firsts));
    s.upgrade_duration = summarize_durations(std::move(durations));
    out.push_back(std::move(s));
  }
  return out;
}

const std::vector<TrialField<UpgradeTrial>>& upgrade_trial_fields() {
  using T = UpgradeTrial;
  using I = std::int64_t;
  // The order of the arrays in shard files and the report's trialData: keep it.
  static const std::vector<TrialField<T>> fields{
      {"violated", [](const T& t) -> I { return t.violated; },
       [](T& t, I v) { t.violated = v != 0; }},
      {"kcmViolated", [](const T& t) -> I { return t.kcm_violated; },
       [](T& t, I v) { t.kcm_violated = v != 0; }},
      {"violationTimeNs", [](const T& t) -> I { return t.violation_time.ns; },
       [](T& t, I v) { t.violation_time = Duration{v}; }},
      {"firstViolationNs",
       [](const T& t) -> I { return t.first_violation ? t.first_violation->ns : -1; },
       [](T& t, I v) {
         if (v >= 0) t.first_violation = Duration{v};
       }},
      {"leaderChanges", [](const T& t) -> I { return static_cast<I>(t.leader_changes); },
       [](T& t, I v) { t.leader_changes = static_cast<std::uint64_t>(v); }},
      {"leaseWrites", [](const T& t) -> I { return static_cast<I>(t.lease_writes); },
       [](T& t, I v) { t.lease_writes = static_cast<std::uint64_t>(v); }},
      {"candidateWrites", [](const T& t) -> I { return static_cast<I>(t.candidate_writes); },
       [](T& t, I v) { t.candidate_writes = static_cast<std::uint64_t>(v); }},
      {"upgradeDurationNs", [](const T& t) -> I { return t.upgrade_duration.ns; },
       [](T& t, I v) { t.upgrade_duration = Duration{v}; }},
      {"leadersAtEnd", [](const T& t) -> I { return t.leaders_at_end; },
       [](T& t, I v) { t.leaders_at_end = v != 0; }},
  };
  return fields;
}

Table upgrade_cell_table(const std::vector<UpgradeCellSummary>& cells) {
  Table table{{"cell",
               "mode",
               "direction",
               "nodes",
               "trials",
               "violating",
               "probability",
               "ci95_low",
               "ci95_high",
               "kcm_violating",
               "kcm_ci95_low",
               "kcm_ci95_high",
               "violation_mean_ns",
               "violation_p99_ns",
               "first_violation_p50_ns",
               "leader_changes_mean",
               "lease_writes_mean",
               "candidate_writes_mean",
               "writes_per_second",
               "upgrade_duration_mean_ns",
               "leaders_at_end"},
              {}};
  for (const UpgradeCellSummary& s : cells) {
    table.rows.push_back({describe(s.cell),
                          mode_name(s.cell.mode),
                          direction_name(s.cell.direction),
                          std::to_string(s.cell.nodes),
                          std::to_string(s.trials),
                          std::to_string(s.violating),
                          fixed(s.probability, 6),
                          fixed(s.interval.low, 6),
                          fixed(s.interval.high, 6),
                          std::to_string(s.kcm_violating),
                          fixed(s.kcm_interval.low, 6),
                          fixed(s.kcm_interval.high, 6),
                          std::to_string(s.violation_time.mean.ns),
                          std::to_string(s.violation_time.p99.ns),
                          std::to_string(s.first_violation.p50.ns),
                          fixed(s.mean(s.leader_changes), 3),
                          fixed(s.mean(s.lease_writes), 3),
                          fixed(s.mean(s.candidate_writes), 3),
                          fixed(s.writes_per_second(), 6),
                          std::to_string(s.upgrade_duration.mean.ns),
                          std::to_string(s.leaders_at_end)});
  }
  return table;
}

}  // namespace hasim
