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

// The kubeadm and replace methods (models/cluster/upgrade_methods.hpp): a component's new
// manifest moved in (or an external one skipped) and its new pod found running; a node
// drained and its kubelet upgraded; a Machine created (its node joins) or deleted; the end
// of the upgrade, or kubeadm giving up after UpgradeManifestTimeout.
inline constexpr std::string_view kUpgradeComponent = "upgrade-component";
inline constexpr std::string_view kUpgradeComponentReady = "upgrade-component-ready";
inline constexpr std::string_view kUpgradeDrain = "upgrade-drain";
inline constexpr std::string_view kUpgradeKubelet = "upgrade-kubelet";
inline constexpr std::string_view kUpgradeMachineCreate = "upgrade-machine-create";
inline constexpr std::string_view kUpgradeMachineDelete = "upgrade-machine-delete";
inline constexpr std::string_view kUpgradeDone = "upgrade-done";
inline constexpr std::string_view kUpgradeFailed = "upgrade-failed";

inline constexpr std::array kAll{kActingStart,          kActingEnd,
                                 kNewLeader,            kKubeletRestart,
                                 kUpgradeStop,          kUpgradeNodeUp,
                                 kUpgradeComponent,     kUpgradeComponentReady,
                                 kUpgradeDrain,         kUpgradeKubelet,
                                 kUpgradeMachineCreate, kUpgradeMachineDelete,
                                 kUpgradeDone,          kUpgradeFailed};

}  // namespace hasim::cluster::trace_kind
