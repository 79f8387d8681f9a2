// etcd-druid as a registered system (scenarios/system.hpp): section "etcdDruid", its pods'
// containers and etcd-druid itself as processes (scenarios/druid/build.cpp), and its fault
// kinds. It runs over the control plane (section "controlPlane"), where the member Leases
// live.
//
//   "etcdDruid": {"replicas": 3, "workers": ["w-1", "w-2", "w-3"], "storage": "persistent"}
//   {"at": "2m", "kind": "druid-pod-delete", "pod": "etcd-main-1"}   kubectl delete pod
//   {"at": "2m", "kind": "druid-scale", "replicas": 5}   spec.replicas (scale_fault.cpp)
//   "backup": {"storeNode": "s3", "deltaSnapshotPeriod": "5m"}   snapshots (backup.cpp)
#include <algorithm>

#include "models/druid/trace_kinds.hpp"
#include "scenarios/control_plane/control_plane.hpp"
#include "scenarios/druid/druid.hpp"
#include "scenarios/loader_internal.hpp"
#include "scenarios/workloads/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

using scenario_loader::Context;

const std::vector<std::string> kStorageNames{"persistent", "emptyDir"};
const std::vector<std::string> kAntiAffinityNames{"none", "hostname", "zone"};
const std::vector<std::string> kModeNames{"upstream", "proposal"};
// StatefulSet pods get ordinals; hasim provisions processes for each, so it bounds them.
constexpr std::int64_t kMaxReplicas = kDruidMaxOrdinals;

bool read_name_field(Context& c, const Json& value, const std::string& path, std::string_view key,
                     std::string& target) {
  const Json* field = JsonReader::field(value, key);
  if (field == nullptr) return true;
  const std::string at = JsonReader::key_path(path, key);
  const auto text = c.reader.string(*field, at);
  if (!text) return false;
  scenario_loader::check_name(c.reader, *text, at, "the name");
  target = *text;
  return scenario_loader::is_valid_name(*text);
}

bool read_workers(Context& c, const Json& value, const std::string& path, DruidSpec& spec) {
  const Json* workers = JsonReader::field(value, "workers");
  const std::string at = JsonReader::key_path(path, "workers");
  if (workers == nullptr) {
    c.reader.error(at,
                   "the pods need worker nodes to run on: list them, e.g. \"workers\": "
                   "[\"w-1\", \"w-2\", \"w-3\"]");
    return false;
  }
  auto list = scenario_loader::read_node_list(c, *workers, at);
  if (list) spec.workers = *list;
  return list.has_value();
}

// "maxReplicas": explicit, at least replicas; else 0 until druid_check_max_replicas.
bool read_max_replicas(Context& c, const Json& value, const std::string& path, DruidSpec& spec) {
  const Json* field = JsonReader::field(value, "maxReplicas");
  if (field == nullptr) return true;
  const std::string at = JsonReader::key_path(path, "maxReplicas");
  const auto n = c.reader.integer(*field, at, 1, kMaxReplicas);
  if (!n) return false;
  if (*n < spec.replicas) {
    c.reader.error(at, "maxReplicas " + std::to_string(*n) + " is below replicas " +
                           std::to_string(spec.replicas) + ": hasim provisions pods up to " +
                           "maxReplicas, so raise it to at least " + std::to_string(spec.replicas) +
                           " (or leave it out)");
    return false;
  }
  spec.maxReplicas = static_cast<int>(*n);
  return true;
}

// "mode" and, for the proposal, its grace periods (druid cases 7 and 9).
bool read_mode(Context& c, const Json& value, const std::string& path, DruidSpec& spec) {
  bool ok = scenario_loader::read_choice(c, value, path, "mode", kModeNames, spec.mode);
  const Json* proposal = JsonReader::field(value, "proposal");
  if (proposal == nullptr || !ok) return ok;
  const std::string at = JsonReader::key_path(path, "proposal");
  if (spec.mode != druid::DruidMode::proposal) {
    c.reader.error(at,
                   "the grace periods belong to the seed's proposal: set \"mode\": "
                   "\"proposal\" or remove \"proposal\"");
    return false;
  }
  if (!c.reader.object(*proposal, at, scenario_loader::keys("druidProposal"), "the proposal")) {
    return false;
  }
  ok = scenario_loader::read_duration_field(c.reader, *proposal, at, "unknownGracePeriod",
                                            DurationSign::positive, spec.unknownGracePeriod);
  return scenario_loader::read_duration_field(c.reader, *proposal, at, "notReadyGracePeriod",
                                              DurationSign::positive, spec.notReadyGracePeriod) &&
         ok;
}

