#pragma once
// The Etcd resource (api/core/v1alpha1/etcd.go) as hasim keeps it: outside the apiserver, like
// the StatefulSet (scenarios/workloads/stateful_pods.hpp), shared by whoever edits its spec
// (a scenario's druid-scale), etcd-druid (which reconciles it) and the pods' mounted etcd
// config (the ConfigMap druid writes from it). Editing the spec is followed by an
// EtcdSpecChanged message to druid: its watch on the Etcd (the controller's predicate lets a
// generation change through; gardener sets the reconcile annotation with it).
#include <cstdint>
#include <set>
#include <string>
#include <optional>
#include <string_view>
#include <vector>

#include "sim/env.hpp"

namespace hasim::druid {

// Which etcd-druid the scenario runs: `upstream` as gardener ships it, or `proposal`, the seed's
// design (seed 004: druid's decision table, the sidecar's initialization table, automatic
// quorum-loss recovery, a PDB that follows BackupReady, spec roll-outs only when healthy).
enum class DruidMode : std::uint8_t { upstream, proposal };

// status.members and status.clusterSize as the API server last took them from druid: what a
// proposal-mode sidecar reads at initialization (after a GET of the Etcd) and what its leading
// sidecar compares etcd's member list with.
struct EtcdStatusView {
  struct Member {
    std::string name;  // the pod: "etcd-main-0"
    std::string id;    // the member ID from the Lease's holderIdentity, hex
    bool ready = false;
  };
  std::int32_t clusterSize = 0;
  std::vector<Member> members;
  // The Ready condition (nullopt: Unknown or not written yet), in both modes: what an
  // operator's dashboard shows (scenarios/druid/runbook_fault.cpp's on-call operator).
  std::optional<bool> ready;
};

struct EtcdResource {
  std::int32_t replicas = 0;    // spec.replicas
  std::int64_t generation = 1;  // metadata.generation: each accepted spec change adds one
  // The druid.gardener.cloud/suspend-etcd-spec-reconcile annotation (an operator's runbook):
  // druid skips the spec reconcile and keeps computing the status.
  bool suspendSpecReconcile = false;
  // len(initial-cluster) of druid's ConfigMap (configmap/etcdconfig.go prepareInitialCluster:
  // one entry per spec.replicas), which every pod mounts as etcd.conf.yaml: druid's reconcile
  // writes it before it syncs the StatefulSet; a sidecar reads it as the file
  // (miscellaneous.IsMultiNode, serveConfig, the server's OriginalClusterSize at start).
  std::int32_t configMapClusterSize = 0;
  // spec.etcd.image's tag. The pod template carries it and the ConfigMap's checksum
  // (statefulset/builder.go: the checksum/etcd-configmap annotation), so a new image or a new
  // member count is a new template, which the StatefulSet rolls out.
  std::string image = "v3.5.15";
  // Tags the image registry cannot serve (a fact of the world, not of the spec): a pod of such
  // a template never starts (ImagePullBackOff).
  std::set<std::string> unpullableImages;
  DruidMode mode = DruidMode::upstream;
  EtcdStatusView status;  // written by druid with each status the API server took
  // The PodDisruptionBudget's minAvailable as druid last wrote it in proposal mode (nullopt:
  // no PDB, a single-node cluster); upstream derives it from spec.replicas alone.
  std::optional<std::int32_t> proposalMinAvailable;
};

// The StatefulSet template's revision for `etcd`'s image and ConfigMap: "etcd-main-v3.5.15-c3"
// (hasim's name for the controller-revision hash of that template).
inline std::string template_revision(std::string_view name, const EtcdResource& etcd) {
  return std::string(name) + "-" + etcd.image + "-c" + std::to_string(etcd.configMapClusterSize);
}

// The informer's update event for the Etcd: druid reconciles the spec it now reads.
struct EtcdSpecChanged final : MessageBody {
  std::string_view type() const override { return "etcd-spec-changed"; }
};

}  // namespace hasim::druid
