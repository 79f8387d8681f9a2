#pragma once
// The kinds of trace event of the heartbeat failure detector, declared once (see
// sim/trace_kinds.hpp for why).
#include <array>
#include <string_view>

namespace hasim::demo::trace_kind {

inline constexpr std::string_view kDetectorConfig = "detector-config";
inline constexpr std::string_view kSuspect = "suspect";
inline constexpr std::string_view kTrust = "trust";

inline constexpr std::array kAll{kDetectorConfig, kSuspect, kTrust};

}  // namespace hasim::demo::trace_kind
