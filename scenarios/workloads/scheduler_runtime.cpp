// kube-scheduler's part of StatefulPods: places a pending pod with the filters and pick of
// models/cluster/pod_placement.hpp, binds it, and provisions its claim's volume on first use.
#include <string>

#include "scenarios/workloads/stateful_pods.hpp"
#include "scenarios/workloads/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim::workloads {

// kube-scheduler's podMaxInUnschedulablePodsDuration: an unschedulable pod is tried again at
// the latest this long after it failed, besides on the cluster events that may make it fit.
inline constexpr Duration kUnschedulableRetry = minutes(5);

cluster::PodSchedulingSpec StatefulPods::scheduling_spec(int ordinal) const {
  cluster::PodSchedulingSpec spec;
  spec.labels = set_.labels;
  for (const ContainerTemplate& c : set_.containers) {
    spec.requests.milliCpu += c.requests.milliCpu;
    spec.requests.memoryBytes += c.requests.memoryBytes;
  }
  spec.requiredAntiAffinity = set_.requiredAntiAffinity;
  spec.spreadSelector = set_.labels;
  const auto zone = claimZones_.find(ordinal);
  if (zone != claimZones_.end()) spec.volumeZone = zone->second;
  return spec;
}

void StatefulPods::schedule(int ordinal) {
  const auto it = pods_.find(ordinal);
  HASIM_ASSERT(it != pods_.end());
  Pod& pod = it->second;
  if (pod.node.has_value() || pod.terminating) return;
  std::vector<cluster::SchedulingNode> nodes;
  for (std::size_t w = 0; w < workers_.size(); ++w) {
    nodes.push_back(cluster::SchedulingNode{workers_[w].name, nodes_[w].zone,
                                            nodes_[w].up && !nodes_[w].notReady, nodes_[w].cordoned,
                                            workers_[w].allocatable});
  }
  std::vector<cluster::ScheduledPod> scheduled;
  for (const auto& [other, p] : pods_) {
    if (other == ordinal || !p.node.has_value()) continue;
    scheduled.push_back(cluster::ScheduledPod{workers_[*p.node].name, scheduling_spec(other)});
  }
  const cluster::Placement placement =
      cluster::place_pod(scheduling_spec(ordinal), nodes, scheduled, rng_.next_u64());
  if (placement.node.has_value()) return bind(ordinal, *placement.node);
  if (pod.unschedulable != placement.message) {
    pod.unschedulable = placement.message;
    trace(trace_kind::kPodUnschedulable, ordinal, {{"message", placement.message}});
  }
  // One pending flush per pod: a later failed attempt replaces it, as the pod's time in the
  // unschedulable queue starts again.
  const std::uint64_t generation = pod.generation;
  const std::uint64_t attempt = ++pod.scheduleAttempts;
  world_.at(world_.now() + kUnschedulableRetry, [this, ordinal, generation, attempt] {
    const auto again = pods_.find(ordinal);
    if (again == pods_.end() || again->second.generation != generation) return;
    if (again->second.scheduleAttempts == attempt) schedule(ordinal);
  });
}

// Cluster events that may make a pending pod fit (a pod gone, a node back): the scheduler
// moves its unschedulable pods back to the active queue.
void StatefulPods::retry_unschedulable() {
  for (const auto& [ordinal, pod] : pods_) {
    if (pod.node.has_value() || pod.terminating) continue;
    const int o = ordinal;
    const std::uint64_t generation = pod.generation;
    world_.at(world_.now() + timings_.controllerDelay, [this, o, generation] {
      const auto it = pods_.find(o);
      if (it != pods_.end() && it->second.generation == generation) schedule(o);
    });
  }
}

void StatefulPods::bind(int ordinal, std::size_t worker) {
  Pod& pod = pods_.at(ordinal);
  HASIM_ASSERT(!pod.node.has_value() && worker < workers_.size());
  pod.node = worker;
  pod.unschedulable.clear();
  const NodeId node = nodes_[worker].id;
  // The containers of the pod's last incarnation are stopped (remove_pod waited for them).
  for (const ProcessId process : ordinals_[ordinal].processes) {
    HASIM_ASSERT(world_.process_state(process) == ProcessState::stopped);
    world_.move_process(process, node);
  }
  trace(trace_kind::kPodScheduled, ordinal, {});  // on the node it is bound to
  attach_volume(ordinal, node);
  const std::uint64_t generation = pod.generation;
  world_.at(world_.now() + timings_.kubeletDelay,
            [this, ordinal, generation] { start_containers(ordinal, generation); });
}

// The data volume, on the pod's first placement: a claim's volume is provisioned in the
// node's zone and stays there; an emptyDir lives on the node's first disk (World::move_process
// re-creates it empty wherever the pod goes next).
void StatefulPods::attach_volume(int ordinal, NodeId node) {
  const std::vector<ProcessId>& processes = ordinals_[ordinal].processes;
  const ProcessId owner = processes.front();
  if (world_.find_volume(owner, set_.volumeName).has_value()) return;
  std::string disk;
  VolumeKind kind = VolumeKind::ephemeral;
  if (set_.volume == DataVolume::persistentVolumeClaim) {
    const std::string& zone = world_.node_zone(node);
    disk = "pv-" + set_.volumeName + "-" + pod_name(ordinal);
    world_.add_network_disk(zone, disk, set_.persistentDisk);
    claimZones_[ordinal] = zone;
    kind = VolumeKind::persistent;
    trace(trace_kind::kVolumeProvisioned, ordinal, {{"zone", zone}, {"disk", disk}});
  } else {
    disk = world_.disk_names(node).front();
  }
  const VolumeId volume = world_.add_volume(owner, set_.volumeName, disk, kind);
  for (std::size_t c = 1; c < processes.size(); ++c) world_.share_volume(volume, processes[c]);
}

bool StatefulPods::lose_volume(int ordinal) {
  HASIM_ASSERT(set_.volume == DataVolume::persistentVolumeClaim && !nodes_.empty());
  if (!claimZones_.contains(ordinal)) return false;
  const auto pod = pods_.find(ordinal);
  const bool placed = pod != pods_.end() && pod->second.node.has_value();
  // The trace names the node the pod runs on (a network disk belongs to none).
  const NodeId node = nodes_[placed ? *pod->second.node : 0].id;  // pod.node: a worker index
  world_.disk_loss(node, "pv-" + set_.volumeName + "-" + pod_name(ordinal), true);
  return true;
}

int StatefulPods::delete_claims() {
  int deleted = 0;
  for (const auto& [ordinal, zone] : claimZones_) {
    if (pods_.contains(ordinal)) continue;  // a claim in use waits for its pod (protection)
    const ProcessId owner = ordinals_[ordinal].processes.front();
    const auto volume = world_.find_volume(owner, set_.volumeName);
    HASIM_ASSERT(volume.has_value());
    world_.replace_volume_files(*volume, {});
    trace(trace_kind::kClaimDeleted, ordinal,
          {{"zone", zone}, {"disk", "pv-" + set_.volumeName + "-" + pod_name(ordinal)}});
    ++deleted;
  }
  HASIM_ASSERT(deleted <= static_cast<int>(claimZones_.size()));
  return deleted;
}

}  // namespace hasim::workloads
