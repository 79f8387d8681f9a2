// etcd's operations as actions of the etcd system (scenarios/system.hpp fault kinds): what
// an operator, or a client filling the database, does through etcdctl against one member
// (models/etcd/etcdctl.hpp), on the member's own node ("node") or on whichever member holds
// a role when the action fires ("role": "raft-leader"):
//
//   {"at": "10s", "kind": "etcd-fill", "role": "raft-leader", "bytes": 1048576,
//    "valueSize": 4096, "every": "10ms"}                       puts until 1 MiB of values
//   {"at": "20s", "kind": "etcd-compact", "node": "n1", "keep": 0}   status, then compact
//   {"at": "21s", "kind": "etcd-defrag", "node": "n1"}               Maintenance Defragment
//   {"at": "30s", "kind": "etcd-alarm-disarm", "node": "n1"}         alarm list + disarm
//   {"at": "40s", "kind": "etcd-snapshot-save", "node": "n1", "name": "backup"}
//                              Maintenance Snapshot into the world's snapshot store as "backup"
//
// Each takes "timeout", the client's deadline per call (etcdctl's --command-timeout,
// default 5s). A scenario with any of them gets an "etcdctl" process on every etcd node.
#include <algorithm>
#include <memory>

#include "models/etcd/etcdctl.hpp"
#include "models/etcd/trace_kinds.hpp"
#include "scenarios/build.hpp"
#include "scenarios/etcd/member_faults.hpp"
#include "scenarios/etcd/spec.hpp"
#include "scenarios/fault_json.hpp"
#include "scenarios/loader_internal.hpp"
#include "sim/assert.hpp"
#include "sim/text.hpp"
#include "sim/world.hpp"

