// The journal demo as a registered system (scenarios/system.hpp): section "journal", a
// write-ahead journal process "journal" on each of its nodes, with a volume "wal" on a disk
// of that node (models/journal/journal.hpp, sim/disk.hpp).
#include <algorithm>

#include "models/journal/trace_kinds.hpp"
#include "scenarios/journal/journal.hpp"
#include "scenarios/loader_internal.hpp"
#include "sim/assert.hpp"
#include "sim/world.hpp"

namespace hasim {
namespace {

using scenario_loader::Context;
using scenario_loader::keys;
using scenario_loader::read_choice;

const std::vector<std::string> kAckNames{"after-fsync", "after-write"};
const std::vector<std::string> kVolumeNames{"persistent", "ephemeral", "memory"};

void read_journal(Context& c, const Json& value, const std::string& path) {
  JsonReader& r = c.reader;
  if (!r.object(value, path, keys("journal"), "the journal")) return;
  JournalSpec spec;
  bool ok = true;
  if (const Json* nodes = JsonReader::field(value, "nodes")) {
    auto list = scenario_loader::read_node_list(c, *nodes, JsonReader::key_path(path, "nodes"));
    ok = ok && list.has_value();
    if (list) spec.nodes = *list;
  } else {
    spec.nodes = c.nodes.names;
  }
  ok = scenario_loader::read_duration_field(r, value, path, "interval", DurationSign::positive,
                                            spec.config.interval) &&
       ok;
  ok = read_choice(c, value, path, "ack", kAckNames, spec.config.ack) && ok;
  ok = read_choice(c, value, path, "volume", kVolumeNames, spec.volume) && ok;
  if (const Json* disk = JsonReader::field(value, "disk")) {
    const std::string at = JsonReader::key_path(path, "disk");
    const auto name = r.string(*disk, at);
    const bool known = name.has_value() && scenario_loader::check_disk(c, spec.nodes, *name, at);
    ok = known && ok;
    if (name) spec.disk = *name;
  }
  if (ok) c.scenario.sections.set(spec);
}

void add_journals(World& world, const Scenario& scenario, BuildState&) {
  const JournalSpec& spec = *scenario.section<JournalSpec>();
  for (const std::string& name : spec.nodes) {
    const auto node = world.find_node(name);
    HASIM_ASSERT(node.has_value());
    const std::string disk = spec.disk.empty() ? world.disk_names(*node).front() : spec.disk;
    JournalConfig config = spec.config;
    config.disk = disk;
    config.volume = spec.volume;
    const ProcessId process = world.add_process(
        *node, "journal", [config] { return std::make_unique<Journal>(config); });
    world.add_volume(process, std::string(Journal::kVolume), disk, spec.volume);
  }
}

std::optional<std::vector<std::string>> processes_on(const Context& c, const std::string& node) {
  const JournalSpec* spec = c.scenario.section<JournalSpec>();
  if (spec == nullptr) return std::nullopt;
  const bool here = std::find(spec->nodes.begin(), spec->nodes.end(), node) != spec->nodes.end();
  return here ? std::vector<std::string>{"journal"} : std::vector<std::string>{};
}

}  // namespace

const ScenarioSystem& journal_scenario_system() {
  static const ScenarioSystem system = [] {
    ScenarioSystem s;
    s.name = "journal";
    s.section = JournalSpec::kSection;
    s.key_sets = {{"journal", {"nodes", "interval", "ack", "volume", "disk"}}};
    s.read = read_journal;
    s.processes_on = processes_on;
    s.process_origin = "\"journal\" (\"journal\" on each of its nodes)";
    s.build = add_journals;
    s.trace_kinds.assign(journal::trace_kind::kAll.begin(), journal::trace_kind::kAll.end());
    s.dictionary = {"after-fsync", "after-write", "persistent", "ephemeral", "memory",
                    "n1/journal"};
    return s;
  }();
  return system;
}

}  // namespace hasim
