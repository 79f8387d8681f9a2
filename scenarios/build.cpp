#include "scenarios/build.hpp"

#include "scenarios/system.hpp"
#include "sim/assert.hpp"

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
  set_links(*world, scenario.network);
  // Systems in registry order; processes are numbered in the order they are added, and the
  // order of timed actions decides ties, so this order is part of every trace.
  BuildState built;
  const auto& systems = scenario_systems();
  for (const ScenarioSystem* system : systems) {
    if (system->build != nullptr && scenario.sections.has(system->section))
      system->build(*world, scenario, built);
  }
  for (const ScenarioSystem* system : systems) {
    if (system->schedule != nullptr && scenario.sections.has(system->section))
      system->schedule(*world, scenario, built);
  }
  if (hook) hook(*world);
  for (const FaultSpec& fault : scenario.faults) {
    fault_kind(fault).apply(*world, scenario, fault, built);
  }
  return world;
}

}  // namespace hasim
