// The StatefulSet controller's part of StatefulPods: syncs after every change it watches,
// creating and deleting pods as models/cluster/statefulset_control.hpp decides.
#include <algorithm>
#include <string>

#include "scenarios/workloads/stateful_pods.hpp"
#include "scenarios/workloads/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim::workloads {

StatefulPods::StatefulPods(World& world, StatefulSetTemplate set, std::vector<WorkerNode> workers,
                           std::vector<OrdinalContainers> ordinals, RuntimeTimings timings)
    : world_(world),
      set_(std::move(set)),
      workers_(std::move(workers)),
      ordinals_(std::move(ordinals)),
      timings_(timings),
      backoff_(timings.restart),
      rng_(world.fork_rng("workloads/" + set_.name)) {
  HASIM_ASSERT(!workers_.empty() && !set_.containers.empty());
  HASIM_ASSERT(set_.spec.replicas >= 0 &&
               static_cast<std::size_t>(set_.spec.replicas) <= ordinals_.size());
  for (const WorkerNode& worker : workers_) {
    const auto id = world.find_node(worker.name);
    HASIM_ASSERT(id.has_value());
    nodes_.push_back(Node{*id, world.node_zone(*id)});
  }
  for (std::size_t ordinal = 0; ordinal < ordinals_.size(); ++ordinal) {
    const OrdinalContainers& containers = ordinals_[ordinal];
    HASIM_ASSERT(containers.processes.size() == set_.containers.size());
    HASIM_ASSERT(containers.readinessAnswer.size() == set_.containers.size());
    for (std::size_t c = 0; c < containers.processes.size(); ++c) {
      const int o = static_cast<int>(ordinal);
      world.set_stop_handler(
          containers.processes[c],
          [this, o, c](ProcessId, StopReason reason, int) { on_stopped(o, c, reason); });
    }
  }
}

void StatefulPods::scale(int replicas) {
  HASIM_ASSERT(replicas >= 0 && static_cast<std::size_t>(replicas) <= ordinals_.size());
  set_.spec.replicas = replicas;
  trace(trace_kind::kSetScaled, -1, {{"replicas", std::int64_t{replicas}}});
  request_sync();
}

// The controller's work queue holds a set once: changes before the sync share it.
void StatefulPods::request_sync() {
  if (syncQueued_) return;
  syncQueued_ = true;
  world_.at(world_.now() + timings_.controllerDelay, [this] {
    syncQueued_ = false;
    sync();
  });
}

void StatefulPods::sync() {
  std::vector<cluster::StatefulPod> pods;
  for (const auto& [ordinal, pod] : pods_) {
    pods.push_back(cluster::StatefulPod{ordinal, pod.revision, pod.phase, pod.ready, pod.readySince,
                                        pod.terminating});
  }
  const LocalTime now{world_.now().ns};
  for (const cluster::SetAction& action : cluster::sync_stateful_set(set_.spec, pods, now)) {
    if (action.kind == cluster::SetAction::Kind::Create) {
      create_pod(action.ordinal, action.revision);
    } else {
      delete_pod(action.ordinal, cluster::name(action.reason));
    }
  }
  complete_rolling_update();
  // The disruption controller watches the same pods.
  sync_budget();
}

void StatefulPods::roll(std::string revision, bool pullFails) {
  HASIM_ASSERT(!revision.empty());
  if (revision == set_.spec.updateRevision) return;  // an unchanged template: nothing to roll
  if (pullFails) unpullable_.insert(revision);
  set_.spec.updateRevision = std::move(revision);
  trace(trace_kind::kSetRevision, -1,
        {{"update_revision", set_.spec.updateRevision},
         {"pull_fails", pullFails ? "true" : "false"}});
  request_sync();
}

// stateful_set_control.go completeRollingUpdate: once every replica is updated and ready,
// the update revision becomes the current one.
void StatefulPods::complete_rolling_update() {
  if (set_.spec.currentRevision == set_.spec.updateRevision) return;
  for (int ordinal = 0; ordinal < set_.spec.replicas; ++ordinal) {
    const auto it = pods_.find(ordinal);
    if (it == pods_.end() || it->second.revision != set_.spec.updateRevision) return;
    if (!it->second.ready) return;
  }
  set_.spec.currentRevision = set_.spec.updateRevision;
  trace(trace_kind::kSetRevision, -1, {{"current_revision", set_.spec.currentRevision}});
}

