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

// The versions a node's components start with; the upgrade orchestrator changes them while
// the node is down.
struct NodeVersion {
  std::string binary;
  std::string emulation;
};

struct ControlPlaneWiring {
  // The fault conditions of each control-plane node's kube-apiserver, by node name.
  std::map<std::string, std::shared_ptr<api::ApiServerConditions>> conditions;
  std::map<std::string, std::shared_ptr<NodeVersion>> versions;  // by node name
};

// Process names on every control-plane node.
inline constexpr std::string_view kApiServerProcess = "kube-apiserver";
inline constexpr std::string_view kControllerManagerProcess = "kube-controller-manager";
inline constexpr std::string_view kSchedulerProcess = "kube-scheduler";

std::shared_ptr<ControlPlaneWiring> add_control_plane(World& world, const Scenario& scenario);

// Whether scenario.upgrade goes to an older version (semver order), and the newer of the two.
bool is_rollback(const Scenario& scenario);
std::string newer_version(const Scenario& scenario);

// Schedules the scenario's node-by-node upgrade (scenario.upgrade) on the wired control plane.
void schedule_upgrade(World& world, const Scenario& scenario, const ControlPlaneWiring& wiring);

}  // namespace hasim
