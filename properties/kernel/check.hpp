#pragma once
// The kernel's check half (properties/check_system.hpp): partition-respected and
// clock-steps, and the fault choices among the kernel's fault kinds.
#include "properties/check_system.hpp"

namespace hasim {

const CheckSystem& kernel_check_system();

}  // namespace hasim
