#include "scenarios/build.hpp"

#include "scenarios/system.hpp"
#include "sim/assert.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {
namespace {

LinkParams link_params(const NetworkSpec& network, const DurationDistribution& latency) {
  return LinkParams{latency, network.loss, network.duplicate};
}

void set_links(World& world, const NetworkSpec& network) {
  for (const LinkSpec& link : network.links) {
    const NodeId from = node_of(world, link.from);
    const NodeId to = node_of(world, link.to);
    LinkParams params = world.network().link(from, to);
    if (link.latency) params.latency = *link.latency;
    if (link.loss) params.loss = *link.loss;
    if (link.duplicate) params.duplicate = *link.duplicate;
    world.network().set_link(from, to, params);
  }
}

}  // namespace

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

namespace {

std::optional<ProcessId> resolve_role(World& world, const BuildState& built,
                                      const FaultSpec& fault) {
  const RoleKind* role = find_role_kind(fault.role);
  HASIM_ASSERT(role != nullptr);  // the loader checked
  const std::string argument = fault.role.substr(fault.role.find(':') + 1);
  const auto holder = role->resolve(world, built, argument);
  const auto process = holder ? world.find_process(*holder) : std::nullopt;
  if (!process) {
    world.trace_fault(trace_kind::kRoleUnresolved, "",
                      {{"role", fault.role}, {"fault", fault.kind}});
    return std::nullopt;
  }
  world.trace_fault(trace_kind::kRoleResolved, world.node_name(world.process_node(*process)),
                    {{"role", fault.role}, {"fault", fault.kind}, {"process", *holder}});
  return process;
}

}  // namespace

ProcessTargets process_targets(World& world, const FaultSpec& fault, const BuildState& built) {
  if (fault.role.empty()) {
    return [ids = processes_of(world, fault.targets)] { return ids; };
  }
  return [w = &world, &built, fault]() -> std::vector<ProcessId> {
    const auto process = resolve_role(*w, built, fault);
    if (!process) return {};
    return {*process};
  };
}

NodeTargets node_targets(World& world, const FaultSpec& fault, const BuildState& built) {
  if (fault.role.empty()) return [ids = nodes_of(world, fault.targets)] { return ids; };
  return [w = &world, &built, fault]() -> std::vector<NodeId> {
    const auto process = resolve_role(*w, built, fault);
    if (!process) return {};
    return {w->process_node(*process)};
  };
}

std::unique_ptr<World> build_world(const Scenario& scenario, std::uint64_t seed,
                                   const WorldHook& hook) {
  std::vector<NodeSetup> nodes;
  for (const NodeSpec& node : scenario.nodes) {
    nodes.push_back(NodeSetup{node.name, node.zone,
                              LocalClock(node.clock.offset, node.clock.rate_ppb),
                              node.stream_name, node.up_at_start});
  }
  WorldOptions options;
  options.seed = seed;
  options.remote = link_params(scenario.network, scenario.network.latency);
  options.loopback = link_params(scenario.network, scenario.network.loopback_latency);
  auto world = std::make_unique<World>(std::move(nodes), options);
  set_links(*world, scenario.network);
  for (NodeId node = 0; node < scenario.nodes.size(); ++node) {
    for (DiskSpec& disk : node_disks(scenario.nodes[node])) {
      world->add_disk(node, std::move(disk.name), disk.params);
    }
  }
  // Systems in registry order; processes are numbered in the order they are added, and the
  // order of timed actions decides ties, so this order is part of every trace. What systems
  // leave in `built` lives as long as the world: roles are resolved while it runs.
  auto built = std::make_shared<BuildState>();
  const auto& systems = scenario_systems();
  for (const ScenarioSystem* system : systems) {
    if (system->build != nullptr && scenario.sections.has(system->section))
      system->build(*world, scenario, *built);
  }
  for (const ScenarioSystem* system : systems) {
    if (system->schedule != nullptr && scenario.sections.has(system->section))
      system->schedule(*world, scenario, *built);
  }
  world->keep_alive(built);
  if (hook) hook(*world);
  for (const FaultSpec& fault : scenario.faults) {
    fault_kind(fault).apply(*world, scenario, fault, *built);
  }
  return world;
}

}  // namespace hasim
