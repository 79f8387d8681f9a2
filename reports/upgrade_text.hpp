#pragma once
// The upgrade-skew study's shared pieces, for its writers (upgrade_json, upgrade_markdown,
// upgrade_html): tables, sentences, the KEP comparison and the trial and options JSON.
// Internal to reports/upgrade_*; everything else uses upgrade_report.hpp.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reports/study.hpp"
#include "reports/uniform_race.hpp"
#include "reports/upgrade_report.hpp"

namespace hasim {

inline std::string secs(Duration d) { return format_seconds_ms(d); }
inline std::string fixed(double value, int decimals) { return format_fixed(value, decimals); }

// upgrade_json.cpp: options and summaries as JSON. Every field of UpgradeSettings is
// written so a merge can rebuild the exact study (and simulate its sample timeline) from a
// shard file alone. options_from throws std::exception on a malformed object.
nlohmann::ordered_json upgrade_options_to_json(const UpgradeOptions& options);
UpgradeOptions upgrade_options_from_json(const nlohmann::json& j);

// upgrade_summary.cpp: a trial's fields in JSON and CSV. A trial without a first violation
// has -1 as firstViolationNs.
const std::vector<TrialField<UpgradeTrial>>& upgrade_trial_fields();
// Per-cell figures as plain values (upgrade-skew.cells.csv).
Table upgrade_cell_table(const std::vector<UpgradeCellSummary>& cells);

// upgrade_kep.cpp: the comparison with KEP-4355 and the uniform-race model.
inline constexpr std::string_view kKepUpgrade =
    "\"For 3 node control plane upgrade, there is about a 25% chance of a new version of the "
    "controller running while old versions of the apiserver are active, resulting in a skew "
    "violation. (Consider case where the 2nd node upgraded has the lease)\"";
inline constexpr std::string_view kKepRollback =
    "\"For rollback, it is almost a certainty that skew will be violated.\"";
bool model_covers(int nodes);
std::vector<std::string> comparison_header();
std::vector<std::vector<std::string>> comparison_rows(const std::vector<UpgradeCellSummary>& cells);
// One sentence per cell, every claim computed from the data.
std::vector<std::string> comparison_findings(const std::vector<UpgradeCellSummary>& cells);
// Why the simulation and the model may differ: facts about the two models.
std::vector<std::string> model_differences(const UpgradeSettings& s);

// upgrade_text.cpp: tables and sentences both writers print.
inline constexpr std::string_view kViolation =
    "A violation is the no-skew property failing: at some instant an acting "
    "kube-controller-manager or kube-scheduler leader runs a newer version than some serving "
    "kube-apiserver. \"Acting\" means from OnStartedLeading until its work has stopped, not "
    "what the Lease object says. The Kubernetes skew policy requires controllers to stay at "
    "the old version until every apiserver is upgraded, and to be rolled back before any "
    "apiserver is.";
const UpgradeCellSummary* find_summary(const std::vector<UpgradeCellSummary>& cells,
                                       ElectionMode mode, UpgradeDirection direction, int nodes,
                                       UpgradeSpec::Method method,
                                       UpgradeStore store = UpgradeStore::ideal);
std::string probability_text(const UpgradeCellSummary& s);
std::string times_text(const UpgradeCellSummary& s);
std::vector<std::string> key_results(const std::vector<UpgradeCellSummary>& cells);
std::vector<std::string> skew_header();
std::vector<std::vector<std::string>> skew_rows(const std::vector<UpgradeCellSummary>& cells);
std::vector<std::string> election_header();
std::vector<std::vector<std::string>> election_rows(const std::vector<UpgradeCellSummary>& cells);
std::vector<std::string> write_findings(const std::vector<UpgradeCellSummary>& cells);
std::string settings_text(const UpgradeOptions& o);
std::string sample_title(const UpgradeResults& r);

}  // namespace hasim
