// etcd-druid's fault choices for `hasim check` (properties/druid/check.hpp): the faults of
// scenarios/druid/ drawn on the Etcd's pods and workers. The kernel's crash and pause never
// aim at a pod's containers (fault_space.cpp leaves out what a controller starts), so these
// are how a check reaches them: a pod deleted, a container in a crash loop, a worker drained,
// a member's volume lost, the backup store down; and the operations a check's schedule
// replaces the scenario's own with: a scale (up to the ordinals provisioned, or 0) and an
// image update (one that cannot be pulled: pods that never start).
#include <rapidcheck.h>

#include <algorithm>
#include <set>

#include "properties/druid/check.hpp"
#include "scenarios/druid/druid.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

// What the druid choices need of the space: the Etcd's pods and workers.
struct DruidSpace {
  static constexpr std::string_view kSection = "etcdDruid";
  std::vector<std::string> pods;  // every ordinal the set may reach over the run
  std::vector<std::string> workers;
  int maxReplicas = 0;  // the ordinals provisioned: a drawn scale stays within them
  bool persistent = false;
  bool backup = false;
};

const DruidSpace* druid_space(const FaultSpace& space) { return space.facts.get<DruidSpace>(); }

bool has_pods(const FaultSpace& space) {
  return druid_space(space) != nullptr && !druid_space(space)->pods.empty();
}
bool has_volumes(const FaultSpace& space) {
  return has_pods(space) && druid_space(space)->persistent;
}
bool has_store(const FaultSpace& space) { return has_pods(space) && druid_space(space)->backup; }

FaultSpec on_pod(std::string kind, const FaultSpace& space) {
  FaultSpec f;
  f.kind = std::move(kind);
  f.targets = {pick(druid_space(space)->pods)};
  return f;
}

FaultSpec pod_delete(const FaultSpace& space, const Intensity&) {
  return on_pod("druid-pod-delete", space);
}

FaultSpec crash_loop(const FaultSpace& space, const Intensity& intensity) {
  FaultSpec f = on_pod("druid-crash-loop", space);
  f.container = *rc::gen::element<std::string>(std::string(DruidSpec::kEtcdContainer),
                                               std::string(DruidSpec::kSidecarContainer));
  f.for_duration = draw_outage(space, intensity);
  return f;
}

FaultSpec volume_loss(const FaultSpace& space, const Intensity&) {
  return on_pod("druid-volume-loss", space);
}

FaultSpec drain(const FaultSpace& space, const Intensity& intensity) {
  return draw_outage_fault("druid-drain", druid_space(space)->workers, space, intensity);
}

// kubectl edit etcd: spec.replicas to any size provisioned, or 0; the API server's rule
// refuses a shrink that is not a hibernation (the seed's scale-down), which is traced.
FaultSpec scale(const FaultSpace& space, const Intensity&) {
  FaultSpec f;
  f.kind = "druid-scale";
  f.replicas = *rc::gen::inRange(0, druid_space(space)->maxReplicas + 1);
  return f;
}

// A new etcd image rolled out; a third of them cannot be pulled (the new pods never start).
FaultSpec image_update(const FaultSpace&, const Intensity&) {
  FaultSpec f;
  f.kind = "druid-image-update";
  f.targets = {*rc::gen::element<std::string>("v3.5.16", "v3.5.17", "v3.5.99")};
  f.pull_fails = f.targets.front() == "v3.5.99";
  return f;
}

FaultSpec store_down(const FaultSpace& space, const Intensity& intensity) {
  FaultSpec f;
  f.kind = "druid-backup-store-down";
  f.for_duration = draw_outage(space, intensity);
  return f;
}

}  // namespace

void druid_fill_space(const Scenario& scenario, FaultSpace& space) {
  const DruidSpec* spec = scenario.section<DruidSpec>();
  if (spec == nullptr) return;
  DruidSpace druid;
  const int ordinals = std::max(spec->replicas, spec->maxReplicas);
  HASIM_ASSERT(ordinals >= 0 && ordinals <= kDruidMaxOrdinals);
  for (int ordinal = 0; ordinal < ordinals; ++ordinal) {
    druid.pods.push_back(spec->name + "-" + std::to_string(ordinal));
  }
  druid.workers = spec->workers;
  druid.maxReplicas = ordinals;
  druid.persistent = spec->storage == DruidStorage::persistent;
  druid.backup = spec->backup.has_value();
  space.facts.set(std::move(druid));
}

// quorum-recovery and no-lost-write hold over what etcd-druid recovers by itself; a lost
// volume of each of a majority needs upstream's manual runbook, so volume losses are drawn
// only beyond the assumptions when either property is named.
bool druid_forbids(const Scenario& scenario, const FaultSpace&, const FaultChoiceDef& choice) {
  return choice.name == "druid-volume-loss" && scenario.section<DruidSpec>() != nullptr &&
         (names_property(scenario, "quorum-recovery") || names_property(scenario, "no-lost-write"));
}

void druid_broken(const Scenario& scenario, std::vector<std::string>& out) {
  const DruidSpec* spec = scenario.section<DruidSpec>();
  if (spec == nullptr || !names_property(scenario, "quorum-recovery")) return;
  std::set<std::string> lost;
  for (const FaultSpec& fault : scenario.faults) {
    if (fault.kind == "druid-volume-loss") lost.insert(fault.targets.front());
  }
  if (static_cast<int>(lost.size()) * 2 < spec->replicas || lost.empty()) return;
  out.push_back(std::to_string(lost.size()) + " of " + std::to_string(spec->replicas) +
                " members lose their volumes, and quorum-recovery assumes a quorum keeps its "
                "data (etcd-druid recovers only through its manual runbook then)");
}

std::vector<FaultChoiceDef> druid_fault_choices() {
  return {
      {"druid-pod-delete", has_pods, pod_delete,
       [](const FaultSpec& f) { return f.kind == "druid-pod-delete"; }},
      {"druid-crash-loop", has_pods, crash_loop,
       [](const FaultSpec& f) { return f.kind == "druid-crash-loop"; }},
      {"druid-drain", has_pods, drain, [](const FaultSpec& f) { return f.kind == "druid-drain"; }},
      {"druid-volume-loss", has_volumes, volume_loss,
       [](const FaultSpec& f) { return f.kind == "druid-volume-loss"; }},
      {"druid-backup-store-down", has_store, store_down,
       [](const FaultSpec& f) { return f.kind == "druid-backup-store-down"; }},
      {"druid-scale", has_pods, scale, [](const FaultSpec& f) { return f.kind == "druid-scale"; }},
      {"druid-image-update", has_pods, image_update,
       [](const FaultSpec& f) { return f.kind == "druid-image-update"; }},
  };
}

}  // namespace hasim
