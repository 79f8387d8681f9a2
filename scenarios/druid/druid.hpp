#pragma once
// The etcd-druid system's scenario glue (scenarios/druid/system.cpp, build.cpp).
#include <string>

#include "scenarios/druid/spec.hpp"
#include "scenarios/system.hpp"

namespace hasim {

const ScenarioSystem& druid_scenario_system();
void add_druid(World& world, const Scenario& scenario, BuildState& built);
// The node etcd-druid runs on: "druidNode", else the first control-plane node.
std::string druid_node(const Scenario& scenario);
// druid-scale (scenarios/druid/scale_fault.cpp): the kind, its keys, and the loader's
// cross-check that settles "maxReplicas" against the scale faults.
FaultKind druid_scale_fault_kind();
KeySet druid_scale_key_set();
void druid_check_max_replicas(scenario_loader::Context& c);
// hasim provisions processes for at most this many ordinals.
inline constexpr int kDruidMaxOrdinals = 9;

}  // namespace hasim
