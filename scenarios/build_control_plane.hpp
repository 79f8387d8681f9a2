#pragma once
// Wires a scenario's control plane into a World: the ideal store on node "etcd", and on each
// control-plane node a kube-apiserver, kube-controller-manager and kube-scheduler, plus the
// kubelet that restarts them with CrashLoopBackOff. Returns the handles faults need.
#include <map>
#include <memory>
#include <string>

#include "models/apiserver/apiserver.hpp"
#include "scenarios/scenario.hpp"
#include "sim/world.hpp"

namespace hasim {

struct ControlPlaneWiring {
  // The fault conditions of each control-plane node's kube-apiserver, by node name.
  std::map<std::string, std::shared_ptr<api::ApiServerConditions>> conditions;
};

// Process names on every control-plane node.
inline constexpr std::string_view kApiServerProcess = "kube-apiserver";
inline constexpr std::string_view kControllerManagerProcess = "kube-controller-manager";
inline constexpr std::string_view kSchedulerProcess = "kube-scheduler";

std::shared_ptr<ControlPlaneWiring> add_control_plane(World& world, const Scenario& scenario);

}  // namespace hasim
