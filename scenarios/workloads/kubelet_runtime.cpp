// The kubelets' and the node lifecycle controller's part of StatefulPods: containers started,
// probed, restarted with back-off and stopped for a deletion; nodes that go down and return.
#include <string>

#include "models/cluster/trace_kinds.hpp"
#include "scenarios/workloads/stateful_pods.hpp"
#include "scenarios/workloads/trace_kinds.hpp"
#include "sim/assert.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim::workloads {

void StatefulPods::start_containers(int ordinal, std::uint64_t generation) {
  const auto it = pods_.find(ordinal);
  if (it == pods_.end() || it->second.generation != generation) return;
  Pod& pod = it->second;
  HASIM_ASSERT(pod.node.has_value());
  if (pod.terminating || !nodes_[*pod.node].up) return;  // node_up starts it again
  if (unpullable_.contains(pod.revision)) {
    // ErrImagePull, then ImagePullBackOff: the containers wait and the pod stays Pending.
    trace(trace_kind::kImagePullBackOff, ordinal, {{"revision", pod.revision}});
    return;
  }
  const bool first = pod.phase == cluster::PodPhase::Pending;
  pod.phase = cluster::PodPhase::Running;
  for (std::size_t c = 0; c < pod.containers.size(); ++c) {
    const ProcessId process = ordinals_[ordinal].processes[c];
    if (world_.process_state(process) != ProcessState::stopped) continue;
    pod.containers[c].running = true;
    start_container(process);
  }
  if (!first) return;
  // The prober's workers start with the pod and probe at once, then every period.
  for (std::size_t c = 0; c < pod.containers.size(); ++c) {
    const auto& spec = set_.containers[c].readiness;
    if (!spec.has_value()) continue;
    pod.containers[c].readiness.emplace(cluster::ProbeType::Readiness, *spec);
    probe(ordinal, c, generation);
  }
  update_ready(ordinal);
}

// The container runtime starts the process; one in a crash loop exits right after.
void StatefulPods::start_container(ProcessId process) {
  world_.restart(process);
  const auto it = crashing_.find(process);
  if (it == crashing_.end() || world_.now() >= it->second) return;
  world_.at(world_.now(), [this, process] {
    if (world_.process_state(process) != ProcessState::stopped) world_.crash(process, "crash-loop");
  });
}

void StatefulPods::crash_loop(int ordinal, std::size_t container, TrueTime until) {
  HASIM_ASSERT(ordinal >= 0 && static_cast<std::size_t>(ordinal) < ordinals_.size());
  HASIM_ASSERT(container < set_.containers.size() && until > world_.now());
  const ProcessId process = ordinals_[ordinal].processes[container];
  crashing_[process] = until;
  trace(trace_kind::kCrashLoop, ordinal,
        {{"container", set_.containers[container].name}, {"until_ns", until.ns}});
  if (world_.process_state(process) != ProcessState::stopped) world_.crash(process, "crash-loop");
}

void StatefulPods::probe(int ordinal, std::size_t c, std::uint64_t generation) {
  const auto it = pods_.find(ordinal);
  if (it == pods_.end() || it->second.generation != generation) return;
  Pod& pod = it->second;
  Container& container = pod.containers[c];
  HASIM_ASSERT(container.readiness.has_value());
  const ProcessId process = ordinals_[ordinal].processes[c];
  const ProcessState state = world_.process_state(process);
  cluster::ProbedContainer probed;
  probed.containerId =
      uid(ordinal) + "/" + set_.containers[c].name + "/" + std::to_string(container.restarts);
  probed.running = container.running;
  probed.terminated = !container.running;
  probed.started = container.running;
  cluster::ProbedPod probedPod{pod.phase, pod.terminating, false};
  const LocalTime now{world_.now().ns};
  const auto before = container.readiness->before(probedPod, probed, now);
  if (!before.keepGoing) return;
  // The kubelet of a node that is down probes nothing; its results stay as they were.
  if (before.probe && nodes_[*pod.node].up) {
    // A paused container does not answer: the probe times out.
    const bool ok = state == ProcessState::running && ordinals_[ordinal].readinessAnswer[c]();
    container.readiness->after(ok ? cluster::ProbeResult::Success : cluster::ProbeResult::Failure);
    container.result = container.readiness->result();
    update_ready(ordinal);
  }
  const Duration period = seconds(set_.containers[c].readiness->periodSeconds);
  world_.at(world_.now() + period,
            [this, ordinal, c, generation] { probe(ordinal, c, generation); });
}

void StatefulPods::update_ready(int ordinal) {
  Pod& pod = pods_.at(ordinal);
  std::vector<cluster::ContainerReadiness> readiness;
  for (std::size_t c = 0; c < pod.containers.size(); ++c) {
    const Container& container = pod.containers[c];
    readiness.push_back(cluster::ContainerReadiness{container.running, container.running,
                                                    set_.containers[c].readiness.has_value(),
                                                    container.result});
  }
  const bool notReadyNode = pod.node.has_value() && nodes_[*pod.node].notReady;
  const bool ready = cluster::containers_ready(readiness) && !notReadyNode;
  if (ready == pod.ready) return;
  pod.ready = ready;
  if (ready) pod.readySince = LocalTime{world_.now().ns};
  trace(ready ? trace_kind::kPodReady : trace_kind::kPodNotReady, ordinal, {});
  request_sync();
}