void read_druid(Context& c, const Json& value, const std::string& path) {
  JsonReader& r = c.reader;
  if (!r.object(value, path, scenario_loader::keys("etcdDruid"), "the etcdDruid section")) return;
  if (!c.has("controlPlane")) {
    r.error(path,
            "etcd-druid keeps its member Leases in kube-apiservers: add a "
            "\"controlPlane\" section (e.g. \"controlPlane\": {\"nodes\": [\"cp-1\"]})");
    return;
  }
  DruidSpec spec;
  bool ok = read_name_field(c, value, path, "name", spec.name);
  ok = read_name_field(c, value, path, "namespace", spec.namespace_) && ok;
  if (const Json* replicas = JsonReader::field(value, "replicas")) {
    const auto n = r.integer(*replicas, JsonReader::key_path(path, "replicas"), 1, kMaxReplicas);
    if (n) spec.replicas = static_cast<int>(*n);
    ok = n.has_value() && ok;
  }
  ok = read_max_replicas(c, value, path, spec) && ok;
  ok = scenario_loader::read_choice(c, value, path, "storage", kStorageNames, spec.storage) && ok;
  ok = scenario_loader::read_choice(c, value, path, "antiAffinity", kAntiAffinityNames,
                                    spec.antiAffinity) &&
       ok;
  ok = read_workers(c, value, path, spec) && ok;
  ok = read_mode(c, value, path, spec) && ok;
  ok = read_druid_backup(c, value, path, spec) && ok;
  if (const Json* rate = JsonReader::field(value, "writeRate")) {
    const auto n = r.integer(*rate, JsonReader::key_path(path, "writeRate"), 0, 10'000);
    if (n) spec.writeRate = *n;
    ok = n.has_value() && ok;
  }
  if (const Json* node = JsonReader::field(value, "druidNode")) {
    const std::string at = JsonReader::key_path(path, "druidNode");
    const auto text = r.string(*node, at);
    ok = text.has_value() && scenario_loader::check_node(c, *text, at) && ok;
    if (text) spec.druidNode = *text;
  }
  if (ok) c.scenario.sections.set(spec);
}

// The druid node's process; the pods' processes move between the workers, so faults name a
// pod ("pod") rather than a "node/process".
std::optional<std::vector<std::string>> processes_on(const Context& c, const std::string& node) {
  const DruidSpec* spec = c.scenario.section<DruidSpec>();
  if (spec == nullptr) return std::nullopt;
  std::vector<std::string> out;
  if (druid_node(c.scenario) == node) {
    out.emplace_back(DruidSpec::kDruidProcess);
    if (spec->writeRate > 0) out.emplace_back("etcd-client");
  }
  if (spec->backup.has_value() && spec->backup->storeNode == node) {
    out.emplace_back(DruidBackupStore::kStoreProcess);
  }
  return out;
}

// ---- druid-pod-delete ---------------------------------------------------------------------

}  // namespace

int druid_pod_ordinal(const DruidSpec& spec, const std::string& pod) {
  const std::string prefix = spec.name + "-";
  if (pod.rfind(prefix, 0) != 0) return -1;
  const std::string rest = pod.substr(prefix.size());
  if (rest.empty() || rest.size() > 1 || !std::isdigit(static_cast<unsigned char>(rest[0]))) {
    return -1;
  }
  return rest[0] - '0';
}

void read_druid_pod(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  const std::string at = JsonReader::key_path(path, "pod");
  const Json* pod = JsonReader::field(f, "pod");
  if (pod == nullptr) {
    c.reader.error(path, spec.kind + " needs the pod: add \"pod\": \"etcd-main-0\"");
    return;
  }
  const auto name = c.reader.string(*pod, at);
  if (!name) return;
  spec.targets = {*name};
  const DruidSpec* druid = c.scenario.section<DruidSpec>();
  if (druid == nullptr) return;  // reported where the section is missing or wrong
  // An explicit maxReplicas (a scale-up's pods) widens the range; its default is settled
  // only after the faults are read.
  const int pods = std::max(druid->replicas, druid->maxReplicas);
  const int ordinal = druid_pod_ordinal(*druid, *name);
  if (ordinal < 0 || ordinal >= pods) {
    c.reader.error(at, "\"" + *name + "\" is not a pod of the Etcd \"" + druid->name + "\"; its " +
                           "pods are \"" + druid->name + "-0\" to \"" + druid->name + "-" +
                           std::to_string(pods - 1) + "\"");
  }
}

