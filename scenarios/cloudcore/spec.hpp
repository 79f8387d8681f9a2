#pragma once
// The CloudCore system's scenario section, "cloudcore" (scenarios/cloudcore/system.cpp).
#include <string>
#include <string_view>
#include <vector>

#include "models/cloudcore/cloudcore.hpp"
#include "models/cloudcore/edgecore.hpp"

namespace hasim {

// "service": a Service over the pods' readiness; "keepalived": a VIP moved by VRRP with a
// /readyz check (models/cloudcore/keepalived.hpp).
enum class CloudLoadBalancer : std::uint8_t { service, keepalived };

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
};

// "cloudcore-<node>": the pod CloudCore runs in on `node` (CLOUDCORE_POD_NAME).
std::string cloudcore_pod_name(const std::string& node);

}  // namespace hasim
