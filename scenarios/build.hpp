#pragma once
// Turns a validated Scenario into a World: nodes with their clocks, the network with its
// link overrides, each registered system's processes (scenarios/system.hpp), the systems'
// timed plans (the upgrade), and the fault schedule as timed World actions, each by its kind.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "scenarios/scenario.hpp"
#include "sim/world.hpp"

namespace hasim {

// Lets tests add processes (e.g. a planted nondeterministic model) before the run starts.
using WorldHook = std::function<void(World&)>;

std::unique_ptr<World> build_world(const Scenario& scenario, std::uint64_t seed,
                                   const WorldHook& hook = {});

// Fault targets, resolved on a built world; the loader checked every name.
NodeId node_of(const World& world, const std::string& name);
std::vector<NodeId> nodes_of(const World& world, const std::vector<std::string>& names);
// A target is a node name (every process on it) or "node/process".
std::vector<ProcessId> processes_of(const World& world, const std::vector<std::string>& targets);

}  // namespace hasim
