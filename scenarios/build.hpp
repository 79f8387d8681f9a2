#pragma once
// Turns a validated Scenario into a World: nodes with their clocks, the network with its
// link overrides, each registered system's processes (scenarios/system.hpp), the systems'
// timed plans (the upgrade), and the fault schedule as timed World actions, each by its kind.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "scenarios/scenario.hpp"
#include "scenarios/sections.hpp"
#include "sim/world.hpp"

namespace hasim {

using BuildState = Sections;  // as in scenarios/system.hpp

// Lets tests add processes (e.g. a planted nondeterministic model) before the run starts.
using WorldHook = std::function<void(World&)>;

std::unique_ptr<World> build_world(const Scenario& scenario, std::uint64_t seed,
                                   const WorldHook& hook = {});

// Fault targets, resolved on a built world; the loader checked every name.
NodeId node_of(const World& world, const std::string& name);
std::vector<NodeId> nodes_of(const World& world, const std::vector<std::string>& names);
// A target is a node name (every process on it) or "node/process".
std::vector<ProcessId> processes_of(const World& world, const std::vector<std::string>& targets);

// What a fault hits, as a function called when it fires: the named targets (resolved when
// the world is built), or the process holding its role at that instant (scenarios/system.hpp's
// RoleKind), traced as "role-resolved" (or "role-unresolved": the fault then hits nothing).
using ProcessTargets = std::function<std::vector<ProcessId>()>;
using NodeTargets = std::function<std::vector<NodeId>()>;
ProcessTargets process_targets(World& world, const FaultSpec& fault, const BuildState& built);
// For node-level kinds: the named nodes, or the node of the role's process.
NodeTargets node_targets(World& world, const FaultSpec& fault, const BuildState& built);

}  // namespace hasim
