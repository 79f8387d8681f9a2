#pragma once
// The etcd-druid system's scenario glue (scenarios/druid/system.cpp, build.cpp).
#include <functional>
#include <string>

#include "scenarios/druid/spec.hpp"
#include "scenarios/system.hpp"

namespace hasim {

namespace api {
struct ApiClientConfig;
}
struct ControlPlaneSpec;

const ScenarioSystem& druid_scenario_system();
void add_druid(World& world, const Scenario& scenario, BuildState& built);
// The node etcd-druid runs on: "druidNode", else the first control-plane node.
std::string druid_node(const Scenario& scenario);
// kubectl drain of a worker (drain_fault.cpp).
FaultKind druid_drain_fault_kind();
// A new etcd image rolled out by the StatefulSet (update_fault.cpp).
FaultKind druid_image_update_fault_kind();
// A container that crashes at every start for a while (crash_loop_fault.cpp).
FaultKind druid_crash_loop_fault_kind();
// One member's PersistentVolume lost (volume_loss_fault.cpp).
FaultKind druid_volume_loss_fault_kind();
FaultKind druid_data_corrupt_fault_kind();
// Schedules `action` on the Etcd's pods at the fault's time, for the ordinal of its "pod".
void at_druid_pod(World& world, const Scenario& scenario, const FaultSpec& fault,
                  const BuildState& built,
                  std::function<void(workloads::StatefulPods& pods, int ordinal)> action);
// The ordinal of `pod` ("etcd-main-2": 2), or -1 if it is not one of the Etcd's.
int druid_pod_ordinal(const DruidSpec& spec, const std::string& pod);
// A fault's "pod", into spec.targets, checked against the Etcd's replicas.
void read_druid_pod(scenario_loader::Context& c, const Json& fault, const std::string& path,
                    FaultSpec& spec);
// druid-scale (scenarios/druid/scale_fault.cpp): the kind, its keys, and the loader's
// cross-check that settles "maxReplicas" against the scale faults.
FaultKind druid_scale_fault_kind();
KeySet druid_scale_key_set();
void druid_check_max_replicas(scenario_loader::Context& c);
// "backup" of the etcdDruid section, the object store's process, and its outage fault
// (scenarios/druid/backup.cpp).
bool read_druid_backup(scenario_loader::Context& c, const Json& section, const std::string& path,
                       DruidSpec& spec);
KeySet druid_backup_key_set();
FaultKind druid_backup_store_down_fault_kind();
KeySet druid_backup_store_down_key_set();
// Adds the object store to the world; nullopt without a backup.
std::optional<ProcessId> add_druid_object_store(World& world, const DruidSpec& spec);
// The quorum-loss runbook as an operator action (runbook_fault.cpp): the kind, its keys, and
// the operator's kubectl process, added when a scenario schedules the runbook.
FaultKind druid_runbook_fault_kind();
KeySet druid_runbook_key_set();
std::optional<ProcessId> add_druid_runbook(World& world, const Scenario& scenario,
                                           const DruidWiring& wiring);
// An in-cluster API client over the control plane's apiservers, for `user`.
api::ApiClientConfig druid_in_cluster_client(const ControlPlaneSpec& cp, std::string user);
// hasim provisions processes for at most this many ordinals.
inline constexpr int kDruidMaxOrdinals = 9;

}  // namespace hasim
