#pragma once
// The etcd system's check half (properties/check_system.hpp): raft-safety,
// eventually-raft-leader and check-quorum, and the etcd fault choices.
#include "properties/check_system.hpp"

namespace hasim {

const CheckSystem& etcd_check_system();

}  // namespace hasim
