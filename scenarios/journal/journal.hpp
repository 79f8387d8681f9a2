#pragma once
// The journal demo system's scenario glue (scenarios/journal/system.cpp).
#include "scenarios/journal/spec.hpp"
#include "scenarios/system.hpp"

namespace hasim {

const ScenarioSystem& journal_scenario_system();

}  // namespace hasim
