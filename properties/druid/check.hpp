#pragma once
// etcd-druid's check half (properties/check_system.hpp).
#include "properties/check_system.hpp"

namespace hasim {

const CheckSystem& druid_check_system();

}  // namespace hasim
