// The kernel's fault kinds (sim/world.hpp): crash, restart, pause, resume, node-down, node-up,
// clock-step, clock-rate, partition, heal, disk-loss, slow-disk, disk-full, pod-delete,
// drop-connections and terminate. Each
// kind's reading, scheduling, JSON and sentence sit together here, so a kind is one entry.
#include "scenarios/kernel/faults.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>

#include "scenarios/build.hpp"
#include "scenarios/fault_json.hpp"
#include "scenarios/loader_internal.hpp"
#include "sim/assert.hpp"
#include "sim/clock.hpp"
#include "sim/text.hpp"
#include "sim/did_you_mean.hpp"
#include "sim/text.hpp"
#include "sim/world.hpp"

namespace hasim {
namespace {

using scenario_loader::Context;
using scenario_loader::TargetForms;

// ---- reading --------------------------------------------------------------------------------

template <TargetForms forms>
void read_plain(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  scenario_loader::read_targets(c, f, path, spec, forms);
}

void read_nothing(Context&, const Json&, const std::string&, FaultSpec&) {}

void read_clock_step(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  scenario_loader::read_targets(c, f, path, spec, TargetForms::nodes_or_role);
  if (const Json* v = c.reader.required(f, path, "by", "\"-2s\"")) {
    const auto by = c.reader.duration(*v, JsonReader::key_path(path, "by"), DurationSign::any);
    if (by) spec.step = *by;
  }
}

void read_clock_rate(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  scenario_loader::read_targets(c, f, path, spec, TargetForms::nodes_or_role);
  bool given = false;
  const auto rate = scenario_loader::read_rate(c.reader, f, path, given);
  if (rate) spec.rate_ppb = *rate;
  if (!given) {
    c.reader.error(path,
                   "a clock-rate fault needs \"drift\" (e.g. \"+100ppm\") or \"rate\" "
                   "(e.g. 2.5, the local clock's seconds per true second)");
  }
}

void read_terminate(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  scenario_loader::read_targets(c, f, path, spec, TargetForms::process_only);
  if (const Json* v = JsonReader::field(f, "grace")) {
    const auto grace =
        c.reader.duration(*v, JsonReader::key_path(path, "grace"), DurationSign::non_negative);
    if (grace) spec.grace = *grace;
  }
}

// "disk": one disk of the target nodes (every disk if left out); not with "process".
void read_disk_name(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  const Json* disk = JsonReader::field(f, "disk");
  if (disk == nullptr) return;
  const std::string at = JsonReader::key_path(path, "disk");
  const auto name = c.reader.string(*disk, at);
  if (!name) return;
  if (JsonReader::field(f, "process") != nullptr) {
    c.reader.error(at, "\"disk\" names a disk of the target nodes; aim the fault with \"node\" "
                       "or \"nodes\", or leave \"disk\" out to hit the process's whole node");
    return;
  }
  if (spec.role.empty()) scenario_loader::check_disk(c, spec.targets, *name, at);
  spec.disk = *name;
}

template <TargetForms forms>
void read_disk_fault(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  scenario_loader::read_targets(c, f, path, spec, forms);
  read_disk_name(c, f, path, spec);
}

// slow-disk: "factor", how many times as long each operation takes (etcd's WAL on a noisy
// neighbour's disk: fsyncs of 100ms and more, against 2ms healthy).
void read_slow_disk(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  read_disk_fault<TargetForms::nodes_or_role>(c, f, path, spec);
  if (const Json* v = c.reader.required(f, path, "factor", "50")) {
    if (const auto factor = c.reader.integer(*v, JsonReader::key_path(path, "factor"), 2,
                                             1'000'000)) {
      spec.factor = *factor;
    }
  }
}

// A partition that leaves nobody on the other side cuts nothing: almost surely a mistake.
void check_not_everyone(Context& c, const std::vector<std::string>& cut, const std::string& path) {
  if (c.nodes.known && cut.size() == c.nodes.names.size()) {
    c.reader.error(path,
                   "this isolates every node, so nothing is cut off; leave at least one "
                   "node out");
  }
}

void read_isolate_zone(Context& c, const Json& f, const std::string& at, FaultSpec& spec) {
  JsonReader& r = c.reader;
  const auto zone = r.string(f["isolateZone"], at);
  if (!zone || !c.nodes.known) return;
  std::vector<std::string> zones;
  for (const auto& [node, z] : c.nodes.zone_of) {
    if (z == *zone) spec.targets.push_back(node);
    if (!z.empty() && zones.end() == std::find(zones.begin(), zones.end(), z)) zones.push_back(z);
  }
  if (spec.targets.empty()) {
    r.error(at, "unknown zone \"" + *zone + "\"" + did_you_mean(*zone, zones) +
                    (zones.empty()
                         ? "; no node has a zone, so give nodes a \"zone\""
                         : "; the zones are " + scenario_loader::join_quoted(zones, " and ")));
  }
  check_not_everyone(c, spec.targets, at);
}

void read_groups(Context& c, const Json& groups, const std::string& at, FaultSpec& spec) {
  JsonReader& r = c.reader;
  if (!r.array(groups, at, "[[\"n1\"], [\"n2\", \"n3\"]]")) return;
  if (groups.size() < 2) {
    r.error(at, "expected at least two groups to cut apart, found " +
                    std::to_string(groups.size()) + "; e.g. [[\"n1\"], [\"n2\", \"n3\"]]");
    return;
  }
  std::map<std::string, std::string> group_of;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const std::string group_path = JsonReader::index_path(at, g);
    auto list = scenario_loader::read_node_list(c, groups[g], group_path);
    if (!list) continue;
    for (std::size_t i = 0; i < list->size(); ++i) {
      const auto [it, fresh] = group_of.emplace((*list)[i], group_path);
      if (!fresh) {
        r.error(JsonReader::index_path(group_path, i),
                "node \"" + (*list)[i] + "\" is already in the group at " + it->second +
                    "; groups must not overlap");
      }
    }
    spec.groups.push_back(std::move(*list));
  }
}

void read_oneway(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  JsonReader& r = c.reader;
  const Json* from = r.required(f, path, "from", "[\"n1\"]");
  const Json* to = r.required(f, path, "to", "[\"n2\"]");
  if (from == nullptr || to == nullptr) return;
  auto senders = scenario_loader::read_node_list(c, *from, JsonReader::key_path(path, "from"));
  auto receivers = scenario_loader::read_node_list(c, *to, JsonReader::key_path(path, "to"));
  if (!senders || !receivers) return;
  const std::set<std::string> sending(senders->begin(), senders->end());
  for (std::size_t i = 0; i < receivers->size(); ++i) {
    if (sending.count((*receivers)[i]) == 0) continue;
    r.error(JsonReader::index_path(JsonReader::key_path(path, "to"), i),
            "node \"" + (*receivers)[i] +
                "\" is in both \"from\" and \"to\"; a node cannot "
                "be cut off from itself, so list it on one side only");
  }
  spec.from = std::move(*senders);
  spec.to = std::move(*receivers);
}

void read_partition(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  // "to" alone stands for the one-way form, so its missing "from" is reported below.
  const std::string oneway =
      JsonReader::field(f, "from") == nullptr && JsonReader::field(f, "to") != nullptr ? "to"
                                                                                       : "from";
  const std::string form = scenario_loader::one_of(
      c.reader, f, path, {"isolate", "isolateZone", "groups", oneway, "role"}, "partition",
      "one of \"isolate\": [\"n1\"], \"isolateZone\": \"a\", \"groups\": [[\"n1\"], "
      "[\"n2\", \"n3\"]], \"from\": [\"n1\"] with \"to\": [\"n2\"], or \"role\": "
      "\"raft-leader\" (isolates the node of the role's holder when the partition starts)");
  const std::string at = JsonReader::key_path(path, form);
  if (form == "role") {
    spec.partition_mode = FaultSpec::PartitionMode::isolate;
    scenario_loader::read_role(c, f[form], at, spec);
  } else if (form == "isolate") {
    spec.partition_mode = FaultSpec::PartitionMode::isolate;
    if (auto list = scenario_loader::read_node_list(c, f[form], at)) {
      check_not_everyone(c, *list, at);
      spec.targets = *list;
    }
  } else if (form == "isolateZone") {
    spec.partition_mode = FaultSpec::PartitionMode::isolate;
    read_isolate_zone(c, f, at, spec);
  } else if (form == "groups") {
    spec.partition_mode = FaultSpec::PartitionMode::groups;
    read_groups(c, f[form], at, spec);
  } else if (form == "from" || form == "to") {
    spec.partition_mode = FaultSpec::PartitionMode::oneway;
    read_oneway(c, f, path, spec);
  }
}

// ---- scheduling -------------------------------------------------------------------------------

std::optional<TrueTime> until_of(const FaultSpec& f) {
  if (!f.for_duration) return std::nullopt;
  return TrueTime{f.at.ns} + *f.for_duration;
}

// crash, restart, pause, resume: at `at` on every target process; crash and pause are undone
// (restart, resume) after `for`, on the processes they hit.
void apply_process(World& world, const Scenario&, const FaultSpec& fault, const BuildState& built) {
  World* w = &world;
  const ProcessTargets targets = process_targets(world, fault, built);
  auto hit = std::make_shared<std::vector<ProcessId>>();
  const std::string kind = fault.kind;
  world.at(TrueTime{fault.at.ns}, [w, targets, hit, kind] {
    *hit = targets();
    for (ProcessId id : *hit) {
      if (kind == "crash") w->crash(id);
      if (kind == "restart") w->restart(id);
      if (kind == "pause") w->pause(id);
      if (kind == "resume") w->resume(id);
    }
  });
  const auto until = until_of(fault);
  if (until && kind == "crash")
    world.at(*until, [w, hit] {
      for (ProcessId id : *hit) w->restart(id);
    });
  if (until && kind == "pause")
    world.at(*until, [w, hit] {
      for (ProcessId id : *hit) w->resume(id);
    });
}

void apply_node_power(World& world, const Scenario&, const FaultSpec& fault,
                      const BuildState& built) {
  World* w = &world;
  const NodeTargets targets = node_targets(world, fault, built);
  auto hit = std::make_shared<std::vector<NodeId>>();
  const bool down = fault.kind == "node-down";
  world.at(TrueTime{fault.at.ns}, [w, targets, hit, down] {
    *hit = targets();
    for (NodeId id : *hit) down ? w->node_down(id) : w->node_up(id);
  });
  const auto until = until_of(fault);
  if (until && down)
    world.at(*until, [w, hit] {
      for (NodeId id : *hit) w->node_up(id);
    });
}

void apply_clock_step(World& world, const Scenario&, const FaultSpec& fault,
                      const BuildState& built) {
  World* w = &world;
  const NodeTargets targets = node_targets(world, fault, built);
  const Duration by = fault.step;
  world.at(TrueTime{fault.at.ns}, [w, targets, by] {
    for (NodeId id : targets()) w->clock_step(id, by);
  });
}

void apply_clock_rate(World& world, const Scenario& scenario, const FaultSpec& fault,
                      const BuildState& built) {
  World* w = &world;
  const NodeTargets targets = node_targets(world, fault, built);
  auto hit = std::make_shared<std::vector<NodeId>>();
  const std::int64_t rate = fault.rate_ppb;
  world.at(TrueTime{fault.at.ns}, [w, targets, hit, rate] {
    *hit = targets();
    for (NodeId id : *hit) w->clock_rate(id, rate);
  });
  const auto until = until_of(fault);
  if (!until) return;
  std::vector<std::int64_t> configured;  // by node id
  for (const NodeSpec& node : scenario.nodes) configured.push_back(node.clock.rate_ppb);
  world.at(*until, [w, hit, configured] {
    for (NodeId id : *hit) w->clock_rate(id, configured[id]);
  });
}

std::vector<DirectedEdge> cut_of(const World& world, const FaultSpec& fault) {
  switch (fault.partition_mode) {
    case FaultSpec::PartitionMode::isolate:
      return Reachability::isolate(nodes_of(world, fault.targets), world.node_count());
    case FaultSpec::PartitionMode::groups: {
      std::vector<std::vector<NodeId>> groups;
      for (const auto& group : fault.groups) groups.push_back(nodes_of(world, group));
      return Reachability::between_groups(groups);
    }
    case FaultSpec::PartitionMode::oneway:
      return Reachability::one_way(nodes_of(world, fault.from), nodes_of(world, fault.to));
  }
  return {};
}

// The partition as its fault defines it, for the trace (properties/kernel/partition_respected).
std::vector<TraceField> shape_of(const FaultSpec& fault) {
  switch (fault.partition_mode) {
    case FaultSpec::PartitionMode::isolate:
      return {{"isolate", join_words(fault.targets, ",")}};
    case FaultSpec::PartitionMode::groups: {
      std::vector<std::string> groups;
      for (const auto& group : fault.groups) groups.push_back(join_words(group, ","));
      return {{"groups", join_words(groups, "|")}};
    }
    case FaultSpec::PartitionMode::oneway:
      return {{"from", join_words(fault.from, ",")}, {"to", join_words(fault.to, ",")}};
  }
  return {};
}

// A partition with a role isolates the node of the role's holder, resolved when it starts
// (nothing is cut if nobody holds it); its heal undoes that cut.
void apply_partition(World& world, const Scenario&, const FaultSpec& fault,
                     const BuildState& built) {
  World* w = &world;
  auto cut_id = std::make_shared<std::uint64_t>(0);
  if (!fault.role.empty()) {
    const NodeTargets targets = node_targets(world, fault, built);
    world.at(TrueTime{fault.at.ns}, [w, targets, cut_id] {
      const std::vector<NodeId> nodes = targets();
      if (nodes.empty()) return;
      std::vector<std::string> names;
      for (NodeId node : nodes) names.push_back(w->node_name(node));
      *cut_id = w->partition(Reachability::isolate(nodes, w->node_count()),
                             {{"isolate", join_words(names, ",")}});
    });
  } else {
    const auto cut = cut_of(world, fault);
    const std::vector<TraceField> shape = shape_of(fault);
    world.at(TrueTime{fault.at.ns},
             [w, cut, shape, cut_id] { *cut_id = w->partition(cut, shape); });
  }
  if (const auto until = until_of(fault)) world.at(*until, [w, cut_id] { w->heal(*cut_id); });
}

void apply_heal(World& world, const Scenario&, const FaultSpec& fault, const BuildState&) {
  World* w = &world;
  world.at(TrueTime{fault.at.ns}, [w] { w->heal_all(); });
}

void apply_disk_loss(World& world, const Scenario&, const FaultSpec& fault,
                     const BuildState& built) {
  World* w = &world;
  const NodeTargets targets = node_targets(world, fault, built);
  auto hit = std::make_shared<std::vector<NodeId>>();
  const std::string disk = fault.disk;
  world.at(TrueTime{fault.at.ns}, [w, targets, hit, disk] {
    *hit = targets();
    for (NodeId id : *hit) disk.empty() ? w->disk_loss(id) : w->disk_loss(id, disk);
  });
  // The disk is replaced and the processes start again, empty, after `for` (or at once).
  world.at(until_of(fault).value_or(TrueTime{fault.at.ns}), [w, hit] {
    for (NodeId id : *hit) {
      for (ProcessId process : w->processes_on(id)) w->restart(process);
    }
  });
}

// The disks a slow-disk or disk-full fault hits on `node`: the one it names, or every one.
std::vector<std::string> disks_hit(const World& world, NodeId node, const std::string& disk) {
  return disk.empty() ? world.disk_names(node) : std::vector<std::string>{disk};
}

// slow-disk and disk-full: at `at` on the target nodes' disks; undone after `for`.
void apply_disk_state(World& world, const Scenario&, const FaultSpec& fault,
                      const BuildState& built) {
  World* w = &world;
  const NodeTargets targets = node_targets(world, fault, built);
  auto hit = std::make_shared<std::vector<NodeId>>();
  const bool slow = fault.kind == "slow-disk";
  const std::int64_t factor = fault.factor;
  const std::string disk = fault.disk;
  auto set = [w, hit, slow, disk](std::int64_t factor_now, bool full) {
    for (NodeId id : *hit) {
      for (const std::string& d : disks_hit(*w, id, disk)) {
        slow ? w->slow_disk(id, d, factor_now) : w->disk_full(id, d, full);
      }
    }
  };
  world.at(TrueTime{fault.at.ns}, [targets, hit, set, factor] {
    *hit = targets();
    set(factor, true);
  });
  if (const auto until = until_of(fault)) world.at(*until, [set] { set(1, false); });
}

// pod-delete: the pod goes with its ephemeral volumes; its controller re-creates it after
// `for` (a StatefulSet's pod comes back under the same name), or a later restart does.
void apply_pod_delete(World& world, const Scenario&, const FaultSpec& fault,
                      const BuildState& built) {
  World* w = &world;
  const ProcessTargets targets = process_targets(world, fault, built);
  auto hit = std::make_shared<std::vector<ProcessId>>();
  world.at(TrueTime{fault.at.ns}, [w, targets, hit] {
    // A pod's containers go with it (World::delete_pod), so all of them come back.
    for (ProcessId id : targets()) {
      for (ProcessId container : w->pod_containers(id)) {
        if (std::find(hit->begin(), hit->end(), container) == hit->end()) hit->push_back(container);
      }
      w->delete_pod(id);
    }
  });
  if (const auto until = until_of(fault)) {
    world.at(*until, [w, hit] {
      for (ProcessId id : *hit) w->restart(id);
    });
  }
}

void apply_drop_connections(World& world, const Scenario&, const FaultSpec& fault,
                            const BuildState& built) {
  World* w = &world;
  const NodeTargets targets = node_targets(world, fault, built);
  world.at(TrueTime{fault.at.ns}, [w, targets] {
    for (NodeId id : targets()) w->drop_connections(id);
  });
}

void apply_terminate(World& world, const Scenario&, const FaultSpec& fault,
                     const BuildState& built) {
  World* w = &world;
  const ProcessTargets targets = process_targets(world, fault, built);
  auto hit = std::make_shared<std::vector<ProcessId>>();
  const Duration grace = fault.grace;
  world.at(TrueTime{fault.at.ns}, [w, targets, hit, grace] {
    *hit = targets();
    for (ProcessId id : *hit) w->terminate(id, grace);
  });
  if (const auto until = until_of(fault)) {
    world.at(*until, [w, hit] {
      for (ProcessId id : *hit) w->restart(id);
    });
  }
}

// ---- writing and describing ---------------------------------------------------------------

void write_nothing(const FaultSpec&, Json&) {}

void write_clock_step(const FaultSpec& f, Json& out) {
  write_fault_targets(f, out);
  out["by"] = duration_text(f.step);
}

void write_clock_rate(const FaultSpec& f, Json& out) {
  write_fault_targets(f, out);
  out["drift"] = drift_text(f.rate_ppb);
}

void write_terminate(const FaultSpec& f, Json& out) {
  write_fault_targets(f, out);
  out["grace"] = duration_text(f.grace);
}

void write_disk_fault(const FaultSpec& f, Json& out) {
  write_fault_targets(f, out);
  if (!f.disk.empty()) out["disk"] = f.disk;
  if (f.kind == "slow-disk") out["factor"] = f.factor;
}

std::string describe_disk_fault(const FaultSpec& f) {
  const std::string disks = f.disk.empty() ? "every disk" : "disk \"" + f.disk + "\"";
  if (f.kind == "slow-disk") {
    return "slow disk (" + std::to_string(f.factor) + "x latency) on " + disks + " of " +
           fault_target_text(f);
  }
  if (f.kind == "disk-full") return "full disk (ENOSPC) on " + disks + " of " + fault_target_text(f);
  return f.kind + " of " + (f.disk.empty() ? "" : disks + " of ") + fault_target_text(f);
}

void write_partition(const FaultSpec& f, Json& out) {
  switch (f.partition_mode) {
    case FaultSpec::PartitionMode::isolate:
      if (f.role.empty()) out["isolate"] = f.targets;
      else out["role"] = f.role;
      break;
    case FaultSpec::PartitionMode::groups:
      out["groups"] = f.groups;
      break;
    case FaultSpec::PartitionMode::oneway:
      out["from"] = f.from;
      out["to"] = f.to;
      break;
  }
}

std::string describe_plain(const FaultSpec& f) { return f.kind + " of " + fault_target_text(f); }

std::string describe_partition(const FaultSpec& f) {
  switch (f.partition_mode) {
    case FaultSpec::PartitionMode::isolate:
      return "partition isolating " + fault_target_text(f);
    case FaultSpec::PartitionMode::groups: {
      std::vector<std::string> groups;
      for (const auto& g : f.groups) groups.push_back("{" + join_words(g) + "}");
      return "partition splitting " + join_words(groups, " | ");
    }
    case FaultSpec::PartitionMode::oneway:
      return "one-way partition from {" + join_words(f.from) + "} to {" + join_words(f.to) + "}";
  }
  return "partition";
}

std::string describe_clock_step(const FaultSpec& f) {
  return "clock step of " + fault_target_text(f) + " by " + format_duration(f.step);
}

std::string describe_clock_rate(const FaultSpec& f) {
  char rate[32];
  std::snprintf(rate, sizeof rate, "%.6f", static_cast<double>(f.rate_ppb) / 1e9);
  return "clock of " + fault_target_text(f) + " running at rate " + rate;
}

// ---- shrinking --------------------------------------------------------------------------------

constexpr std::int64_t kMs = 1'000'000;

// A clock step's size in ms, keeping its direction.
const FaultMagnitude kStepSize{
    [](const FaultSpec& f) { return (f.step.ns < 0 ? -f.step.ns : f.step.ns) / kMs; },
    [](FaultSpec& f, std::int64_t ms) { f.step = milliseconds(f.step.ns < 0 ? -ms : ms); }};

// A clock rate's distance from a perfect clock, in whole ppm, on the same side of it.
const FaultMagnitude kRateDistance{
    [](const FaultSpec& f) {
      const std::int64_t ppm = (f.rate_ppb - kRatePerfect) / 1000;
      return ppm < 0 ? -ppm : ppm;
    },
    [](FaultSpec& f, std::int64_t distance) {
      f.rate_ppb = rate_from_ppm(f.rate_ppb < kRatePerfect ? -distance : distance);
    }};

// A slow disk's factor: shrinking toward 2 keeps it slow but less so.
const FaultMagnitude kSlowFactor{[](const FaultSpec& f) { return f.factor - 2; },
                                 [](FaultSpec& f, std::int64_t excess) { f.factor = excess + 2; }};

constexpr auto kProcess = TargetForms::nodes_or_process;
constexpr auto kNodes = TargetForms::nodes;
constexpr auto kNodeOrRole = TargetForms::nodes_or_role;

}  // namespace

