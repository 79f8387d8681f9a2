#pragma once
// The upgrade orchestrator's scenario glue: section "upgrade" (models/cluster/upgrade_spec.hpp),
// read after "controlPlane" (it needs its nodes and version), and its schedule on the wired
// control plane (models/cluster/upgrade_plan.hpp).
#include "models/cluster/upgrade_spec.hpp"
#include "scenarios/loader_internal.hpp"
#include "scenarios/system.hpp"

namespace hasim {

// Schedules the scenario's node-by-node upgrade on the wired control plane.
void schedule_upgrade(World& world, const Scenario& scenario, BuildState& built);

// Whether the control plane stands on stacked etcd members ("NODE/etcd" on each of its
// nodes), which the upgrade stops, upgrades and restarts with their node, etcd first.
bool upgrades_stacked_etcd(const Scenario& scenario);

const ScenarioSystem& upgrade_scenario_system();

// Sets the timing fields of `upgrade_json` ("at", "order", "downtime", "gap", "startJitter",
// "canary", "stop", "grace") from `upgrade`, keeping the others ("to", "emulation") as written.
void write_upgrade_timing(const UpgradeSpec& upgrade, Json& upgrade_json);

namespace scenario_loader {
void read_upgrade(Context& c, const Json& value, const std::string& path);
}

}  // namespace hasim
