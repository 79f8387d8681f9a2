// `kubectl drain` of a worker as a fault kind of the etcd-druid system:
//
//   {"at": "2m", "kind": "druid-drain", "node": "w-1", "for": "10m"}
//
// cordons w-1 and evicts the Etcd's pods there through the PodDisruptionBudget druid keeps
// (--ignore-daemonsets --delete-emptydir-data, no --timeout: kubectl waits); with "for", the
// node is uncordoned that long after (scenarios/workloads/drain_runtime.cpp).
#include <algorithm>

#include "scenarios/druid/druid.hpp"
#include "scenarios/loader_internal.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

using scenario_loader::Context;

void read_drain(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  const std::string at = JsonReader::key_path(path, "node");
  const Json* node = JsonReader::field(f, "node");
  if (node == nullptr) {
    c.reader.error(path, "druid-drain needs the node to drain: add \"node\": \"w-1\"");
    return;
  }
  const auto name = c.reader.string(*node, at);
  if (!name) return;
  spec.targets = {*name};
  const DruidSpec* druid = c.scenario.section<DruidSpec>();
  if (druid == nullptr) return;  // reported where the section is missing or wrong
  const auto& workers = druid->workers;
  if (std::find(workers.begin(), workers.end(), *name) == workers.end()) {
    c.reader.error(at, "\"" + *name + "\" is not a worker of etcdDruid; drain one of " +
                           scenario_loader::join_quoted(workers, " or "));
  }
}

void apply_drain(World& world, const Scenario&, const FaultSpec& fault, const BuildState& built) {
  const DruidWiring* wiring = built.get<DruidWiring>();
  HASIM_ASSERT(wiring != nullptr && !fault.targets.empty());
  std::shared_ptr<workloads::StatefulPods> pods = wiring->pods;
  const std::string node = fault.targets.front();
  world.at(TrueTime{fault.at.ns}, [pods, node] { pods->drain(node, cluster::DrainOptions{}); });
  if (fault.for_duration) {
    world.at(TrueTime{(fault.at + *fault.for_duration).ns}, [pods, node] { pods->uncordon(node); });
  }
}

void write_drain(const FaultSpec& f, Json& out) { out["node"] = f.targets.front(); }

std::string describe_drain(const FaultSpec& f) { return "kubectl drain " + f.targets.front(); }

}  // namespace

FaultKind druid_drain_fault_kind() {
  return {"druid-drain", read_drain, apply_drain, write_drain, describe_drain, std::nullopt};
}

}  // namespace hasim
