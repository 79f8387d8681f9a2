// One member's data directory corrupted, as a fault kind of the etcd-druid system:
//
//   {"at": "2m", "kind": "druid-data-corrupt", "pod": "etcd-main-1"}
//
// the db file on the pod's data volume no longer passes bbolt's consistency check (a torn
// write, a bad sector): etcd panics on it and its container exits with an error, so
// etcd-wrapper asks the sidecar for a full validation at the restart, which finds the
// corruption (etcd-backup-restore datavalidator.go: DataDirectoryCorrupt). Upstream repairs a
// multi-node member (remove, wipe, add as a learner); the proposal's init case 4 does the same
// through its table. The files stay corrupt until the sidecar wipes them.
#include "models/druid/etcd_wrapper.hpp"
#include "scenarios/druid/druid.hpp"
#include "scenarios/loader_internal.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

using scenario_loader::Context;

void apply_data_corrupt(World& world, const Scenario& scenario, const FaultSpec& fault,
                        const BuildState& built) {
  const DruidWiring* wiring = built.get<DruidWiring>();
  HASIM_ASSERT(wiring != nullptr && !fault.targets.empty());
  const int ordinal = druid_pod_ordinal(*scenario.section<DruidSpec>(), fault.targets.front());
  HASIM_ASSERT(ordinal >= 0 && ordinal < static_cast<int>(wiring->containers.size()));
  std::shared_ptr<druid::PodContainers> pod = wiring->containers[static_cast<std::size_t>(ordinal)];
  std::shared_ptr<workloads::StatefulPods> pods = wiring->pods;
  world.at(TrueTime{fault.at.ns}, [pods, pod, ordinal, at = fault.at] {
    // Nothing to corrupt before the pod's first etcd wrote its data.
    if (!pods->pod(ordinal).has_value()) return;
    pod->dataCorrupt = true;
    // etcd panics on the db: one crash of the etcd container (template index 0).
    pods->crash_loop(ordinal, 0, TrueTime{at.ns + 1});
  });
}

void write_data_corrupt(const FaultSpec& f, Json& out) { out["pod"] = f.targets.front(); }

std::string describe_data_corrupt(const FaultSpec& f) {
  return "the etcd data of " + f.targets.front() + " is corrupted";
}

}  // namespace

FaultKind druid_data_corrupt_fault_kind() {
  return {"druid-data-corrupt", read_druid_pod,        apply_data_corrupt,
          write_data_corrupt,   describe_data_corrupt, std::nullopt};
}

}  // namespace hasim
