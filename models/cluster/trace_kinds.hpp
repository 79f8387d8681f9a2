#pragma once
// The kinds of trace event of the control-plane nodes: the elected components, their kubelet
// and the upgrade orchestrator, declared once (see sim/trace_kinds.hpp for why). A component
// also emits api::trace_kind::kComponentStart.
#include <array>
#include <string_view>

namespace hasim::cluster::trace_kind {

// An elected component's work starts (OnStartedLeading) or has stopped: "acting" leader.
inline constexpr std::string_view kActingStart = "acting-start";
inline constexpr std::string_view kActingEnd = "acting-end";
inline constexpr std::string_view kNewLeader = "new-leader";  // OnNewLeader
// The kubelet restarts a stopped component (scenario builder).
inline constexpr std::string_view kKubeletRestart = "kubelet-restart";
// The upgrade orchestrator stops a node's components / brings the node back.
inline constexpr std::string_view kUpgradeStop = "upgrade-stop";
inline constexpr std::string_view kUpgradeNodeUp = "upgrade-node-up";

inline constexpr std::array kAll{kActingStart,    kActingEnd,   kNewLeader,
                                 kKubeletRestart, kUpgradeStop, kUpgradeNodeUp};

}  // namespace hasim::cluster::trace_kind
