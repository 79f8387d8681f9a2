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
// kubectl drain of a worker (drain_fault.cpp).
FaultKind druid_drain_fault_kind();
// A new etcd image rolled out by the StatefulSet (update_fault.cpp).
FaultKind druid_image_update_fault_kind();

}  // namespace hasim
