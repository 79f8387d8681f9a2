#include "models/cluster/service_endpoints.hpp"

#include <algorithm>

#include "sim/assert.hpp"

namespace hasim::cluster {

std::vector<Endpoint> service_endpoints(const std::vector<EndpointPod>& pods,
                                        bool publishNotReadyAddresses) {
  std::vector<Endpoint> out;
  for (const EndpointPod& pod : pods) {
    // ShouldPodBeInEndpoints(pod, includeTerminating = true).
    if (pod.phase == PodPhase::Succeeded || pod.phase == PodPhase::Failed) continue;
    if (!pod.hasIp) continue;
    // podToEndpoint: a terminating pod is never ready unless the Service publishes
    // not-ready addresses; serving keeps the pod's own readiness.
    const bool ready = publishNotReadyAddresses || (pod.ready && !pod.terminating);
    out.push_back(Endpoint{pod.name, ready, pod.ready, pod.terminating});
  }
  std::sort(out.begin(), out.end(),
            [](const Endpoint& a, const Endpoint& b) { return a.pod < b.pod; });
  HASIM_ASSERT(std::adjacent_find(out.begin(), out.end(), [](const Endpoint& a, const Endpoint& b) {
                 return a.pod == b.pod;
               }) == out.end());
  HASIM_ASSERT(out.size() <= pods.size());
  return out;
}

std::vector<std::string> proxy_targets(const std::vector<Endpoint>& endpoints) {
  std::vector<std::string> ready;
  std::vector<std::string> fallback;
  for (const Endpoint& e : endpoints) {
    if (e.ready)
      ready.push_back(e.pod);
    else if (e.serving && e.terminating)
      fallback.push_back(e.pod);
  }
  return ready.empty() ? fallback : ready;
}

std::vector<std::string> dns_records(const std::vector<Endpoint>& endpoints) {
  std::vector<std::string> records;
  for (const Endpoint& e : endpoints) {
    if (e.ready) records.push_back(e.pod);
  }
  return records;
}

}  // namespace hasim::cluster
