#pragma once
// The kernel's own fault kinds: what sim/world.hpp can do to any process, node, clock or
// link, whatever system runs there.
#include <vector>

#include "scenarios/system.hpp"

namespace hasim {

std::vector<FaultKind> kernel_fault_kinds();

// The kernel as a registered system: no section, only its fault kinds.
const ScenarioSystem& kernel_scenario_system();

}  // namespace hasim
