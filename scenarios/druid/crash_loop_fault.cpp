// A container of one of the Etcd's pods in a crash loop, as a fault kind of the etcd-druid
// system:
//
//   {"at": "2m", "kind": "druid-crash-loop", "pod": "etcd-main-1", "container": "etcd",
//    "for": "10m"}
//
// the container crashes now and at every start for "for" (a bad flag, a file it cannot
// read); its kubelet restarts it with the back-off (10 s doubling to 5 min), so it may stay
// down past the end of the loop (scenarios/workloads/kubelet_runtime.cpp).
#include <algorithm>

#include "scenarios/druid/druid.hpp"
#include "scenarios/loader_internal.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

using scenario_loader::Context;

const std::vector<std::string> kContainers{std::string(DruidSpec::kEtcdContainer),
                                           std::string(DruidSpec::kSidecarContainer)};

void read_crash_loop(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  read_druid_pod(c, f, path, spec);
  const Json* container = JsonReader::field(f, "container");
  if (container == nullptr) {
    c.reader.error(path,
                   "druid-crash-loop needs the container: add \"container\": \"etcd\" "
                   "or \"backup-restore\"");
    return;
  }
  const std::string at = JsonReader::key_path(path, "container");
  const auto name = c.reader.string(*container, at);
  if (!name) return;
  if (std::find(kContainers.begin(), kContainers.end(), *name) == kContainers.end()) {
    c.reader.error(at, "expected " + scenario_loader::join_quoted(kContainers, " or ") +
                           ", found \"" + *name + "\"");
    return;
  }
  spec.container = *name;
  if (!spec.for_duration) {
    c.reader.error(path,
                   "druid-crash-loop needs how long the container keeps crashing: add "
                   "\"for\": \"5m\"");
  }
}

void apply_crash_loop(World& world, const Scenario& scenario, const FaultSpec& fault,
                      const BuildState& built) {
  const DruidWiring* wiring = built.get<DruidWiring>();
  HASIM_ASSERT(wiring != nullptr && !fault.targets.empty() && fault.for_duration);
  const int ordinal = druid_pod_ordinal(*scenario.section<DruidSpec>(), fault.targets.front());
  HASIM_ASSERT(ordinal >= 0);
  const std::size_t container = fault.container == DruidSpec::kEtcdContainer ? 0 : 1;
  std::shared_ptr<workloads::StatefulPods> pods = wiring->pods;
  const TrueTime until{(fault.at + *fault.for_duration).ns};
  world.at(TrueTime{fault.at.ns},
           [pods, ordinal, container, until] { pods->crash_loop(ordinal, container, until); });
}

void write_crash_loop(const FaultSpec& f, Json& out) {
  out["pod"] = f.targets.front();
  out["container"] = f.container;
}

std::string describe_crash_loop(const FaultSpec& f) {
  return "container " + f.container + " of " + f.targets.front() + " in a crash loop";
}

}  // namespace

FaultKind druid_crash_loop_fault_kind() {
  return {"druid-crash-loop", read_crash_loop,     apply_crash_loop,
          write_crash_loop,   describe_crash_loop, std::nullopt};
}

}  // namespace hasim
