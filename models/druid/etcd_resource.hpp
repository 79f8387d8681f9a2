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
#include <string_view>

#include "sim/env.hpp"

namespace hasim::druid {

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
