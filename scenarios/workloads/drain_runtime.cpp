// The disruption controller, the eviction subresource and `kubectl drain` over StatefulPods:
// the budget's status follows the pods (models/cluster/disruption.hpp), an eviction asks it,
// and a drain cordons the node and runs kubectl's per-pod eviction loop on each of the set's
// pods there (models/cluster/drain.hpp). A plain deletion never asks the budget.
#include <string>

#include "scenarios/workloads/stateful_pods.hpp"
#include "scenarios/workloads/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim::workloads {

// disruption.go: the controller syncs the budget when a pod it selects changes.
void StatefulPods::sync_budget() {
  if (!set_.budgetMinAvailable) return;
  std::vector<cluster::BudgetPod> pods;
  for (const auto& [ordinal, pod] : pods_) {
    pods.push_back(cluster::BudgetPod{pod_name(ordinal), pod.phase, pod.ready, pod.terminating});
  }
  const int minAvailable = set_.budgetMinAvailable(set_.spec.replicas);
  const std::map<std::string, LocalTime> none;
  const cluster::PdbStatus status = cluster::compute_pdb_status(
      minAvailable, pods, budget_ ? budget_->disruptedPods : none, LocalTime{world_.now().ns});
  const bool changed = !budget_ || budget_->currentHealthy != status.currentHealthy ||
                       budget_->desiredHealthy != status.desiredHealthy ||
                       budget_->disruptionsAllowed != status.disruptionsAllowed;
  budget_ = status;
  if (!changed) return;
  trace(trace_kind::kPdbStatus, -1,
        {{"current_healthy", std::int64_t{status.currentHealthy}},
         {"desired_healthy", std::int64_t{status.desiredHealthy}},
         {"disruptions_allowed", std::int64_t{status.disruptionsAllowed}}});
}

// POST pods/NAME/eviction (eviction.go): the budget decides; an accepted eviction is a
// graceful deletion.
cluster::EvictionResponse StatefulPods::evict(int ordinal) {
  const auto it = pods_.find(ordinal);
  if (it == pods_.end()) return cluster::EvictionResponse::NotFound;
  const Pod& pod = it->second;
  if (!set_.budgetMinAvailable || !budget_) {
    trace(trace_kind::kPodEviction, ordinal, {{"outcome", "NoBudget"}});
    delete_pod(ordinal, "eviction");
    return cluster::EvictionResponse::Accepted;
  }
  const cluster::BudgetPod target{pod_name(ordinal), pod.phase, pod.ready, pod.terminating};
  const cluster::EvictionDecision decision = cluster::evict(
      target, *budget_, set_.unhealthyPodEvictionPolicy, true, LocalTime{world_.now().ns});
  trace(trace_kind::kPodEviction, ordinal,
        {{"outcome", std::string(cluster::name(decision.outcome))},
         {"disruptions_allowed", std::int64_t{decision.status.disruptionsAllowed}}});
  if (!decision.deleted()) return cluster::EvictionResponse::TooManyRequests;
  budget_ = decision.status;
  delete_pod(ordinal, "eviction");
  return cluster::EvictionResponse::Accepted;
}

std::optional<std::size_t> StatefulPods::worker_index(const std::string& node) const {
  for (std::size_t w = 0; w < workers_.size(); ++w) {
    if (workers_[w].name == node) return w;
  }
  return std::nullopt;
}

void StatefulPods::drain(const std::string& node, const cluster::DrainOptions& options) {
  const auto w = worker_index(node);
  HASIM_ASSERT(w.has_value());
  nodes_[*w].cordoned = true;
  world_.trace_fault(trace_kind::kCordon, node, {});
  std::vector<cluster::DrainCandidate> candidates;
  std::map<std::string, int> ordinal_of;
  for (const auto& [ordinal, pod] : pods_) {
    if (pod.node != *w) continue;
    const bool terminal =
        pod.phase == cluster::PodPhase::Succeeded || pod.phase == cluster::PodPhase::Failed;
    candidates.push_back(cluster::DrainCandidate{
        pod_name(ordinal), false, false, set_.volume == DataVolume::emptyDir, true, terminal});
    ordinal_of[pod_name(ordinal)] = ordinal;
  }
  const cluster::DrainSelection selection = cluster::select_drain_pods(candidates, options);
  if (!selection.refused.empty()) {
    world_.trace_fault(trace_kind::kDrain, node,
                       {{"result", "refused"}, {"why", selection.refused.front().second}});
    return;
  }
  auto left = std::make_shared<int>(static_cast<int>(selection.evict.size()));
  world_.trace_fault(trace_kind::kDrain, node,
                     {{"result", "started"}, {"pods", std::int64_t{*left}}});
  if (*left == 0) world_.trace_fault(trace_kind::kDrain, node, {{"result", "done"}});
  std::optional<LocalTime> deadline;
  if (options.timeout.ns > 0) deadline = LocalTime{(world_.now() + options.timeout).ns};
  for (const std::string& name : selection.evict) {
    const int ordinal = ordinal_of.at(name);
    auto loop = std::make_shared<cluster::PodEvictionLoop>(deadline);
    const auto first = loop->next_try(LocalTime{world_.now().ns});
    drain_step(ordinal, pods_.at(ordinal).generation, loop, first, left, node);
  }
}

void StatefulPods::drain_step(int ordinal, std::uint64_t generation,
                              std::shared_ptr<cluster::PodEvictionLoop> loop,
                              cluster::PodEvictionLoop::Step step, std::shared_ptr<int> left,
                              std::string node) {
  using Next = cluster::PodEvictionLoop::Next;
  switch (step.next) {
    case Next::Evict:
      return drain_step(ordinal, generation, loop, loop->on_eviction(evict(ordinal)), left, node);
    case Next::EvictAfter:
      world_.at(world_.now() + step.wait, [this, ordinal, generation, loop, left, node] {
        drain_step(ordinal, generation, loop, loop->next_try(LocalTime{world_.now().ns}), left,
                   node);
      });
      return;
    case Next::PollAfter:
      world_.at(world_.now() + step.wait, [this, ordinal, generation, loop, left, node] {
        // Gone: not found, or a new pod of the same name (the set's replacement).
        const auto it = pods_.find(ordinal);
        const bool gone = it == pods_.end() || it->second.generation != generation;
        drain_step(ordinal, generation, loop, loop->on_poll(gone, LocalTime{world_.now().ns}), left,
                   node);
      });
      return;
    case Next::Done:
    case Next::Failed:
      break;
  }
  const bool done = step.next == Next::Done;
  world_.trace_fault(trace_kind::kDrain, node,
                     {{"result", done ? "evicted" : "failed"},
                      {"pod", pod_name(ordinal)},
                      {"attempts", std::int64_t{loop->attempts()}},
                      {"why", done ? std::string() : loop->failure()}});
  HASIM_ASSERT(*left > 0);
  if (--*left == 0) world_.trace_fault(trace_kind::kDrain, node, {{"result", "done"}});
}

void StatefulPods::uncordon(const std::string& node) {
  const auto w = worker_index(node);
  HASIM_ASSERT(w.has_value());
  if (!nodes_[*w].cordoned) return;
  nodes_[*w].cordoned = false;
  world_.trace_fault(trace_kind::kUncordon, node, {});
  retry_unschedulable();
}

}  // namespace hasim::workloads