void StatefulPods::on_stopped(int ordinal, std::size_t c, StopReason reason) {
  const auto it = pods_.find(ordinal);
  if (it == pods_.end()) return;
  Pod& pod = it->second;
  // A stop of the previous incarnation's container reported after that pod went (a disk loss
  // reports each container of a terminating pod in turn, and the first report removed it):
  // the new pod, not yet bound, ran nothing.
  if (!pod.node.has_value()) return;
  pod.containers[c].running = false;
  pod.containers[c].result = cluster::ProbeResult::Unknown;
  update_ready(ordinal);
  if (pod.terminating) {
    for (const ProcessId process : ordinals_[ordinal].processes) {
      if (world_.process_state(process) != ProcessState::stopped) return;
    }
    return remove_pod(ordinal);
  }
  (void)reason;  // restartPolicy Always: whatever the exit
  const ProcessId process = ordinals_[ordinal].processes[c];
  // flowcontrol.Backoff keys a container by pod UID and name: a new pod starts afresh.
  const std::uint64_t key = (pod.generation << 8) | c;
  const Duration delay = backoff_.restart_delay(key, world_.now());
  const cluster::BackoffPolicy& policy = timings_.restart;
  world_.trace_fault(cluster::trace_kind::kKubeletRestart,
                     world_.node_name(world_.process_node(process)),
                     {{"process", world_.process_name(process)},
                      {"after_ns", delay.ns},
                      {"backoff_ns", policy.initial.ns},
                      {"max_ns", policy.max.ns},
                      {"reset_ns", policy.reset_after.ns}});
  const std::uint64_t generation = pod.generation;
  world_.at(world_.now() + delay, [this, ordinal, c, generation, process] {
    const auto again = pods_.find(ordinal);
    if (again == pods_.end() || again->second.generation != generation) return;
    Pod& p = again->second;
    if (p.terminating || !p.node.has_value() || !nodes_[*p.node].up) return;
    if (world_.process_state(process) != ProcessState::stopped) return;
    ++p.containers[c].restarts;
    p.containers[c].running = true;
    start_container(process);
  });
}

void StatefulPods::terminate_containers(int ordinal) {
  bool any = false;
  for (const ProcessId process : ordinals_[ordinal].processes) {
    if (world_.process_state(process) == ProcessState::stopped) continue;
    any = true;
    world_.terminate(process, set_.terminationGracePeriod);
  }
  if (!any) remove_pod(ordinal);
}

bool StatefulPods::wants(std::string_view kind) const {
  return kind == hasim::trace_kind::kNodeDown || kind == hasim::trace_kind::kNodeUp;
}

void StatefulPods::on_event(const TraceEvent& event) {
  if (!wants(event.kind)) return;
  for (std::size_t w = 0; w < workers_.size(); ++w) {
    if (workers_[w].name != event.node) continue;
    const bool down = event.kind == hasim::trace_kind::kNodeDown;
    // After the fault's own step: the World is then consistent again.
    world_.at(event.t, [this, w, down] { down ? node_down(w) : node_up(w); });
  }
}

void StatefulPods::node_down(std::size_t w) {
  Node& node = nodes_[w];
  node.up = false;
  const std::uint64_t outage = ++node.downSince;
  for (auto& [ordinal, pod] : pods_) {
    if (pod.node != w) continue;
    for (Container& container : pod.containers) container.running = false;
  }
  world_.at(world_.now() + timings_.nodeMonitorGracePeriod,
            [this, w, outage] { node_lifecycle(w, outage); });
}

// The node lifecycle controller: NotReady after the grace period (its pods' Ready goes
// False), then the not-ready taint's NoExecute eviction after the pods' toleration.
void StatefulPods::node_lifecycle(std::size_t w, std::uint64_t outage) {
  Node& node = nodes_[w];
  if (node.up || node.downSince != outage) return;
  if (!node.notReady) {
    node.notReady = true;
    world_.trace_fault(trace_kind::kNodeNotReady, workers_[w].name, {});
    for (const auto& [ordinal, pod] : pods_) {
      if (pod.node == w) update_ready(ordinal);
    }
    world_.at(world_.now() + timings_.notReadyToleration,
              [this, w, outage] { node_lifecycle(w, outage); });
    return;
  }
  std::vector<int> evicted;
  for (const auto& [ordinal, pod] : pods_) {
    if (pod.node == w && !pod.terminating) evicted.push_back(ordinal);
  }
  for (const int ordinal : evicted) delete_pod(ordinal, "taint-eviction");
}

void StatefulPods::node_up(std::size_t w) {
  Node& node = nodes_[w];
  node.up = true;
  if (node.notReady) {
    node.notReady = false;
    world_.trace_fault(trace_kind::kNodeReady, workers_[w].name, {});
  }
  std::vector<int> here;
  for (const auto& [ordinal, pod] : pods_) {
    if (pod.node == w) here.push_back(ordinal);
  }
  for (const int ordinal : here) {
    Pod& pod = pods_.at(ordinal);
    if (pod.terminating) {
      terminate_containers(ordinal);  // nothing runs after the reboot: the pod goes now
      continue;
    }
    update_ready(ordinal);
    const std::uint64_t generation = pod.generation;
    world_.at(world_.now() + timings_.kubeletDelay,
              [this, ordinal, generation] { start_containers(ordinal, generation); });
  }
  retry_unschedulable();
}

}  // namespace hasim::workloads
