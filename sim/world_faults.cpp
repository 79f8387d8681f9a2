// Fault injection: every fault is an explicit, traced step applied at now().
#include <algorithm>

#include "sim/assert.hpp"
#include "sim/trace_kinds.hpp"
#include "sim/world.hpp"

namespace hasim {
namespace {
std::string describe_cut(const std::vector<DirectedEdge>& cut, const World& world) {
  std::string out;
  for (const auto& [from, to] : cut) {
    if (!out.empty()) out += ' ';
    out += world.node_name(from) + "->" + world.node_name(to);
  }
  return out;
}
}  // namespace

void World::crash(ProcessId process, std::string_view reason) { kill(process, reason, true); }

void World::set_stop_handler(ProcessId process, StopHandler handler) {
  HASIM_ASSERT(process < processes_.size());
  HASIM_ASSERT(handler != nullptr);
  process_stop_handlers_[process] = std::move(handler);
}

const StopHandler& World::stop_handler_of(ProcessId process) const {
  const auto it = process_stop_handlers_.find(process);
  return it == process_stop_handlers_.end() ? stop_handler_ : it->second;
}

void World::kill(ProcessId process, std::string_view reason, bool tell_supervisor) {
  if (processes_.at(process).state == ProcessState::stopped) return;
  const bool terminated = processes_[process].terminating;
  stop(process);
  trace_process(process, trace_kind::kCrash, {{"reason", std::string(reason)}});
  const StopHandler& handler = stop_handler_of(process);
  if (tell_supervisor && handler) {
    handler(process, terminated ? StopReason::terminated : StopReason::crash, -1);
  }
}

void World::stop(ProcessId process) {
  ProcessSlot& slot = processes_.at(process);
  HASIM_ASSERT(slot.state != ProcessState::stopped);
  HASIM_ASSERT(!active_.has_value());
  for (auto& [id, timer] : slot.timers) {
    if (timer.event.valid()) HASIM_ASSERT(scheduler_.cancel(timer.event));
  }
  slot.timers.clear();
  slot.held.clear();
  slot.model.reset();  // volatile state is gone; durable state stays in slot.durable
  slot.rng.reset();
  slot.state = ProcessState::stopped;
  slot.exit_code.reset();
  slot.terminating = false;
  std::vector<ProcessId> peers;
  for (const auto& [a, b] : network_.open_connections()) {
    if (a != process && b != process) continue;
    network_.drop_connection(a, b);
    const ProcessId peer = a == process ? b : a;
    if (peer != process && processes_[peer].state != ProcessState::stopped) peers.push_back(peer);
  }
  if (!nodes_[slot.node].up) return;  // a powered-off node closes nothing
  for (ProcessId peer : peers) {
    send(process, peer, std::make_shared<ConnectionClosed>(), Transport::stream);
  }
}

void World::restart(ProcessId process) { start(process); }

void World::pause(ProcessId process) {
  ProcessSlot& slot = processes_.at(process);
  if (slot.state != ProcessState::running) return;
  slot.state = ProcessState::paused;
  trace_process(process, trace_kind::kPause, {});
}

void World::resume(ProcessId process) {
  ProcessSlot& slot = processes_.at(process);
  if (slot.state != ProcessState::paused) return;
  slot.state = ProcessState::running;
  trace_process(process, trace_kind::kResume,
                {{"held", static_cast<std::int64_t>(slot.held.size())}});
  deliver_held(process);
}

void World::node_down(NodeId node) {
  NodeSlot& slot = nodes_.at(node);
  if (!slot.up) return;
  slot.up = false;
  trace_world(trace_kind::kNodeDown, slot.name, {});
  for (ProcessId process : slot.processes) kill(process, "node-down", false);
  power_loss(node);
}

void World::node_up(NodeId node) {
  NodeSlot& slot = nodes_.at(node);
  if (slot.up) return;
  slot.up = true;
  trace_world(trace_kind::kNodeUp, slot.name, {});
  for (ProcessId process : slot.processes) {
    if (processes_[process].start_policy == StartPolicy::with_node) start(process);
  }
}

void World::clock_step(NodeId node, Duration delta) {
  NodeSlot& slot = nodes_.at(node);
  const std::int64_t was_ns = slot.clock.wall(now()).ns;
  slot.clock.step(now(), delta);
  // Timers run on the monotonic clock, which a step does not move: nothing to reschedule.
  // The readings before and after, for properties/kernel/clock_steps.hpp.
  trace_world(trace_kind::kClockStep, slot.name,
              {{"by_ns", delta.ns}, {"wall_ns", slot.clock.wall(now()).ns}, {"was_ns", was_ns}});
}

void World::clock_rate(NodeId node, std::int64_t rate_ppb) {
  NodeSlot& slot = nodes_.at(node);
  slot.clock.set_rate(now(), rate_ppb);
  // Pending timers keep their local deadlines; their true firing times move.
  for (ProcessId process : slot.processes) {
    for (auto& [id, timer] : processes_[process].timers) {
      if (!timer.event.valid()) continue;  // already fired while paused
      HASIM_ASSERT(scheduler_.cancel(timer.event));
      TrueTime at = slot.clock.true_time_of_monotonic(timer.deadline);
      if (at < now()) at = now();
      timer.event = scheduler_.schedule(at, kTimer, process, id);
    }
  }
  trace_world(trace_kind::kClockRate, slot.name, {{"rate_ppb", rate_ppb}});
}

std::uint64_t World::partition(std::vector<DirectedEdge> cut, std::vector<TraceField> shape) {
  const std::string description = describe_cut(cut, *this);
  const std::uint64_t id = network_.reachability().add_cut(std::move(cut));
  std::vector<TraceField> fields{{"cut", static_cast<std::int64_t>(id)}, {"edges", description}};
  for (TraceField& field : shape) fields.push_back(std::move(field));
  trace_world(trace_kind::kPartition, {}, std::move(fields));
  drop_unreachable_connections();
  return id;
}

void World::heal(std::uint64_t cut_id) {
  if (!network_.reachability().remove_cut(cut_id)) return;
  trace_world(trace_kind::kHeal, {}, {{"cut", static_cast<std::int64_t>(cut_id)}});
}

void World::heal_all() {
  network_.reachability().remove_all_cuts();
  trace_world(trace_kind::kHeal, {}, {{"cut", std::string("all")}});
}

void World::drop_unreachable_connections() {
  for (const auto& [a, b] : network_.open_connections()) {
    const NodeId node_a = processes_[a].node;
    const NodeId node_b = processes_[b].node;
    if (reachable(node_a, node_b) && reachable(node_b, node_a)) continue;
    network_.drop_connection(a, b);
    trace_world(trace_kind::kConnectionDrop, {},
                {{"a", processes_[a].qualified}, {"b", processes_[b].qualified}});
  }
}

void World::disk_loss(NodeId node) {
  NodeSlot& slot = nodes_.at(node);
  trace_world(trace_kind::kDiskLoss, slot.name, {});
  // The node's processes, and whoever else mounts a volume on its disks (a sharer moved off
  // ahead of its owner), in id order: every process that loses a volume dies of it.
  std::vector<ProcessId> doomed = slot.processes;
  for (VolumeId v = 0; v < volumes_.size(); ++v) {
    if (disks_[volumes_[v].disk].node != node) continue;
    for (ProcessId p : mounters(v)) doomed.push_back(p);
  }
  std::sort(doomed.begin(), doomed.end());
  doomed.erase(std::unique(doomed.begin(), doomed.end()), doomed.end());
  for (ProcessId process : doomed) kill(process, "disk-loss", false);
  for (ProcessId process : slot.processes) {
    processes_[process].durable.entries.clear();
    ++processes_[process].durable.wipes;
  }
  for (VolumeId v = 0; v < volumes_.size(); ++v) {
    if (disks_[volumes_[v].disk].node == node) wipe_volume(v);
  }
}

void World::drop_connections(NodeId node) {
  trace_world(trace_kind::kDropConnections, nodes_.at(node).name, {});
  for (const auto& [a, b] : network_.open_connections()) {
    if (processes_[a].node == node || processes_[b].node == node) {
      network_.drop_connection(a, b);
      trace_world(trace_kind::kConnectionDrop, {},
                  {{"a", processes_[a].qualified}, {"b", processes_[b].qualified}});
    }
  }
}

}  // namespace hasim
