#pragma once
// The etcd-druid system's scenario section, "etcdDruid" (scenarios/druid/system.cpp).
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/cluster/pod_placement.hpp"
#include "models/druid/etcd_resource.hpp"
#include "models/druid/sidecar_gc.hpp"
#include "scenarios/workloads/stateful_pods.hpp"

namespace hasim {

namespace druid {
struct PodContainers;
}

enum class DruidStorage : std::uint8_t { persistent, emptyDir };
enum class DruidAntiAffinity : std::uint8_t { none, hostname, zone };

// spec.backup of the Etcd: an object store (a process on `storeNode`, outside the pods'
// nodes so their faults leave it alone) the leading sidecar snapshots to.
struct DruidBackupStore {
  static constexpr std::string_view kStoreProcess = "object-store";
  std::string storeNode;
  Duration deltaSnapshotPeriod{};                   // required: druid reads it unchecked
  std::optional<std::string> fullSnapshotSchedule;  // unset: backup-restore's hourly default
  // Garbage collection of old snapshots (models/druid/sidecar_gc.hpp), druid's defaults.
  druid::sidecar::GcPolicy gcPolicy = druid::sidecar::GcPolicy::LimitBased;
  std::int64_t maxBackups = druid::sidecar::kDefaultMaxBackups;
  Duration gcPeriod = druid::sidecar::kDefaultGarbageCollectionPeriod;
  Duration deltaRetention{};
};

// An Etcd resource managed by etcd-druid (models/druid/): its StatefulSet's pods on the
// worker nodes, each running etcd (under etcd-wrapper) and the etcd-backup-restore sidecar,
// and etcd-druid itself on `druidNode`; the member Leases live in the control plane's
// kube-apiservers (section "controlPlane").
struct DruidSpec {
  static constexpr std::string_view kSection = "etcdDruid";
  static constexpr std::string_view kDruidProcess = "etcd-druid";
  static constexpr std::string_view kEtcdContainer = "etcd";
  static constexpr std::string_view kSidecarContainer = "backup-restore";
  std::string name = "etcd-main";  // the Etcd: pods and member Leases "etcd-main-0", ...
  std::string namespace_ = "default";
  int replicas = 3;
  // The ordinals hasim provisions processes for (StatefulSet pods reach up to spec.replicas
  // over the run): "maxReplicas", default the largest of replicas and every druid-scale's.
  int maxReplicas = 0;  // 0 until the loader's cross-check settles the default
  DruidStorage storage = DruidStorage::persistent;
  DruidAntiAffinity antiAffinity = DruidAntiAffinity::none;
  std::vector<std::string> workers;  // the nodes pods may run on
  std::string druidNode;             // default: the first control-plane node
  workloads::RuntimeTimings timings;
  std::optional<DruidBackupStore> backup;              // "backup"
  std::int64_t writeRate = 0;                          // "writeRate": client writes per second
  druid::DruidMode mode = druid::DruidMode::upstream;  // "mode"
  // "proposal": {"unknownGracePeriod": "5m", "notReadyGracePeriod": "2m"} (mode proposal only)
  Duration unknownGracePeriod = minutes(5);
  Duration notReadyGracePeriod = minutes(2);
};

// What the system leaves in the BuildState for its fault kinds.
struct DruidWiring {
  static constexpr std::string_view kSection = "etcdDruid";
  std::shared_ptr<workloads::StatefulPods> pods;
  std::shared_ptr<druid::EtcdResource> etcd;  // the Etcd whose spec druid-scale edits
  ProcessId druid = 0;                        // etcd-druid, told of each spec change
  std::optional<ProcessId> store;             // the object store, with a backup
  std::optional<ProcessId> runbook;           // kubectl, with a druid-quorum-loss-runbook
  std::vector<std::shared_ptr<druid::PodContainers>> containers;  // by ordinal
};

// "etcd-main-0.etcd": the process of container `container` of pod `ordinal` (a pod's
// containers are processes named after it; the pod moves between nodes).
std::string druid_container_process(const DruidSpec& spec, int ordinal, std::string_view container);

}  // namespace hasim
