#pragma once
// PodDisruptionBudgets with an integer minAvailable, as Kubernetes enforces them:
//  - the disruption controller's status (pkg/controller/disruption/disruption.go:
//    countHealthyPods, buildDisruptedPodMap, updatePdbStatus);
//  - the eviction subresource's decision (pkg/registry/core/pod/storage/eviction.go:
//    canIgnorePDB, the unhealthy-pod rule, checkAndDecrement).
// A drain evicts through the subresource; a plain DELETE (a StatefulSet rolling update, an
// operator, a node failure) never asks the budget. Pure: the caller stores the status.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/cluster/statefulset_control.hpp"
#include "sim/time.hpp"

namespace hasim::cluster {

// disruption.go DeletionTimeout: an eviction not followed by a deletion within 2 min no
// longer keeps its pod out of currentHealthy.
inline constexpr Duration kDeletionTimeout = minutes(2);

// What the budget sees of a pod its selector matches.
struct BudgetPod {
  std::string name;
  PodPhase phase = PodPhase::Running;
  bool ready = false;
  bool terminating = false;  // deletionTimestamp set
};

enum class UnhealthyPodEvictionPolicy { IfHealthyBudget, AlwaysAllow };

struct PdbStatus {
  int expectedPods = 0;  // integer minAvailable: the number of matching pods
  int currentHealthy = 0;
  int desiredHealthy = 0;  // minAvailable
  int disruptionsAllowed = 0;
  std::map<std::string, LocalTime> disruptedPods;  // evicted, not yet deleted
  friend bool operator==(const PdbStatus&, const PdbStatus&) = default;
};

// The controller's sync: keeps the disrupted pods still expected to go (not deleted, not
// terminating, evicted less than kDeletionTimeout ago) and counts the healthy ones.
PdbStatus compute_pdb_status(int minAvailable, const std::vector<BudgetPod>& pods,
                             const std::map<std::string, LocalTime>& disruptedPods, LocalTime now);

enum class EvictionOutcome {
  DeletedIgnoringBudget,  // terminal, Pending or terminating: no budget to consult
  DeletedUnhealthy,       // not Ready, and the policy or a healthy budget allows it
  DeletedWithinBudget,    // disruptionsAllowed was decremented
  TooManyRequests,        // 429: the budget allows no disruption now (or is stale)
};
std::string_view name(EvictionOutcome outcome);

struct EvictionDecision {
  EvictionOutcome outcome = EvictionOutcome::TooManyRequests;
  PdbStatus status;  // the budget after the call (decremented, the pod recorded)
  bool deleted() const { return outcome != EvictionOutcome::TooManyRequests; }
};

// POST .../pods/NAME/eviction for a pod one budget selects. `observedCurrent` is false when
// the controller has not yet observed the budget's latest generation (a 429 too).
EvictionDecision evict(const BudgetPod& pod, const PdbStatus& status,
                       UnhealthyPodEvictionPolicy policy, bool observedCurrent, LocalTime now);

}  // namespace hasim::cluster