namespace hasim {
namespace {

using scenario_loader::Context;

constexpr std::int64_t kMaxFillBytes = std::int64_t{1} << 30;  // 1 GiB: values live in memory
constexpr std::int64_t kMaxValueSize = std::int64_t{1} << 20;  // etcd's 1.5 MiB request limit
constexpr std::int64_t kMaxKeep = 1'000'000'000;
constexpr std::int64_t kMaxKeys = 100'000'000;  // 8 digits

bool is_ops_kind(std::string_view kind) {
  return kind == "etcd-fill" || kind == "etcd-compact" || kind == "etcd-defrag" ||
         kind == "etcd-alarm-disarm" || kind == "etcd-snapshot-save";
}

etcd::EtcdctlOp op_of(std::string_view kind) {
  if (kind == "etcd-fill") return etcd::EtcdctlOp::fill;
  if (kind == "etcd-compact") return etcd::EtcdctlOp::compact;
  if (kind == "etcd-defrag") return etcd::EtcdctlOp::defrag;
  if (kind == "etcd-snapshot-save") return etcd::EtcdctlOp::snapshot_save;
  HASIM_ASSERT(kind == "etcd-alarm-disarm");
  return etcd::EtcdctlOp::alarm_disarm;
}

void read_target(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  const std::string form = scenario_loader::one_of(
      c.reader, f, path, {"node", "role"}, spec.kind,
      "\"node\": \"n1\" (etcdctl against that node's member) or \"role\": \"raft-leader\"");
  const std::string at = JsonReader::key_path(path, form);
  if (form == "role") {
    scenario_loader::read_role(c, f[form], at, spec);
    return;
  }
  if (form != "node") return;
  const auto node = c.reader.string(f[form], at);
  if (!node || !scenario_loader::check_node(c, *node, at)) return;
  const EtcdSpec* etcd = c.scenario.section<EtcdSpec>();
  if (etcd != nullptr && !is_listed(etcd->members, *node) && !is_listed(etcd->standby, *node)) {
    c.reader.error(at, "\"" + *node + "\" runs no etcd member; " + spec.kind +
                           " talks to the member on its node; the members are " +
                           scenario_loader::join_quoted(etcd->members, " and "));
    return;
  }
  spec.targets = {*node};
}

bool read_int(Context& c, const Json& f, const std::string& path, std::string_view key,
              std::int64_t min, std::int64_t max, std::int64_t& target) {
  const Json* v = JsonReader::field(f, key);
  if (v == nullptr) return true;
  const auto n = c.reader.integer(*v, JsonReader::key_path(path, key), min, max);
  if (n) target = *n;
  return n.has_value();
}

void read_fill(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  JsonReader& r = c.reader;
  if (JsonReader::field(f, "bytes") == nullptr) {
    r.error(path, "an etcd-fill needs \"bytes\", the total of the values it writes (e.g. "
                  "1048576), so it knows when to stop");
  } else {
    read_int(c, f, path, "bytes", 1, kMaxFillBytes, spec.bytes);
  }
  read_int(c, f, path, "valueSize", 1, kMaxValueSize, spec.value_size);
  read_int(c, f, path, "keys", 0, kMaxKeys, spec.keys);
  if (const Json* prefix = JsonReader::field(f, "prefix")) {
    const std::string at = JsonReader::key_path(path, "prefix");
    const auto text = r.string(*prefix, at);
    if (text && text->empty()) r.error(at, "the key prefix must not be empty (etcd refuses "
                                           "an empty key: ErrGRPCEmptyKey)");
    else if (text) spec.prefix = *text;
  }
  scenario_loader::read_duration_field(r, f, path, "every", DurationSign::non_negative,
                                       spec.every);
}

void read_ops(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  if (!c.has(EtcdSpec::kSection)) {
    c.reader.error(path, "an " + spec.kind + " is a client call to an etcd member; add an "
                                             "\"etcd\" section");
    return;
  }
  read_target(c, f, path, spec);
  scenario_loader::read_duration_field(c.reader, f, path, "timeout", DurationSign::positive,
                                       spec.timeout);
  if (spec.kind == "etcd-fill") read_fill(c, f, path, spec);
  if (spec.kind == "etcd-compact") read_int(c, f, path, "keep", 0, kMaxKeep, spec.keep);
  if (spec.kind == "etcd-snapshot-save") read_snapshot_name(c, f, path, spec);
}

// At the fault's time: the member's node (the role's holder now), and the command posted
// to the etcdctl beside it.
void apply_ops(World& world, const Scenario&, const FaultSpec& fault, const BuildState& built) {
  const NodeTargets nodes = node_targets(world, fault, built);
  const EtcdWiring* wiring = built.get<EtcdWiring>();
  HASIM_ASSERT(wiring != nullptr && wiring->snapshots != nullptr);
  world.at(TrueTime{fault.at.ns}, [&world, fault, nodes, store = wiring->snapshots] {
    const std::vector<NodeId> targets = nodes();
    if (targets.empty()) return;  // an unresolved role, traced
    const std::string node = world.node_name(targets.front());
    const auto client = world.find_process(node + "/etcdctl");
    if (!client) {
      world.trace_fault(etcd::trace_kind::kEtcdctl, node,
                        {{"op", fault.kind}, {"result", std::string("no etcd member on node")}});
      return;
    }
    // An etcdctl whose node is down runs nothing; a snapshot the operator asked for says so.
    if (fault.kind == "etcd-snapshot-save" &&
        world.process_state(*client) != ProcessState::running) {
      world.trace_fault(etcd::trace_kind::kEtcdctl, node,
                        {{"op", std::string("snapshot")},
                         {"name", fault.snapshot_name},
                         {"result", std::string("etcdctl not running (node down)")}});
      return;
    }
    auto command = std::make_shared<etcd::EtcdctlCommand>();
    command->op = op_of(fault.kind);
    command->endpoint = node + "/etcd";
    command->timeout = fault.timeout;
    command->prefix = fault.prefix;
    command->bytes = fault.bytes;
    command->value_size = fault.value_size;
    command->every = fault.every;
    command->keys = fault.keys;
    command->keep = fault.keep;
    command->name = fault.snapshot_name;
    command->store = store;
    world.post(*client, std::move(command));
  });
}

void write_ops(const FaultSpec& f, Json& out) {
  write_fault_targets(f, out);
  if (f.timeout != seconds(5)) out["timeout"] = duration_text(f.timeout);
  if (f.kind == "etcd-fill") {
    out["bytes"] = f.bytes;
    out["valueSize"] = f.value_size;
    if (f.prefix != etcd::kFillPrefix) out["prefix"] = f.prefix;
    if (f.every.ns > 0) out["every"] = duration_text(f.every);
    if (f.keys > 0) out["keys"] = f.keys;
  }
  if (f.kind == "etcd-compact" && f.keep > 0) out["keep"] = f.keep;
  if (f.kind == "etcd-snapshot-save") out["name"] = f.snapshot_name;
}

std::string describe_ops(const FaultSpec& f) {
  const std::string member = "the etcd member of " + fault_target_text(f);
  if (f.kind == "etcd-fill") {
    return "etcd-fill writing "+ std::to_string(f.bytes) + " bytes in values of " +
           std::to_string(f.value_size) +
           (f.keys > 0 ? " over " + std::to_string(f.keys) + " keys" : std::string()) + " to " +
           member;
  }
  if (f.kind == "etcd-compact") {
    return "etcd-compact of " + member + " keeping " + std::to_string(f.keep) + " revisions";
  }
  if (f.kind == "etcd-snapshot-save") {
    return "etcd-snapshot-save of " + member + " as \"" + f.snapshot_name + "\"";
  }
  return f.kind + " of " + member;
}

}  // namespace

std::vector<FaultKind> etcd_ops_fault_kinds() {
  std::vector<FaultKind> kinds;
  for (const std::string_view name :
       {"etcd-fill", "etcd-compact", "etcd-defrag", "etcd-alarm-disarm", "etcd-snapshot-save"}) {
    kinds.push_back({name, read_ops, apply_ops, write_ops, describe_ops, std::nullopt});
  }
  return kinds;
}

std::vector<KeySet> etcd_ops_key_sets() {
  return {
      {"fault:etcd-fill",
       {"at", "kind", "node", "role", "timeout", "bytes", "valueSize", "prefix", "every", "keys"}},
      {"fault:etcd-compact", {"at", "kind", "node", "role", "timeout", "keep"}},
      {"fault:etcd-defrag", {"at", "kind", "node", "role", "timeout"}},
      {"fault:etcd-alarm-disarm", {"at", "kind", "node", "role", "timeout"}},
      {"fault:etcd-snapshot-save", {"at", "kind", "node", "role", "timeout", "name"}},
  };
}

void add_etcdctl(World& world, const Scenario& scenario, const std::vector<std::string>& nodes) {
  const bool wanted = std::any_of(scenario.faults.begin(), scenario.faults.end(),
                                  [](const FaultSpec& f) { return is_ops_kind(f.kind); });
  if (!wanted) return;  // scenarios without them keep their processes (and traces)
  for (const std::string& name : nodes) {
    const auto node = world.find_node(name);
    HASIM_ASSERT(node.has_value());
    world.add_process(*node, "etcdctl", [] { return std::make_unique<etcd::Etcdctl>(); });
  }
}

}  // namespace hasim
