#pragma once
// The journal demo's check half (properties/check_system.hpp).
#include "properties/check_system.hpp"

namespace hasim {

const CheckSystem& journal_check_system();

}  // namespace hasim