std::string StatefulPods::pod_name(int ordinal) const {
  return set_.name + "-" + std::to_string(ordinal);
}

std::string StatefulPods::uid(int ordinal) const {
  const auto it = pods_.find(ordinal);
  HASIM_ASSERT(it != pods_.end());
  return pod_name(ordinal) + "#" + std::to_string(it->second.generation);
}

void StatefulPods::create_pod(int ordinal, const std::string& revision) {
  HASIM_ASSERT(ordinal >= 0 && static_cast<std::size_t>(ordinal) < ordinals_.size());
  HASIM_ASSERT(!pods_.contains(ordinal));
  Pod& pod = pods_[ordinal];
  pod.generation = nextGeneration_++;
  pod.revision = revision;
  pod.containers.resize(set_.containers.size());
  trace(trace_kind::kPodCreate, ordinal, {{"revision", revision}});
  const std::uint64_t generation = pod.generation;
  // The scheduler sees the new pod through its own informer.
  world_.at(world_.now() + timings_.controllerDelay, [this, ordinal, generation] {
    const auto it = pods_.find(ordinal);
    if (it != pods_.end() && it->second.generation == generation) schedule(ordinal);
  });
}

void StatefulPods::delete_pod(int ordinal, std::string_view reason) {
  const auto it = pods_.find(ordinal);
  if (it == pods_.end() || it->second.terminating) return;
  Pod& pod = it->second;
  pod.terminating = true;
  trace(trace_kind::kPodDelete, ordinal, {{"reason", std::string(reason)}});
  // Not yet bound: nothing runs, the API server removes it at once.
  if (!pod.node.has_value()) return remove_pod(ordinal);
  if (!nodes_[*pod.node].up) return;  // the kubelet finishes it when the node is back
  terminate_containers(ordinal);
}

// The last container stopped (or none ran): the pod object is gone, its emptyDir with it.
void StatefulPods::remove_pod(int ordinal) {
  const auto it = pods_.find(ordinal);
  HASIM_ASSERT(it != pods_.end() && it->second.terminating);
  const OrdinalContainers& containers = ordinals_[ordinal];
  for (const ProcessId process : containers.processes) {
    HASIM_ASSERT(world_.process_state(process) == ProcessState::stopped);
  }
  // World::delete_pod wipes the volumes the first container owns unless persistent.
  if (it->second.node.has_value()) world_.delete_pod(containers.processes.front());
  trace(trace_kind::kPodGone, ordinal, {});
  pods_.erase(it);
  request_sync();
  retry_unschedulable();
}

void StatefulPods::trace(std::string_view kind, int ordinal, std::vector<TraceField> fields) {
  std::string node;
  if (ordinal >= 0) {
    const auto it = pods_.find(ordinal);
    if (it != pods_.end() && it->second.node.has_value()) {
      node = world_.node_name(nodes_[*it->second.node].id);
    }
    fields.insert(fields.begin(), TraceField{"pod", pod_name(ordinal)});
  } else {
    fields.insert(fields.begin(), TraceField{"set", set_.name});
  }
  world_.trace_fault(kind, node, std::move(fields));
}

std::optional<PodView> StatefulPods::pod(int ordinal) const {
  const auto it = pods_.find(ordinal);
  if (it == pods_.end()) return std::nullopt;
  const Pod& pod = it->second;
  PodView view;
  view.name = pod_name(ordinal);
  view.uid = uid(ordinal);
  if (pod.node.has_value()) view.node = workers_[*pod.node].name;
  view.phase = pod.phase;
  view.ready = pod.ready;
  view.containersReady = pod.ready;  // no readiness gates: Ready is ContainersReady
  view.terminating = pod.terminating;
  view.unschedulable = pod.unschedulable;
  return view;
}

std::vector<ProcessId> StatefulPods::ready_endpoints(std::size_t container) const {
  HASIM_ASSERT(container < set_.containers.size());
  std::vector<ProcessId> out;
  for (const auto& [ordinal, pod] : pods_) {
    // EndpointSlice: a terminating pod is not a ready endpoint of a normal Service.
    if (pod.ready && !pod.terminating) out.push_back(ordinals_[ordinal].processes[container]);
  }
  return out;
}

}  // namespace hasim::workloads