std::vector<FaultKind> kernel_fault_kinds() {
  const auto w = write_fault_targets;
  return {
      {"crash", read_plain<kProcess>, apply_process, w, describe_plain, std::nullopt},
      {"restart", read_plain<kProcess>, apply_process, w, describe_plain, std::nullopt},
      {"pause", read_plain<kProcess>, apply_process, w, describe_plain, std::nullopt},
      {"resume", read_plain<kProcess>, apply_process, w, describe_plain, std::nullopt},
      {"node-down", read_plain<kNodeOrRole>, apply_node_power, w, describe_plain, std::nullopt},
      {"node-up", read_plain<kNodes>, apply_node_power, w, describe_plain, std::nullopt},
      {"clock-step", read_clock_step, apply_clock_step, write_clock_step, describe_clock_step,
       kStepSize},
      {"clock-rate", read_clock_rate, apply_clock_rate, write_clock_rate, describe_clock_rate,
       kRateDistance},
      {"partition", read_partition, apply_partition, write_partition, describe_partition,
       std::nullopt},
      {"heal", read_nothing, apply_heal, write_nothing,
       [](const FaultSpec&) { return std::string("heal of "); }, std::nullopt},
      {"disk-loss", read_disk_fault<kProcess>, apply_disk_loss, write_disk_fault,
       describe_disk_fault, std::nullopt},
      {"slow-disk", read_slow_disk, apply_disk_state, write_disk_fault, describe_disk_fault,
       kSlowFactor},
      {"disk-full", read_disk_fault<kNodeOrRole>, apply_disk_state, write_disk_fault,
       describe_disk_fault, std::nullopt},
      {"pod-delete", read_plain<TargetForms::process_only>, apply_pod_delete, w, describe_plain,
       std::nullopt},
      {"drop-connections", read_plain<kNodeOrRole>, apply_drop_connections, w, describe_plain,
       std::nullopt},
      {"terminate", read_terminate, apply_terminate, write_terminate, describe_plain, std::nullopt},
  };
}

}  // namespace hasim
