#pragma once
// The CloudCore section's workload: "workload" (generated pods with their ConfigMaps and
// Secrets, random updates) and "objectChanges" (explicit creates, updates and deletes), read
// and validated here and written into the control plane's store at their times.
#include "models/apiserver/ideal_store.hpp"
#include "scenarios/cloudcore/spec.hpp"
#include "scenarios/loader_internal.hpp"
#include "scenarios/system.hpp"

namespace hasim {

bool read_edge_workload(scenario_loader::Context& c, const Json& section, const std::string& path,
                        CloudCoreSpec& spec);
// Creates the generated objects before the run and schedules the changes and updates.
void add_edge_workload(World& world, const CloudCoreSpec& spec, api::IdealStore& store,
                       ProcessId writer);

}  // namespace hasim