namespace {

void apply_pod_delete(World& world, const Scenario& scenario, const FaultSpec& fault,
                      const BuildState& built) {
  at_druid_pod(world, scenario, fault, built, [](workloads::StatefulPods& pods, int ordinal) {
    pods.delete_pod(ordinal, "kubectl");
  });
}

void write_pod_delete(const FaultSpec& f, Json& out) { out["pod"] = f.targets.front(); }

std::string describe_pod_delete(const FaultSpec& f) {
  return "kubectl delete pod " + f.targets.front();
}

}  // namespace

void at_druid_pod(World& world, const Scenario& scenario, const FaultSpec& fault,
                  const BuildState& built,
                  std::function<void(workloads::StatefulPods& pods, int ordinal)> action) {
  const DruidWiring* wiring = built.get<DruidWiring>();
  HASIM_ASSERT(wiring != nullptr && !fault.targets.empty() && action != nullptr);
  const int ordinal = druid_pod_ordinal(*scenario.section<DruidSpec>(), fault.targets.front());
  HASIM_ASSERT(ordinal >= 0);
  std::shared_ptr<workloads::StatefulPods> pods = wiring->pods;
  world.at(TrueTime{fault.at.ns}, [pods, ordinal, action] { action(*pods, ordinal); });
}

std::string druid_node(const Scenario& scenario) {
  const DruidSpec* spec = scenario.section<DruidSpec>();
  if (spec == nullptr) return "";
  if (!spec->druidNode.empty()) return spec->druidNode;
  const ControlPlaneSpec* cp = scenario.section<ControlPlaneSpec>();
  return cp == nullptr || cp->nodes.empty() ? "" : cp->nodes.front();
}

std::string druid_container_process(const DruidSpec& spec, int ordinal,
                                    std::string_view container) {
  return spec.name + "-" + std::to_string(ordinal) + "." + std::string(container);
}

const ScenarioSystem& druid_scenario_system() {
  static const ScenarioSystem system = [] {
    ScenarioSystem s;
    s.name = "etcd-druid";
    s.section = DruidSpec::kSection;
    s.key_sets = {{"etcdDruid",
                   {"name", "namespace", "replicas", "maxReplicas", "storage", "antiAffinity",
                    "workers", "druidNode", "backup", "writeRate", "mode", "proposal"}},
                  {"druidProposal", {"unknownGracePeriod", "notReadyGracePeriod"}},
                  {"fault:druid-volume-loss", {"at", "kind", "pod"}},
                  {"fault:druid-data-corrupt", {"at", "kind", "pod"}},
                  druid_backup_key_set(),
                  druid_backup_store_down_key_set(),
                  {"fault:druid-pod-delete", {"at", "kind", "pod"}},
                  {"fault:druid-drain", {"at", "kind", "node", "for"}},
                  {"fault:druid-image-update", {"at", "kind", "image", "pullFails"}},
                  {"fault:druid-crash-loop", {"at", "kind", "pod", "container", "for"}},
                  druid_scale_key_set(),
                  druid_runbook_key_set()};
    s.read = read_druid;
    s.processes_on = processes_on;
    s.process_origin =
        "\"etcdDruid\" (\"etcd-druid\" on its node; the pods' containers move between the "
        "workers and are named by pod)";
    s.build = add_druid;
    s.fault_kinds = {{"druid-pod-delete", read_druid_pod, apply_pod_delete, write_pod_delete,
                      describe_pod_delete, std::nullopt},
                     druid_drain_fault_kind(),
                     druid_image_update_fault_kind(),
                     druid_crash_loop_fault_kind(),
                     druid_scale_fault_kind(),
                     druid_backup_store_down_fault_kind(),
                     druid_volume_loss_fault_kind(),
                     druid_data_corrupt_fault_kind(),
                     druid_runbook_fault_kind()};
    s.cross_check = druid_check_max_replicas;
    s.trace_kinds.assign(druid::trace_kind::kAll.begin(), druid::trace_kind::kAll.end());
    s.trace_kinds.insert(s.trace_kinds.end(), workloads::trace_kind::kAll.begin(),
                         workloads::trace_kind::kAll.end());
    s.dictionary = {"persistent", "emptyDir", "hostname", "zone", "etcd-main-0", "proposal"};
    return s;
  }();
  return system;
}

}  // namespace hasim
