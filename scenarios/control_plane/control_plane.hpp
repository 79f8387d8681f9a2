#pragma once
// The control-plane system's scenario glue: reading "controlPlane", wiring it into a World
// (the ideal store on node "store"; on each control-plane node a kube-apiserver,
// kube-controller-manager and kube-scheduler, and the kubelet that restarts them with
// CrashLoopBackOff), and the apiserver fault kinds. The upgrade orchestrator builds on it.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/apiserver/apiserver.hpp"
#include "models/apiserver/ideal_store.hpp"
#include "models/apiserver/load_balancer.hpp"
#include "models/election/semver.hpp"
#include "scenarios/control_plane/spec.hpp"
#include "scenarios/loader_internal.hpp"
#include "scenarios/system.hpp"
#include "sim/world.hpp"

namespace hasim {

// The versions one component starts with (its static pod manifest's image and flags): the
// upgrade orchestrator changes them per component (kubeadm) or per node (node, replace).
struct ComponentVersion {
  std::string binary;
  std::string emulation;
  // How often the kubelet has started this static pod: a new value is kubeadm's "the mirror
  // pod's hash changed" (the pod was replaced since its manifest moved).
  std::uint64_t starts = 0;
};

// What the built control plane leaves in the BuildState for its faults and the upgrade.
struct ControlPlaneWiring {
  static constexpr std::string_view kSection = "controlPlane";
  // The fault conditions of each control-plane node's kube-apiserver, by node name.
  std::map<std::string, std::shared_ptr<api::ApiServerConditions>> conditions;
  // By process, "node/component" (kube-apiserver, kube-controller-manager, kube-scheduler),
  // for every control-plane node and every replacement machine of the upgrade.
  std::map<std::string, std::shared_ptr<ComponentVersion>> versions;
  // The ideal store behind every kube-apiserver: what systems built on the control plane
  // read as the cluster's state (CloudCore's pods) and seed before the run.
  std::shared_ptr<api::IdealStore> store;
  // Who acts as leader for which lease, followed from the trace; only when a fault aims at
  // the "leader" role (it costs an observer call per event).
  std::shared_ptr<const class LeaderTracker> leaders;
  // With access "loadBalancer" and its health check on: the balancer's view of the
  // apiservers, and each apiserver incarnation's store (for /readyz), by node name.
  std::shared_ptr<api::LoadBalancerHealth> balancer;
  std::map<std::string, std::shared_ptr<std::weak_ptr<api::Store>>> stores;
};

// What reading "controlPlane" leaves for the readers after it (the upgrade, apiserver faults).
struct ControlPlaneNotes {
  static constexpr std::string_view kSection = "controlPlane";
  // Its nodes, when they were read without error (so fault targets can be checked).
  std::optional<std::vector<std::string>> nodes;
  // controlPlane.version (given or the default) and emulationVersion (if given), parsed,
  // when valid, so the upgrade can be checked against them.
  std::optional<election::SemVer> version;
  std::optional<election::SemVer> emulation_version;
};

// Process names on every control-plane node.
inline constexpr std::string_view kApiServerProcess = "kube-apiserver";
inline constexpr std::string_view kControllerManagerProcess = "kube-controller-manager";
inline constexpr std::string_view kSchedulerProcess = "kube-scheduler";

void add_control_plane(World& world, const Scenario& scenario, BuildState& built);
// The store of `node`'s kube-apiserver over the etcd members (etcd_backing.cpp): a factory
// of one RaftStore per apiserver incarnation, with the endpoint list kubeadm gives it.
std::function<std::shared_ptr<api::Store>()> raft_store_factory(const Scenario& scenario,
                                                                 const std::string& node);

// Whether the scenario's upgrade goes to an older version (semver order), and the newer of
// the two versions (the control plane's own if there is no upgrade).
bool is_rollback(const Scenario& scenario);
std::string newer_version(const Scenario& scenario);

std::vector<FaultKind> control_plane_fault_kinds();
// "leader:NAMESPACE/NAME": the process acting as that lease's leader when the fault fires.
RoleKind leader_role();
// Follows the acting leaders for leader_role() when `scenario` has a fault aimed at it.
void track_leaders(World& world, const Scenario& scenario, ControlPlaneWiring& wiring);
const ScenarioSystem& control_plane_scenario_system();

// The store's node as a scenario has it: named `name`, forking its random streams by its
// name before issue 11 part 5 (kLegacyStoreNode), so every seed draws what it drew then.
NodeSpec store_node_spec(std::string_view name = kStoreNode);

namespace scenario_loader {

// The store's node name for this load: kStoreNode, or kLegacyStoreNode ("etcd") when
// c.options asks for it (a replay of format 1).
std::string store_node_name(const Context& c);
// Adds the store's node to c.scenario.nodes and c.nodes unless a node has that name, and
// gives it the store's stream name either way; a scenario with a control plane has it.
// Idempotent.
void add_store_node(Context& c, const Json& section);
// Whether the section's control plane stands on etcd members ("etcd": {"model": "raft"},
// or an "etcd" section in the file and no model given), as far as the file says.
bool stands_on_raft_etcd(const Context& c, const Json& section);
// "controlPlane.etcd" (etcd_backing.cpp).
void read_cp_etcd(Context& c, const Json& section, const std::string& path, ControlPlaneSpec& spec);
// Checks the control plane's etcd against the "etcd" section once both are read.
void cross_check_cp_etcd(Context& c);
// In a file with a control plane, reads the store's old node name "etcd" as "store" wherever
// a node is named, with a note at each place (legacy_store_node.cpp). Not for a replay of
// format 1 (c.options.legacy_store_node), where "etcd" is the store's node as it was.
void read_legacy_store_node(Context& c, Json& doc);
// "controlPlane": the section and c.notes' ControlPlaneNotes.
void read_control_plane(Context& c, const Json& value, const std::string& path);
// A Kubernetes version in strict semver (blang/semver Parse, as API validation of a
// LeaseCandidate's versions): "1.31.0", "1.32.0-rc.1". Reports anything else with the
// tolerant reading as the fix ("v1.31" -> "1.31.0"). `target` is set only when valid.
std::optional<election::SemVer> read_version(JsonReader& r, const Json& value,
                                             const std::string& path, std::string& target);
// The next minor version up (or down; "" below x.0) from `v`, for examples in messages.
std::string neighbour_minor(const election::SemVer& v, bool up);

}  // namespace scenario_loader
}  // namespace hasim
