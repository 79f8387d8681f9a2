// The control plane as a registered system (scenarios/system.hpp): section "controlPlane",
// kube-apiserver, kube-controller-manager and kube-scheduler on each control-plane node (with
// client-go leader election, or Coordinated Leader Election when "election" says so), the
// ideal store's node, and the apiserver fault kinds.
#include <algorithm>

#include "models/apiserver/messages.hpp"
#include "models/apiserver/trace_kinds.hpp"
#include "models/cluster/trace_kinds.hpp"
#include "models/cluster/upgrade_spec.hpp"
#include "models/election/trace_kinds.hpp"
#include "models/election/resource_lock.hpp"
#include "scenarios/control_plane/control_plane.hpp"

namespace hasim {
namespace {

std::optional<std::vector<std::string>> processes_on(const scenario_loader::Context& c,
                                                     const std::string& node) {
  const ControlPlaneNotes* notes = c.notes.get<ControlPlaneNotes>();
  if (notes == nullptr || !notes->nodes) return std::nullopt;
  const auto& nodes = *notes->nodes;
  // The upgrade's replacement machines (method "replace") run the same static pods.
  const UpgradeSpec* upgrade = c.scenario.section<UpgradeSpec>();
  const bool replacement =
      upgrade != nullptr && std::find(upgrade->replacements.begin(), upgrade->replacements.end(),
                                      node) != upgrade->replacements.end();
  if (!replacement && std::find(nodes.begin(), nodes.end(), node) == nodes.end()) {
    return std::vector<std::string>{};
  }
  return std::vector<std::string>{std::string(kApiServerProcess),
                                  std::string(kControllerManagerProcess),
                                  std::string(kSchedulerProcess)};
}

std::vector<std::string> dictionary() {
  std::vector<std::string> words{"lease",   "coordinated",  "mixed",
                                 "local",   "loadBalancer", "priority",
                                 "bounded", "unbounded",    "OldestEmulationVersion",
                                 "1.31.0",  "1.32.0",       std::string(kStoreNode)};
  words.emplace_back(kLegacyStoreNode);  // old files name the store's node "etcd"
  for (std::string_view lock : election::kLockTypes) words.emplace_back(lock);
  for (api::Verb verb : api::kVerbs) words.emplace_back(api::to_string(verb));
  return words;
}

}  // namespace

const ScenarioSystem& control_plane_scenario_system() {
  static const ScenarioSystem system = [] {
    ScenarioSystem s;
    s.name = "control-plane";
    s.section = ControlPlaneSpec::kSection;
    s.key_sets = {
        {"controlPlane",
         {"nodes", "version", "emulationVersion", "election", "coordination", "access",
          "loadBalancerHealthCheck", "requestTimeout", "apiserverLatency", "watchLag", "components",
          "kubelet", "etcd"}},
        {"loadBalancerHealthCheck", {"enabled", "interval", "fall", "rise"}},
        {"controlPlaneEtcd", {"model", "topology", "balancer"}},
        {"coordination",
         {"strategy", "fallbackAfter", "candidateRenewInterval", "leaseDuration", "renewDeadline",
          "retryPeriod"}},
        {"components", {"kube-controller-manager", "kube-scheduler"}},
        {"component",
         {"leaseDuration", "renewDeadline", "retryPeriod", "releaseOnCancel", "lock", "upgradeLock",
          "clientTimeout", "workInterval", "renewRequests"}},
        {"kubelet", {"restart", "backoff", "maxBackoff", "resetAfter"}},
        {"fault:apiserver-slow", {"at", "kind", "for", "node", "nodes", "latency"}},
        {"fault:apiserver-hang", {"at", "kind", "for", "node", "nodes", "verbs"}},
        {"fault:apiserver-unavailable", {"at", "kind", "for", "node", "nodes"}},
    };
    s.migrate = scenario_loader::read_legacy_store_node;
    s.add_nodes = scenario_loader::add_store_node;
    s.read = scenario_loader::read_control_plane;
    s.cross_check = scenario_loader::cross_check_cp_etcd;
    s.processes_on = processes_on;
    s.process_origin =
        "\"controlPlane\" (kube-apiserver, kube-controller-manager and kube-scheduler on each "
        "control-plane node)";
    s.build = add_control_plane;
    s.fault_kinds = control_plane_fault_kinds();
    s.roles = {leader_role()};
    for (const auto& kinds :
         {std::vector<std::string_view>(api::trace_kind::kAll.begin(), api::trace_kind::kAll.end()),
          std::vector<std::string_view>(election::trace_kind::kAll.begin(),
                                        election::trace_kind::kAll.end()),
          std::vector<std::string_view>(cluster::trace_kind::kAll.begin(),
                                        cluster::trace_kind::kAll.end())}) {
      s.trace_kinds.insert(s.trace_kinds.end(), kinds.begin(), kinds.end());
    }
    s.dictionary = dictionary();
    return s;
  }();
  return system;
}

}  // namespace hasim
