// The one list of systems. Order matters (see registry.hpp): append.
#include "systems/registry.hpp"

#include "properties/cloudcore/check.hpp"
#include "properties/control_plane/check.hpp"
#include "properties/druid/check.hpp"
#include "properties/heartbeat/check.hpp"
#include "properties/journal/check.hpp"
#include "properties/raft/check.hpp"
#include "properties/kernel/check.hpp"
#include "properties/upgrade_orchestrator/check.hpp"
#include "scenarios/cloudcore/cloudcore.hpp"
#include "scenarios/control_plane/control_plane.hpp"
#include "scenarios/druid/druid.hpp"
#include "scenarios/etcd/etcd.hpp"
#include "scenarios/heartbeat/heartbeat.hpp"
#include "scenarios/journal/journal.hpp"
#include "scenarios/kernel/faults.hpp"
#include "scenarios/upgrade_orchestrator/upgrade_orchestrator.hpp"
#include "sim/assert.hpp"

namespace hasim {

const std::vector<System>& systems() {
  static const std::vector<System> list = [] {
    std::vector<System> out{
        {"kernel", "nodes, clocks, network, and the faults any process or node can suffer",
         &kernel_scenario_system(), &kernel_check_system()},
        {"heartbeat", "the demo: a heartbeat failure detector on every node (models/demo)",
         &heartbeat_scenario_system(), &heartbeat_check_system()},
        {"control-plane",
         "kube-apiservers over the ideal store; kube-controller-manager and kube-scheduler "
         "electing with client-go leases or Coordinated Leader Election (KEP-4355)",
         &control_plane_scenario_system(), &control_plane_check_system()},
        {"upgrade-orchestrator",
         "node-by-node control-plane upgrades and rollbacks, with the compatibility-version "
         "flow",
         &upgrade_scenario_system(), &upgrade_check_system()},
        {"journal",
         "the disk demo: a write-ahead journal that acknowledges writes after fsync (or, "
         "unsafely, after write) on a node's volume (models/journal)",
         &journal_scenario_system(), &journal_check_system()},
        {"etcd",
         "etcd members: raft (models/raft) with ticks from the node's clock, peer streams, a "
         "WAL and snapshots on the node's disk (models/etcd)",
         &etcd_scenario_system(), &etcd_check_system()},
        {"cloudcore",
         "KubeEdge CloudCore hot standby (v1.3, v1.5) over the control plane: CloudCores "
         "electing, a Service following their readiness gates, EdgeCores (models/cloudcore)",
         &cloudcore_scenario_system(), &cloudcore_check_system()},
        {"etcd-druid",
         "etcd-druid and etcd-backup-restore over the control plane: an Etcd's StatefulSet "
         "pods on worker nodes, each an etcd member under etcd-wrapper with its sidecar "
         "(models/druid, scenarios/workloads)",
         &druid_scenario_system(), &druid_check_system()},
    };
    for (const System& s : out) {
      HASIM_ASSERT(s.scenario->name == s.name && s.check->name == s.name);
    }
    return out;
  }();
  return list;
}

const std::vector<const ScenarioSystem*>& scenario_systems() {
  static const std::vector<const ScenarioSystem*> list = [] {
    std::vector<const ScenarioSystem*> out;
    for (const System& s : systems()) out.push_back(s.scenario);
    return out;
  }();
  return list;
}

const std::vector<const CheckSystem*>& check_systems() {
  static const std::vector<const CheckSystem*> list = [] {
    std::vector<const CheckSystem*> out;
    for (const System& s : systems()) out.push_back(s.check);
    return out;
  }();
  return list;
}

}  // namespace hasim
