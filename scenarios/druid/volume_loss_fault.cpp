// One member's PersistentVolume lost, as a fault kind of the etcd-druid system:
//
//   {"at": "2m", "kind": "druid-volume-loss", "pod": "etcd-main-1"}
//
// the claim's volume fails (a lost cloud disk): its data is gone, the pod's containers crash
// on their I/O errors and the kubelet restarts them on the empty volume, where the sidecar
// finds no data directory (scenarios/workloads StatefulPods::lose_volume). With an emptyDir
// the data is on the node's disk: the kernel's disk-loss fault on the node stands for it.
#include "scenarios/druid/druid.hpp"
#include "scenarios/loader_internal.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

using scenario_loader::Context;

void read_volume_loss(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  read_druid_pod(c, f, path, spec);
  const DruidSpec* druid = c.scenario.section<DruidSpec>();
  if (druid != nullptr && druid->storage != DruidStorage::persistent) {
    c.reader.error(path,
                   "druid-volume-loss needs persistent storage (a claim's volume); with "
                   "\"storage\": \"emptyDir\" the data lives on the node's disk: use "
                   "{\"kind\": \"disk-loss\", \"node\": ...} on the pod's node");
  }
}

void apply_volume_loss(World& world, const Scenario& scenario, const FaultSpec& fault,
                       const BuildState& built) {
  at_druid_pod(world, scenario, fault, built,
               [](workloads::StatefulPods& pods, int ordinal) { (void)pods.lose_volume(ordinal); });
}

void write_volume_loss(const FaultSpec& f, Json& out) { out["pod"] = f.targets.front(); }

std::string describe_volume_loss(const FaultSpec& f) {
  return "the data volume of " + f.targets.front() + " is lost";
}

}  // namespace

FaultKind druid_volume_loss_fault_kind() {
  return {"druid-volume-loss", read_volume_loss,     apply_volume_loss,
          write_volume_loss,   describe_volume_loss, std::nullopt};
}

}  // namespace hasim
