#pragma once
// What the CloudCore properties match in trace events: the processes' names (as
// scenarios/cloudcore/spec.hpp runs them) and a CloudCore named as "node/process".
#include <string>
#include <string_view>

#include "sim/trace.hpp"

namespace hasim::cloudcore_trace {

inline constexpr std::string_view kCloudCoreProcess = "cloudcore";
inline constexpr std::string_view kEdgeProcess = "edgecore";

// "cc-1/cloudcore": the event's own process.
inline std::string qualified(const TraceEvent& event) {
  return std::string(event.node) + "/" + std::string(event.proc);
}

}  // namespace hasim::cloudcore_trace
