#pragma once
// The upgrade-skew study as a Study (reports/study.hpp): its flags, its cells, its trial.
#include <functional>
#include <memory>

#include "reports/study.hpp"
#include "reports/upgrade_report.hpp"

namespace hasim {

// The real simulation: upgrade_scenario + run_upgrade_trial / upgrade_timeline, with each
// cell's scenario built once up front (it does not depend on the seed).
UpgradeModel simulated_upgrade_model(const UpgradeSettings& settings,
                                     const std::vector<UpgradeCell>& cells);

// Builds the model a study runs; tests inject a fake one.
using UpgradeModelFactory =
    std::function<UpgradeModel(const UpgradeSettings&, const std::vector<UpgradeCell>&)>;

std::unique_ptr<Study> make_upgrade_skew_study(
    UpgradeModelFactory factory = simulated_upgrade_model);
// A study set to `options` directly (as configure would leave it; for tests and tools).
std::unique_ptr<Study> make_upgrade_skew_study(const UpgradeOptions& options,
                                               UpgradeModelFactory factory);

}  // namespace hasim
