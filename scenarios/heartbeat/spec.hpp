#pragma once
// The heartbeat demo system's scenario section, "heartbeat" (scenarios/heartbeat/system.cpp).
#include <string_view>

#include "sim/time.hpp"

namespace hasim {

// The demo model: a heartbeat failure detector on every node (models/demo/).
struct HeartbeatSpec {
  static constexpr std::string_view kSection = "heartbeat";
  Duration interval = seconds(1);
  Duration timeout = seconds(3);  // suspect a peer not heard from for this long (local time)
};

}  // namespace hasim
