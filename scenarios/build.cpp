#include "scenarios/build.hpp"

#include "models/demo/heartbeat.hpp"
#include "scenarios/build_control_plane.hpp"
#include "sim/assert.hpp"

#include <set>

namespace hasim {
namespace {

NodeId node_of(const World& world, const std::string& name) {
  const auto node = world.find_node(name);
  HASIM_ASSERT(node.has_value());  // the loader resolved every name
  return *node;
}

std::vector<NodeId> nodes_of(const World& world, const std::vector<std::string>& names) {
  std::vector<NodeId> ids;
  for (const std::string& name : names) ids.push_back(node_of(world, name));
  return ids;
}

// A target is a node name (every process on it) or "node/process".
std::vector<ProcessId> processes_of(const World& world, const std::vector<std::string>& targets) {
  std::vector<ProcessId> ids;
  for (const std::string& target : targets) {
    if (const auto process = world.find_process(target)) {
      ids.push_back(*process);
      continue;
    }
    for (ProcessId id : world.processes_on(node_of(world, target))) ids.push_back(id);
  }
  return ids;
}

std::vector<DirectedEdge> cut_of(const World& world, const FaultSpec& fault) {
  switch (fault.partition_mode) {
    case FaultSpec::PartitionMode::isolate:
      return Reachability::isolate(nodes_of(world, fault.targets), world.node_count());
    case FaultSpec::PartitionMode::groups: {
      std::vector<std::vector<NodeId>> groups;
      for (const auto& group : fault.groups) groups.push_back(nodes_of(world, group));
      return Reachability::between_groups(groups);
    }
    case FaultSpec::PartitionMode::oneway:
      return Reachability::one_way(nodes_of(world, fault.from), nodes_of(world, fault.to));
  }
  return {};
}

void add_heartbeat(World& world, const Scenario& scenario) {
  if (!scenario.heartbeat) return;
  for (NodeId node = 0; node < world.node_count(); ++node) {
    HeartbeatConfig config{scenario.heartbeat->interval, scenario.heartbeat->timeout, {}};
    for (NodeId peer = 0; peer < world.node_count(); ++peer) {
      if (peer != node) config.peers.push_back(world.node_name(peer) + "/heartbeat");
    }
    world.add_process(node, "heartbeat",
                      [config] { return std::make_unique<HeartbeatDetector>(config); });
  }
}

// Sets (at `at`) and clears (at `until`, if any) a condition of the named apiservers.
void schedule_apiserver_fault(World& world, const ControlPlaneWiring& wiring,
                              const FaultSpec& fault, TrueTime at, std::optional<TrueTime> until) {
  using Kind = FaultSpec::Kind;
  std::vector<std::pair<std::string, std::shared_ptr<api::ApiServerConditions>>> targets;
  for (const std::string& node : fault.targets)
    targets.emplace_back(node, wiring.conditions.at(node));
  std::set<api::Verb> verbs;
  for (const std::string& verb : fault.verbs) verbs.insert(*api::parse_verb(verb));  // checked
  const std::string kind(to_string(fault.kind));
  const auto apply = [&world, targets, verbs, kind, fault](bool on) {
    for (const auto& [node, conditions] : targets) {
      if (fault.kind == Kind::apiserver_slow)
        conditions->extra_latency = on ? fault.latency : Duration{};
      if (fault.kind == Kind::apiserver_unavailable) conditions->unavailable = on;
      if (fault.kind == Kind::apiserver_hang) {
        conditions->hang = on;
        conditions->hang_verbs = on ? verbs : std::set<api::Verb>{};
      }
      world.trace_fault(kind, node, {{"state", std::string(on ? "start" : "end")}});
    }
  };
  world.at(at, [apply] { apply(true); });
  if (until) world.at(*until, [apply] { apply(false); });
}

void schedule_fault(World& world, const Scenario& scenario, const FaultSpec& fault,
                    const ControlPlaneWiring* wiring) {
  using Kind = FaultSpec::Kind;
  const TrueTime at{fault.at.ns};
  // The inverse fault (restart, resume, node-up, heal, ...) happens at `until`, if any.
  const bool has_until = fault.for_duration.has_value();
  const TrueTime until = has_until ? at + *fault.for_duration : at;
  World* w = &world;
  const auto processes = [w, &fault] { return processes_of(*w, fault.targets); };
  const auto nodes = [w, &fault] { return nodes_of(*w, fault.targets); };
  switch (fault.kind) {
    case Kind::crash:
    case Kind::restart:
    case Kind::pause:
    case Kind::resume: {
      const auto ids = processes();
      const Kind kind = fault.kind;
      world.at(at, [w, ids, kind] {
        for (ProcessId id : ids) {
          if (kind == Kind::crash) w->crash(id);
          if (kind == Kind::restart) w->restart(id);
          if (kind == Kind::pause) w->pause(id);
          if (kind == Kind::resume) w->resume(id);
        }
      });
      if (has_until && kind == Kind::crash)
        world.at(until, [w, ids] {
          for (ProcessId id : ids) w->restart(id);
        });
      if (has_until && kind == Kind::pause)
        world.at(until, [w, ids] {
          for (ProcessId id : ids) w->resume(id);
        });
      return;
    }
    case Kind::node_down:
    case Kind::node_up: {
      const auto ids = nodes();
      const bool down = fault.kind == Kind::node_down;
      world.at(at, [w, ids, down] {
        for (NodeId id : ids) down ? w->node_down(id) : w->node_up(id);
      });
      if (has_until && down)
        world.at(until, [w, ids] {
          for (NodeId id : ids) w->node_up(id);
        });
      return;
    }
    case Kind::clock_step: {
      const auto ids = nodes();
      const Duration by = fault.step;
      world.at(at, [w, ids, by] {
        for (NodeId id : ids) w->clock_step(id, by);
      });
      return;
    }
    case Kind::clock_rate: {
      const auto ids = nodes();
      const std::int64_t rate = fault.rate_ppb;
      world.at(at, [w, ids, rate] {
        for (NodeId id : ids) w->clock_rate(id, rate);
      });
      if (!has_until) return;
      std::vector<std::int64_t> configured;
      for (NodeId id : ids) configured.push_back(scenario.nodes[id].clock.rate_ppb);
      world.at(until, [w, ids, configured] {
        for (std::size_t i = 0; i < ids.size(); ++i) w->clock_rate(ids[i], configured[i]);
      });
      return;
    }
    case Kind::partition: {
      auto cut_id = std::make_shared<std::uint64_t>(0);
      const auto cut = cut_of(world, fault);
      world.at(at, [w, cut, cut_id] { *cut_id = w->partition(cut); });
      if (has_until) world.at(until, [w, cut_id] { w->heal(*cut_id); });
      return;
    }
    case Kind::heal:
      world.at(at, [w] { w->heal_all(); });
      return;
    case Kind::disk_loss: {
      const auto ids = nodes();
      world.at(at, [w, ids] {
        for (NodeId id : ids) w->disk_loss(id);
      });
      // The disk is replaced and the processes start again, empty, after `for` (or at once).
      world.at(until, [w, ids] {
        for (NodeId id : ids) {
          for (ProcessId process : w->processes_on(id)) w->restart(process);
        }
      });
      return;
    }
    case Kind::drop_connections: {
      const auto ids = nodes();
      world.at(at, [w, ids] {
        for (NodeId id : ids) w->drop_connections(id);
      });
      return;
    }
    case Kind::terminate: {
      const auto ids = processes();
      const Duration grace = fault.grace;
      world.at(at, [w, ids, grace] {
        for (ProcessId id : ids) w->terminate(id, grace);
      });
      if (has_until) {
        world.at(until, [w, ids] {
          for (ProcessId id : ids) w->restart(id);
        });
      }
      return;
    }
    case Kind::apiserver_slow:
    case Kind::apiserver_hang:
    case Kind::apiserver_unavailable:
      HASIM_ASSERT(wiring != nullptr);  // the loader requires a control plane
      schedule_apiserver_fault(world, *wiring, fault, at,
                               has_until ? std::optional<TrueTime>(until) : std::nullopt);
      return;
  }
}

LinkParams link_params(const NetworkSpec& network, const DurationDistribution& latency) {
  return LinkParams{latency, network.loss, network.duplicate};
}

}  // namespace

std::unique_ptr<World> build_world(const Scenario& scenario, std::uint64_t seed,
                                   const WorldHook& hook) {
  std::vector<NodeSetup> nodes;
  for (const NodeSpec& node : scenario.nodes) {
    nodes.push_back(
        NodeSetup{node.name, node.zone, LocalClock(node.clock.offset, node.clock.rate_ppb)});
  }
  WorldOptions options;
  options.seed = seed;
  options.remote = link_params(scenario.network, scenario.network.latency);
  options.loopback = link_params(scenario.network, scenario.network.loopback_latency);
  auto world = std::make_unique<World>(std::move(nodes), options);
  for (const LinkSpec& link : scenario.network.links) {
    const NodeId from = node_of(*world, link.from);
    const NodeId to = node_of(*world, link.to);
    LinkParams params = world->network().link(from, to);
    if (link.latency) params.latency = *link.latency;
    if (link.loss) params.loss = *link.loss;
    if (link.duplicate) params.duplicate = *link.duplicate;
    world->network().set_link(from, to, params);
  }
  add_heartbeat(*world, scenario);
  std::shared_ptr<ControlPlaneWiring> wiring;
  if (scenario.controlPlane) wiring = add_control_plane(*world, scenario);
  if (scenario.upgrade) schedule_upgrade(*world, scenario, *wiring);
  if (hook) hook(*world);
  for (const FaultSpec& fault : scenario.faults) {
    schedule_fault(*world, scenario, fault, wiring.get());
  }
  return world;
}

}  // namespace hasim
