#pragma once
// The CloudCore system's scenario section, "cloudcore" (scenarios/cloudcore/system.cpp).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/cloudcore/cloudcore.hpp"
#include "models/cloudcore/edgecore.hpp"

namespace hasim {

// "service": a Service over the pods' readiness; "keepalived": a VIP moved by VRRP with a
// /readyz check (models/cloudcore/keepalived.hpp).
enum class CloudLoadBalancer : std::uint8_t { service, keepalived };

// What the cloud wants on edge nodes (scenarios/cloudcore/workload.cpp): generated pods, each
// with its own ConfigMaps and Secrets, created before the run; random updates of them; and
// explicit changes at given times.
struct EdgeWorkload {
  int pods_per_node = 0;          // "podsPerNode": pods "<node>-pod-<i>" bound to each edge
  int config_maps_per_pod = 0;    // "configMapsPerPod": "<pod>-cm-<j>", referenced by the pod
  int secrets_per_pod = 0;        // "secretsPerPod": "<pod>-secret-<j>"
  std::optional<Duration> update_every;  // "updateEvery": one random object updated each time
  std::optional<Duration> update_until;  // "updateUntil": the last update (default: none after)
};
enum class EdgeChangeOp : std::uint8_t { create, update, delete_ };
struct EdgeObjectChange {
  Duration at{};
  EdgeChangeOp op = EdgeChangeOp::update;
  api::Kind kind = api::Kind::pod;
  std::string name;                     // in namespace "default"
  std::string node;                     // a created pod's edge node
  std::vector<std::string> config_maps;  // a created pod's references
  std::vector<std::string> secrets;
};
inline constexpr std::string_view kEdgeNamespace = "default";

// KubeEdge CloudCore in hot standby (models/cloudcore/): one CloudCore pod on each of `nodes`
// (HA Deployment, hostNetwork, anti-affinity), electing through the control plane's
// kube-apiservers, and EdgeCore on each of `edgeNodes`, reaching them through a load balancer.
struct CloudCoreSpec {
  static constexpr std::string_view kSection = "cloudcore";
  static constexpr std::string_view kProcess = "cloudcore";
  static constexpr std::string_view kEdgeProcess = "edgecore";
  static constexpr std::string_view kKeepalivedProcess = "keepalived";
  std::vector<std::string> nodes;
  std::vector<std::string> edge_nodes;
  cloudcore::CloudCoreConfig config;  // mode, election timings, informerSync, keepaliveInterval
  cloudcore::EdgeHubConfig edge;      // heartbeat
  CloudLoadBalancer load_balancer = CloudLoadBalancer::service;
  // The endpoints controller and kube-proxy: a readiness change reaches the load balancer
  // this long after the pod's status changed.
  Duration endpoints_delay = seconds(1);
  // The kubelet reports a started container ready this long after it started (PLEG relist,
  // 1s; the HA Deployment has no readiness probe).
  Duration container_ready_delay = seconds(1);
  EdgeWorkload workload;
  std::vector<EdgeObjectChange> object_changes;  // "objectChanges", in time order
};

// "cloudcore-<node>": the pod CloudCore runs in on `node` (CLOUDCORE_POD_NAME).
std::string cloudcore_pod_name(const std::string& node);

}  // namespace hasim
