#pragma once
// The CloudCore system's check half (properties/check_system.hpp).
#include "properties/check_system.hpp"

namespace hasim {

const CheckSystem& cloudcore_check_system();

}  // namespace hasim
