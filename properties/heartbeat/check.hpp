#pragma once
// The heartbeat system's check half (properties/check_system.hpp).
#include "properties/check_system.hpp"

namespace hasim {

const CheckSystem& heartbeat_check_system();

}  // namespace hasim
