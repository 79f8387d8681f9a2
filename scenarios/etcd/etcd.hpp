#pragma once
// The etcd system's scenario glue (scenarios/etcd/system.cpp).
#include "scenarios/etcd/spec.hpp"
#include "scenarios/system.hpp"

namespace hasim {

const ScenarioSystem& etcd_scenario_system();

}  // namespace hasim
