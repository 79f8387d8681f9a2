#pragma once
// What a Service's selector yields, as the EndpointSlice controller writes it and kube-proxy
// and CoreDNS read it (k8s.io/endpointslice: ShouldPodBeInEndpoints, podToEndpoint). etcd-druid
// gives each Etcd two Services: a headless peer Service with publishNotReadyAddresses (so
// members find each other by DNS while none is Ready yet, during a bootstrap) and a client
// Service that only routes to Ready pods.
#include <string>
#include <vector>

#include "models/cluster/statefulset_control.hpp"

namespace hasim::cluster {

// A pod the Service's selector matches.
struct EndpointPod {
  std::string name;
  PodPhase phase = PodPhase::Running;
  bool hasIp = true;         // status.podIP set (the sandbox runs)
  bool ready = false;        // the Ready condition
  bool terminating = false;  // deletionTimestamp set
};

struct Endpoint {
  std::string pod;
  bool ready = false;    // route new traffic here
  bool serving = false;  // the pod's own readiness, terminating or not
  bool terminating = false;
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

// The endpoints of one Service, by pod name: terminal pods and pods without an IP are left
// out; terminating ones stay (the EndpointSlice controller includes them) but are ready only
// with publishNotReadyAddresses, which makes every listed endpoint ready.
std::vector<Endpoint> service_endpoints(const std::vector<EndpointPod>& pods,
                                        bool publishNotReadyAddresses);

// kube-proxy's choice for a new connection: the ready endpoints; with none, the serving
// terminating ones (ProxyTerminatingEndpoints); otherwise none (the connection is refused).
std::vector<std::string> proxy_targets(const std::vector<Endpoint>& endpoints);

// A headless Service's DNS answer (CoreDNS kubernetes plugin): the ready endpoints.
std::vector<std::string> dns_records(const std::vector<Endpoint>& endpoints);

}  // namespace hasim::cluster
