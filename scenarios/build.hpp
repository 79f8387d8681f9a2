#pragma once
// Turns a validated Scenario into a World: nodes with their clocks, the network with its
// link overrides, the model processes, and the fault schedule as timed World actions.
#include <functional>
#include <memory>

#include "scenarios/scenario.hpp"
#include "sim/world.hpp"

namespace hasim {

// Lets tests add processes (e.g. a planted nondeterministic model) before the run starts.
using WorldHook = std::function<void(World&)>;

std::unique_ptr<World> build_world(const Scenario& scenario, std::uint64_t seed,
                                   const WorldHook& hook = {});

}  // namespace hasim
