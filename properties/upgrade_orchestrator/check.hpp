#pragma once
// The upgrade orchestrator system's check half (properties/check_system.hpp).
#include "properties/check_system.hpp"

namespace hasim {

const CheckSystem& upgrade_check_system();

}  // namespace hasim
