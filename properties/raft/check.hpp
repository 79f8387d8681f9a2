#pragma once
// The etcd system's check half (properties/check_system.hpp): raft-safety and
// eventually-raft-leader.
#include "properties/check_system.hpp"

namespace hasim {

const CheckSystem& etcd_check_system();

}  // namespace hasim
