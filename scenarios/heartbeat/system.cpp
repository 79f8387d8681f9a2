// The heartbeat demo as a registered system (scenarios/system.hpp): section "heartbeat", a
// failure detector process "heartbeat" on every node (models/demo/heartbeat.hpp).
#include "models/demo/heartbeat.hpp"
#include "models/demo/trace_kinds.hpp"
#include "scenarios/heartbeat/heartbeat.hpp"
#include "scenarios/loader_internal.hpp"
#include "scenarios/system.hpp"
#include "sim/world.hpp"

namespace hasim {
namespace {

using scenario_loader::Context;
using scenario_loader::keys;

void read_heartbeat(Context& c, const Json& value, const std::string& path) {
  JsonReader& r = c.reader;
  if (!r.object(value, path, keys("heartbeat"), "the heartbeat detector")) return;
  HeartbeatSpec spec;
  bool ok = true;
  const Json* interval = JsonReader::field(value, "interval");
  const Json* timeout = JsonReader::field(value, "timeout");
  if (interval != nullptr) {
    const auto d =
        r.duration(*interval, JsonReader::key_path(path, "interval"), DurationSign::positive);
    ok = ok && d.has_value();
    if (d) spec.interval = *d;
  }
  if (timeout != nullptr) {
    const auto d =
        r.duration(*timeout, JsonReader::key_path(path, "timeout"), DurationSign::positive);
    ok = ok && d.has_value();
    if (d) spec.timeout = *d;
  }
  if (ok && spec.timeout <= spec.interval) {
    auto show = [](Duration d, const Json* given) {
      return short_duration(d) + (given == nullptr ? " (the default)" : "");
    };
    r.error(JsonReader::key_path(path, timeout != nullptr ? "timeout" : "interval"),
            "timeout " + show(spec.timeout, timeout) + " must be longer than interval " +
                show(spec.interval, interval) +
                ": a peer is suspected when nothing is heard from it for the timeout, so a "
                "timeout this short suspects healthy peers; make the timeout at least two or "
                "three intervals, e.g. interval \"1s\" with timeout \"3s\"");
    ok = false;
  }
  if (ok) c.scenario.sections.set(spec);
}

void add_heartbeat(World& world, const Scenario& scenario, BuildState&) {
  const HeartbeatSpec& spec = *scenario.section<HeartbeatSpec>();
  for (NodeId node = 0; node < world.node_count(); ++node) {
    HeartbeatConfig config{spec.interval, spec.timeout, {}};
    for (NodeId peer = 0; peer < world.node_count(); ++peer) {
      if (peer != node) config.peers.push_back(world.node_name(peer) + "/heartbeat");
    }
    world.add_process(node, "heartbeat",
                      [config] { return std::make_unique<HeartbeatDetector>(config); });
  }
}

std::optional<std::vector<std::string>> processes_on(const Context&, const std::string&) {
  return std::vector<std::string>{"heartbeat"};
}

}  // namespace

const ScenarioSystem& heartbeat_scenario_system() {
  static const ScenarioSystem system = [] {
    ScenarioSystem s;
    s.name = "heartbeat";
    s.section = HeartbeatSpec::kSection;
    s.key_sets = {{"heartbeat", {"interval", "timeout"}}};
    s.read = read_heartbeat;
    s.processes_on = processes_on;
    s.process_origin = "\"heartbeat\" (\"heartbeat\" on every node)";
    s.build = add_heartbeat;
    s.trace_kinds.assign(demo::trace_kind::kAll.begin(), demo::trace_kind::kAll.end());
    s.dictionary = {"n1/heartbeat"};
    return s;
  }();
  return system;
}

}  // namespace hasim
