// The control plane's fault kinds: conditions of a node's kube-apiserver (models/apiserver's
// ApiServerConditions) -- apiserver-slow adds latency to each request, apiserver-hang holds
// some verbs until the request timeout (the kubernetes#44887 pattern), apiserver-unavailable
// answers 503.
#include <set>

#include "models/apiserver/messages.hpp"
#include "models/apiserver/trace_kinds.hpp"
#include "scenarios/control_plane/control_plane.hpp"
#include "scenarios/fault_json.hpp"
#include "sim/did_you_mean.hpp"
#include "sim/text.hpp"

namespace hasim {
namespace {

using scenario_loader::Context;

// The request verbs an apiserver-hang fault can hold (models/apiserver).
const std::vector<std::string>& verb_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (api::Verb verb : api::kVerbs) out.emplace_back(api::to_string(verb));
    return out;
  }();
  return names;
}

// The targets of an apiserver fault: nodes that run a kube-apiserver.
void read_apiserver_targets(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  JsonReader& r = c.reader;
  const std::size_t before = r.error_count();
  scenario_loader::read_targets(c, f, path, spec, scenario_loader::TargetForms::nodes);
  const std::string& kind = spec.kind;
  if (!c.has(ControlPlaneSpec::kSection)) {
    r.error(path, "a " + kind +
                      " fault acts on a kube-apiserver, but the scenario has no "
                      "\"controlPlane\", so no node runs one; add \"controlPlane\": {} (a "
                      "control plane on every node) or remove the fault");
    return;
  }
  const ControlPlaneNotes* notes = c.notes.get<ControlPlaneNotes>();
  if (r.error_count() != before || notes == nullptr || !notes->nodes) return;
  const std::vector<std::string>& cp = *notes->nodes;
  const bool single = JsonReader::field(f, "node") != nullptr;
  for (std::size_t i = 0; i < spec.targets.size(); ++i) {
    const std::string& node = spec.targets[i];
    if (std::find(cp.begin(), cp.end(), node) != cp.end()) continue;
    const std::string at = single ? JsonReader::key_path(path, "node")
                                  : JsonReader::index_path(JsonReader::key_path(path, "nodes"), i);
    const std::string why = ", so it runs no kube-apiserver for a " + kind + " fault to act on";
    r.error(at, "node \"" + node + "\" is not a control-plane node" + why + did_you_mean(node, cp) +
                    "; the control-plane nodes are " + join_words(cp) +
                    " (set them with \"nodes\" in \"controlPlane\")");
  }
}

// "verbs": distinct request verbs; absent means every verb.
void read_verbs(JsonReader& r, const Json& f, const std::string& path, FaultSpec& spec) {
  const Json* v = JsonReader::field(f, "verbs");
  if (v == nullptr) return;
  const std::string at = JsonReader::key_path(path, "verbs");
  const auto& names = verb_names();
  if (v->is_array() && v->empty()) {
    r.error(at,
            "an empty \"verbs\" list would hang nothing; leave \"verbs\" out to hang "
            "every request, or list some of " +
                scenario_loader::join_quoted(names, " and "));
    return;
  }
  const auto list = r.string_list(*v, at, "verbs");
  if (!list) return;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const std::string& verb = (*list)[i];
    if (std::find(names.begin(), names.end(), verb) != names.end()) continue;
    r.error(JsonReader::index_path(at, i), "unknown verb \"" + verb + "\"" +
                                               did_you_mean(verb, names) + "; the verbs are " +
                                               scenario_loader::join_quoted(names, " and "));
  }
  spec.verbs = *list;
}

void read_slow(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  read_apiserver_targets(c, f, path, spec);
  if (const Json* v = c.reader.required(f, path, "latency", "\"500ms\"")) {
    const auto latency =
        c.reader.duration(*v, JsonReader::key_path(path, "latency"), DurationSign::positive);
    if (latency) spec.latency = *latency;
  }
}

void read_hang(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  read_apiserver_targets(c, f, path, spec);
  read_verbs(c.reader, f, path, spec);
}

// The trace kind of each apiserver fault's start and end: its own name, declared once.
std::string_view trace_kind_of(const std::string& kind) {
  for (std::string_view k : {api::trace_kind::kApiserverSlow, api::trace_kind::kApiserverHang,
                             api::trace_kind::kApiserverUnavailable}) {
    if (k == kind) return k;
  }
  HASIM_ASSERT(false && "not an apiserver fault");
  return {};
}

// Sets (at `at`) and clears (at at + for, if any) a condition of the named apiservers.
void apply(World& world, const Scenario&, const FaultSpec& fault, const BuildState& built) {
  const ControlPlaneWiring* wiring = built.get<ControlPlaneWiring>();
  HASIM_ASSERT(wiring != nullptr);  // the loader requires a control plane
  std::vector<std::pair<std::string, std::shared_ptr<api::ApiServerConditions>>> targets;
  for (const std::string& node : fault.targets)
    targets.emplace_back(node, wiring->conditions.at(node));
  std::set<api::Verb> verbs;
  for (const std::string& verb : fault.verbs) verbs.insert(*api::parse_verb(verb));  // checked
  const std::string_view trace_kind = trace_kind_of(fault.kind);
  const auto set = [&world, targets, verbs, fault, trace_kind](bool on) {
    for (const auto& [node, conditions] : targets) {
      if (fault.kind == "apiserver-slow")
        conditions->extra_latency = on ? fault.latency : Duration{};
      if (fault.kind == "apiserver-unavailable") conditions->unavailable = on;
      if (fault.kind == "apiserver-hang") {
        conditions->hang = on;
        conditions->hang_verbs = on ? verbs : std::set<api::Verb>{};
      }
      world.trace_fault(trace_kind, node, {{"state", std::string(on ? "start" : "end")}});
    }
  };
  world.at(TrueTime{fault.at.ns}, [set] { set(true); });
  if (fault.for_duration)
    world.at(TrueTime{fault.at.ns} + *fault.for_duration, [set] { set(false); });
}

void write_slow(const FaultSpec& f, Json& out) {
  write_fault_targets(f, out);
  out["latency"] = duration_text(f.latency);
}

void write_hang(const FaultSpec& f, Json& out) {
  write_fault_targets(f, out);
  if (!f.verbs.empty()) out["verbs"] = f.verbs;
}

std::string describe_slow(const FaultSpec& f) {
  return "kube-apiserver on " + join_words(f.targets) + " adding " + format_duration(f.latency) +
         " to each request";
}

std::string describe_hang(const FaultSpec& f) {
  return "kube-apiserver on " + join_words(f.targets) + " hanging " +
         (f.verbs.empty() ? std::string("every request") : join_words(f.verbs) + " requests");
}

std::string describe_unavailable(const FaultSpec& f) {
  return "kube-apiserver on " + join_words(f.targets) + " answering 503";
}

// Added latency in ms.
const FaultMagnitude kLatency{[](const FaultSpec& f) { return f.latency.ns / 1'000'000; },
                              [](FaultSpec& f, std::int64_t ms) { f.latency = milliseconds(ms); }};

}  // namespace

std::vector<FaultKind> control_plane_fault_kinds() {
  return {
      {"apiserver-slow", read_slow, apply, write_slow, describe_slow, kLatency},
      {"apiserver-hang", read_hang, apply, write_hang, describe_hang, std::nullopt},
      {"apiserver-unavailable", read_apiserver_targets, apply, write_fault_targets,
       describe_unavailable, std::nullopt},
  };
}

}  // namespace hasim
