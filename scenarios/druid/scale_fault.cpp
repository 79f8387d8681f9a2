// druid-scale: someone edits the Etcd's spec.replicas (kubectl edit etcd, or gardener scaling
// a control plane up or hibernating it):
//
//   {"at": "2m", "kind": "druid-scale", "replicas": 3}
//
// The API server admits the change only if its CEL rule on spec.replicas allows it
// (api/core/v1alpha1/etcd.go: up, or to 0 = hibernation; from 0 to any size): a refused edit
// is traced and changes nothing. An admitted one bumps the generation and reaches etcd-druid
// as its watch event (EtcdSpecChanged), which reconciles again (models/druid/druid_controller).
// Druid reconciles a spec change only with auto-reconcile or gardener's reconcile annotation
// (reconcile_spec.go shouldReconcileSpec): the edit here stands for both.
#include <algorithm>
#include <string>

#include "models/druid/etcd_resource.hpp"
#include "models/druid/etcd_spec_rules.hpp"
#include "models/druid/trace_kinds.hpp"
#include "scenarios/druid/druid.hpp"
#include "scenarios/loader_internal.hpp"
#include "sim/assert.hpp"
#include "sim/world.hpp"

namespace hasim {
namespace {

using scenario_loader::Context;

constexpr std::string_view kKind = "druid-scale";

std::int64_t scale_replicas(const FaultSpec& f) { return f.replicas; }

std::string range_fix() {
  return "use 0 to hibernate or 1 to " + std::to_string(kDruidMaxOrdinals) +
         " members (hasim provisions at most " + std::to_string(kDruidMaxOrdinals) + " pods)";
}

// Negative or too large: the field and the fix, before JsonReader's generic range message.
bool replicas_in_range(Context& c, const Json& value, const std::string& at) {
  if (!value.is_number_integer()) return true;  // JsonReader::integer names the type
  if (!value.is_number_unsigned() && value.get<std::int64_t>() < 0) {
    c.reader.error(at,
                   "spec.replicas cannot be negative (found " + value.dump() + "): " + range_fix());
    return false;
  }
  if (value.get<std::uint64_t>() > static_cast<std::uint64_t>(kDruidMaxOrdinals)) {
    c.reader.error(
        at, "replicas " + value.dump() + " is above the largest Etcd hasim runs: " + range_fix());
    return false;
  }
  return true;
}

void read_scale(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  const Json* field = JsonReader::field(f, "replicas");
  const std::string at = JsonReader::key_path(path, "replicas");
  if (field == nullptr) {
    c.reader.error(path,
                   "druid-scale needs the new spec.replicas: add \"replicas\": 3 (0 "
                   "hibernates the Etcd)");
    return;
  }
  if (!replicas_in_range(c, *field, at)) return;
  const auto n = c.reader.integer(*field, at, 0, kDruidMaxOrdinals);
  if (!n) return;
  spec.replicas = *n;
  const DruidSpec* druid = c.scenario.section<DruidSpec>();
  if (druid == nullptr) return;  // reported where the section is missing or wrong
  spec.targets = {druid->name};
  if (druid->maxReplicas > 0 && *n > druid->maxReplicas) {
    c.reader.error(at, "druid-scale to " + std::to_string(*n) + " replicas needs processes for " +
                           std::to_string(*n) + " pods, but \"etcdDruid\" has \"maxReplicas\": " +
                           std::to_string(druid->maxReplicas) + ": raise it to " +
                           std::to_string(*n) + ", or leave it out (it defaults to the largest " +
                           "replicas any druid-scale asks for)");
  }
}

// The API server's admission of the edit, then druid's watch event.
void edit_replicas(World& world, druid::EtcdResource& etcd, ProcessId druid_process,
                   std::int32_t replicas, const std::string& name) {
  const std::int32_t before = etcd.replicas;
  // The seed's Etcd has no such rule: it scales down (druid case 12).
  const bool proposal = etcd.mode == druid::DruidMode::proposal;
  if (!proposal && !druid::replicas_update_allowed(before, replicas)) {
    world.trace_fault(druid::trace_kind::kSpecRefused, "",
                      {{"etcd", name},
                       {"replicas", std::int64_t{replicas}},
                       {"current", std::int64_t{before}},
                       {"rule", std::string("replicas may only grow, or go to 0 (hibernate)")}});
    return;
  }
  // An unchanged spec keeps its generation: the watch sees no spec change.
  if (replicas != before) ++etcd.generation;
  etcd.replicas = replicas;
  world.trace_fault(druid::trace_kind::kSpecUpdate, "",
                    {{"etcd", name},
                     {"replicas", std::int64_t{replicas}},
                     {"previous", std::int64_t{before}},
                     {"generation", etcd.generation}});
  if (replicas != before) world.post(druid_process, std::make_shared<druid::EtcdSpecChanged>());
}

void apply_scale(World& world, const Scenario& scenario, const FaultSpec& fault,
                 const BuildState& built) {
  const DruidWiring* wiring = built.get<DruidWiring>();
  const DruidSpec* spec = scenario.section<DruidSpec>();
  HASIM_ASSERT(wiring != nullptr && wiring->etcd != nullptr && spec != nullptr);
  const std::int64_t replicas = scale_replicas(fault);
  // The loader settled maxReplicas over every druid-scale: the pods have their processes.
  HASIM_ASSERT(replicas >= 0 && replicas <= std::max(spec->replicas, spec->maxReplicas));
  std::shared_ptr<druid::EtcdResource> etcd = wiring->etcd;
  const ProcessId druid_process = wiring->druid;
  const std::string name = spec->name;
  world.at(TrueTime{fault.at.ns}, [&world, etcd, druid_process, replicas, name] {
    edit_replicas(world, *etcd, druid_process, static_cast<std::int32_t>(replicas), name);
  });
}

void write_scale(const FaultSpec& f, Json& out) { out["replicas"] = scale_replicas(f); }

std::string describe_scale(const FaultSpec& f) {
  const std::string etcd = f.targets.empty() ? std::string("the Etcd") : "etcd " + f.targets[0];
  const std::int64_t n = scale_replicas(f);
  return "kubectl edit " + etcd + ": spec.replicas " + std::to_string(n) +
         (n == 0 ? " (hibernate)" : "");
}

}  // namespace

FaultKind druid_scale_fault_kind() {
  return FaultKind{kKind, read_scale, apply_scale, write_scale, describe_scale, std::nullopt};
}

KeySet druid_scale_key_set() { return {"fault:druid-scale", {"at", "kind", "replicas"}}; }

// After every fault is read: "maxReplicas" defaults to the largest of replicas and every
// druid-scale's replicas (each already checked against an explicit maxReplicas).
void druid_check_max_replicas(Context& c) {
  DruidSpec* spec = c.scenario.sections.get<DruidSpec>();
  if (spec == nullptr) return;
  int largest = spec->replicas;
  for (const FaultSpec& f : c.scenario.faults) {
    if (f.kind == kKind) largest = std::max(largest, static_cast<int>(scale_replicas(f)));
  }
  if (spec->maxReplicas == 0) spec->maxReplicas = largest;
  HASIM_ASSERT(spec->maxReplicas >= spec->replicas && spec->maxReplicas <= kDruidMaxOrdinals);
}

}  // namespace hasim
