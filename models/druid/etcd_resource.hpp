#pragma once
// The Etcd resource (api/core/v1alpha1/etcd.go) as hasim keeps it: outside the apiserver, like
// the StatefulSet (scenarios/workloads/stateful_pods.hpp), shared by whoever edits its spec
// (a scenario's druid-scale), etcd-druid (which reconciles it) and the pods' mounted etcd
// config (the ConfigMap druid writes from it). Editing the spec is followed by an
// EtcdSpecChanged message to druid: its watch on the Etcd (the controller's predicate lets a
// generation change through; gardener sets the reconcile annotation with it).
#include <cstdint>
#include <string_view>

#include "sim/env.hpp"

namespace hasim::druid {

struct EtcdResource {
  std::int32_t replicas = 0;    // spec.replicas
  std::int64_t generation = 1;  // metadata.generation: each accepted spec change adds one
  // len(initial-cluster) of druid's ConfigMap (configmap/etcdconfig.go prepareInitialCluster:
  // one entry per spec.replicas), which every pod mounts as etcd.conf.yaml: druid's reconcile
  // writes it before it syncs the StatefulSet; a sidecar reads it as the file
  // (miscellaneous.IsMultiNode, serveConfig, the server's OriginalClusterSize at start).
  std::int32_t configMapClusterSize = 0;
};

// The informer's update event for the Etcd: druid reconciles the spec it now reads.
struct EtcdSpecChanged final : MessageBody {
  std::string_view type() const override { return "etcd-spec-changed"; }
};

}  // namespace hasim::druid
