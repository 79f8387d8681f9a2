#pragma once
// The load balancer in front of the CloudCores, Service flavour: a Service whose ready
// endpoints follow the CloudCore pods' readiness (readiness.hpp). The endpoints controller
// sees a pod's readiness change through its informer and rewrites the Endpoints; kube-proxy
// on each edge path then programs its rules: `propagation` stands for both delays. A new
// connection lands on one ready endpoint at random (kube-proxy iptables mode: a statistic
// match per endpoint gives each the same probability); with none, kube-proxy rejects it.
// An established connection is not moved when its endpoint stops being ready.
#include <optional>
#include <set>
#include <string>

#include "sim/rng.hpp"

namespace hasim::cloudcore {

class ServiceEndpoints {
 public:
  static constexpr std::size_t kMaxEndpoints = 1024;
  // The backend a new connection reaches, drawn from the dialler's stream.
  std::optional<std::string> pick(Rng& rng) const;
  // Sets `process` ("node/cloudcore") ready or not; true if that changed anything.
  bool set_ready(const std::string& process, bool ready);
  const std::set<std::string>& ready() const { return ready_; }

 private:
  std::set<std::string> ready_;  // ordered: a draw depends on nothing but the set
};

}  // namespace hasim::cloudcore
