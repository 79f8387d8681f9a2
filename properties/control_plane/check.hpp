#pragma once
// The control plane's check half (properties/check_system.hpp).
#include "properties/check_system.hpp"

namespace hasim {

const CheckSystem& control_plane_check_system();

}  // namespace hasim
