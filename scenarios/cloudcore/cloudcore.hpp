#pragma once
// The CloudCore system's scenario glue (scenarios/cloudcore/): reading "cloudcore" and
// building it into a World over the control plane's kube-apiservers and store.
#include "scenarios/cloudcore/spec.hpp"
#include "scenarios/system.hpp"

namespace hasim {

const ScenarioSystem& cloudcore_scenario_system();
// Adds the CloudCore pods and processes, the Service and its endpoints, and the EdgeCores.
void add_cloudcore(World& world, const Scenario& scenario, BuildState& built);

}  // namespace hasim
