#pragma once
// The kinds of trace event of the heartbeat failure detector, declared once (see
// sim/trace_kinds.hpp for why).
#include <array>
#include <string_view>

namespace hasim::demo::trace_kind {

inline constexpr std::string_view kDetectorConfig = "detector-config";
inline constexpr std::string_view kSuspect = "suspect";
inline constexpr std::string_view kTrust = "trust";
// A round of heartbeats sent: "seq" (1 after each start) and the sender's monotonic clock
// reading, "local_ns", for local-timers (properties/heartbeat/local_timers.hpp).
inline constexpr std::string_view kHeartbeatSent = "heartbeat-sent";

inline constexpr std::array kAll{kDetectorConfig, kSuspect, kTrust, kHeartbeatSent};

}  // namespace hasim::demo::trace_kind
