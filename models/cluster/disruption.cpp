#include "models/cluster/disruption.hpp"

#include <algorithm>

#include "sim/assert.hpp"

namespace hasim::cluster {

std::string_view name(EvictionOutcome outcome) {
  switch (outcome) {
    case EvictionOutcome::DeletedIgnoringBudget:
      return "deleted-ignoring-budget";
    case EvictionOutcome::DeletedUnhealthy:
      return "deleted-unhealthy";
    case EvictionOutcome::DeletedWithinBudget:
      return "deleted-within-budget";
    case EvictionOutcome::TooManyRequests:
      return "too-many-requests";
  }
  HASIM_ASSERT(false && "unknown eviction outcome");
  return "";
}

PdbStatus compute_pdb_status(int minAvailable, const std::vector<BudgetPod>& pods,
                             const std::map<std::string, LocalTime>& disruptedPods, LocalTime now) {
  HASIM_ASSERT(minAvailable >= 0);
  PdbStatus status;
  status.expectedPods = static_cast<int>(pods.size());
  status.desiredHealthy = minAvailable;
  for (const BudgetPod& pod : pods) {
    // buildDisruptedPodMap: a pod now terminating, or whose expected deletion time has
    // passed ("NotDeleted"), leaves the map; a deleted pod is not in `pods` at all.
    const auto it = disruptedPods.find(pod.name);
    if (it == disruptedPods.end() || pod.terminating) continue;
    if (it->second + kDeletionTimeout < now) continue;
    status.disruptedPods.emplace(pod.name, it->second);
  }
  for (const BudgetPod& pod : pods) {
    // countHealthyPods: not terminating, not about to be deleted (After: strictly), Ready.
    if (pod.terminating) continue;
    const auto it = status.disruptedPods.find(pod.name);
    if (it != status.disruptedPods.end() && now < it->second + kDeletionTimeout) continue;
    if (pod.ready) ++status.currentHealthy;
  }
  // updatePdbStatus: no pods, or no headroom, allows nothing.
  const int headroom = status.currentHealthy - status.desiredHealthy;
  status.disruptionsAllowed = status.expectedPods <= 0 || headroom <= 0 ? 0 : headroom;
  HASIM_ASSERT(status.currentHealthy <= status.expectedPods);
  HASIM_ASSERT(status.disruptionsAllowed >= 0 && status.disruptedPods.size() <= pods.size());
  return status;
}

EvictionDecision evict(const BudgetPod& pod, const PdbStatus& status,
                       UnhealthyPodEvictionPolicy policy, bool observedCurrent, LocalTime now) {
  HASIM_ASSERT(status.disruptionsAllowed >= 0);
  EvictionDecision decision{EvictionOutcome::TooManyRequests, status};
  // canIgnorePDB: a terminal or Pending pod disrupts nothing, a terminating one is going.
  if (pod.phase != PodPhase::Running || pod.terminating) {
    decision.outcome = EvictionOutcome::DeletedIgnoringBudget;
    return decision;
  }
  // A pod that is not Ready does not count as healthy: with AlwaysAllow it may go, with
  // IfHealthyBudget (the default) only while the budget is met without it.
  if (!pod.ready &&
      (policy == UnhealthyPodEvictionPolicy::AlwaysAllow ||
       (status.currentHealthy >= status.desiredHealthy && status.desiredHealthy > 0))) {
    decision.outcome = EvictionOutcome::DeletedUnhealthy;
    return decision;
  }
  // checkAndDecrement.
  if (!observedCurrent || status.disruptionsAllowed == 0) return decision;
  --decision.status.disruptionsAllowed;
  decision.status.disruptedPods[pod.name] = now;
  decision.outcome = EvictionOutcome::DeletedWithinBudget;
  HASIM_ASSERT(decision.status.disruptionsAllowed >= 0);
  return decision;
}

}  // namespace hasim::cluster
