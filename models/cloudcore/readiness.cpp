#include "models/cloudcore/readiness.hpp"

#include "sim/assert.hpp"

namespace hasim::cloudcore {

std::optional<std::string> pod_not_ready(const api::Object& pod, bool containers_ready) {
  HASIM_ASSERT(pod.key.kind == api::Kind::pod);
  if (!containers_ready) return "containers not ready";
  // GeneratePodReadyCondition: a gate whose condition is missing counts as not True.
  for (const std::string& gate : pod.pod.readinessGates) {
    const auto it = pod.pod.conditions.find(gate);
    if (it == pod.pod.conditions.end()) return gate + " is missing";
    if (it->second != kConditionTrue) return gate + " is " + it->second;
  }
  return std::nullopt;
}

std::optional<std::string> readyz_check(const election::LeaderElector* elector, Env& env,
                                        Duration timeout) {
  HASIM_ASSERT(timeout.ns >= 0);
  if (elector == nullptr) return "leaderElection is not setting";
  if (!elector->is_leader()) return "not yet a leader";
  return elector->check(env, timeout);
}

}  // namespace hasim::cloudcore
