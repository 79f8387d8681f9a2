#pragma once
// The heartbeat demo system's scenario glue (scenarios/heartbeat/system.cpp).
#include "scenarios/heartbeat/spec.hpp"
#include "scenarios/system.hpp"

namespace hasim {

const ScenarioSystem& heartbeat_scenario_system();

}  // namespace hasim
