// "faults": when, what kind, for how long; the kind's own keys are read by the kind, as
// registered by its system (scenarios/system.hpp). Also the target forms kinds share.
#include <algorithm>

#include "scenarios/loader_internal.hpp"
#include "scenarios/system.hpp"
#include "sim/did_you_mean.hpp"
#include "sim/text.hpp"

namespace hasim::scenario_loader {
namespace {

// Reports `process` at `path` unless build_world starts it on `node`: each registered
// system says which processes it runs where (the heartbeat detector on every node, the
// control-plane components on each control-plane node, ...). A fault aimed at a process that
// never exists would otherwise reach the builder.
bool check_process(Context& c, const std::string& node, const std::string& process,
                   const std::string& path) {
  std::vector<std::string> running;
  std::vector<std::string> origins;
  for (const ScenarioSystem* system : scenario_systems()) {
    if (system->processes_on == nullptr) continue;
    origins.emplace_back(system->process_origin);
    if (!system->section.empty() && !c.has(system->section)) continue;
    const auto on_node = system->processes_on(c, node);
    if (!on_node) return true;  // not known: the section's own error is reported
    running.insert(running.end(), on_node->begin(), on_node->end());
  }
  if (std::find(running.begin(), running.end(), process) != running.end()) return true;
  std::string message = "unknown process \"" + process + "\" on node \"" + node + "\"";
  if (running.empty()) {
    message += ": no process runs on \"" + node + "\"; processes come from " +
               join_words(origins, " and ") +
               ", so add one of them or use \"node\" to hit the node";
  } else {
    message += did_you_mean(process, running) + "; the processes on \"" + node + "\" are " +
               join_quoted(running, " and ");
  }
  c.reader.error(path, message);
  return false;
}

// How many directed links a partition cuts (Reachability::isolate, between_groups, one_way);
// 0 for other faults. Partitions of hundreds of nodes cut hundreds of thousands of links, and
// build_world lists every one up front, so their sum is bounded.
constexpr std::uint64_t kMaxCutLinks = 10'000'000;

std::uint64_t cut_links(const FaultSpec& spec, std::size_t node_count) {
  if (spec.kind != "partition") return 0;
  switch (spec.partition_mode) {
    case FaultSpec::PartitionMode::isolate: {
      // A role isolates the one node of the process that holds it.
      const std::uint64_t k = spec.role.empty() ? spec.targets.size() : 1;
      return k <= node_count ? 2 * k * (node_count - k) : 0;
    }
    case FaultSpec::PartitionMode::groups: {
      std::uint64_t total = 0;
      std::uint64_t links = 0;
      for (const auto& group : spec.groups) total += group.size();
      for (const auto& group : spec.groups) links += group.size() * (total - group.size());
      return links;
    }
    case FaultSpec::PartitionMode::oneway:
      return static_cast<std::uint64_t>(spec.from.size()) * spec.to.size();
  }
  return 0;
}

void read_fault(Context& c, const Json& f, const std::string& path) {
  JsonReader& r = c.reader;
  if (!r.object(f, path, keys("fault"), "a fault")) return;
  const std::size_t before = r.error_count();
  FaultSpec spec;
  if (const Json* v = r.required(f, path, "at", "\"2m\"")) {
    const std::string at = JsonReader::key_path(path, "at");
    if (auto d = r.duration(*v, at, DurationSign::non_negative)) {
      spec.at = *d;
      if (c.duration && *d >= *c.duration) {
        r.error(at, "the fault at " + short_duration(*d) + " happens after the run ends at " +
                        short_duration(*c.duration) +
                        "; make \"at\" earlier or lengthen the scenario's \"duration\"");
      }
    }
  }
  const Json* kind_json = r.required(f, path, "kind", "\"crash\"");
  if (kind_json == nullptr) return;
  const std::string kind_path = JsonReader::key_path(path, "kind");
  const auto kind_name = r.string(*kind_json, kind_path);
  if (!kind_name) return;
  const FaultKind* kind = find_fault_kind(*kind_name);
  if (kind == nullptr) {
    r.error(kind_path, "unknown fault kind \"" + *kind_name + "\"" +
                           did_you_mean(*kind_name, fault_kind_names()) + "; the kinds are " +
                           join_quoted(fault_kind_names(), " and "));
    return;
  }
  spec.kind = std::string(kind->name);
  const std::size_t before_kind = r.error_count();
  r.inapplicable(f, path, keys("fault"), keys("fault:" + spec.kind), "a " + spec.kind + " fault");
  if (r.error_count() != before_kind) return;  // other errors would be echoes of these

  if (const Json* v = JsonReader::field(f, "for")) {
    spec.for_duration = r.duration(*v, JsonReader::key_path(path, "for"), DurationSign::positive);
  }
  kind->read(c, f, path, spec);
  if (r.error_count() == before) c.scenario.faults.push_back(std::move(spec));
}

}  // namespace

// "role": "KIND:ARGUMENT", a role some registered system resolves when the fault fires.
void read_role(Context& c, const Json& value, const std::string& at, FaultSpec& spec) {
  const auto text = c.reader.string(value, at);
  if (!text) return;
  const RoleKind* role = find_role_kind(*text);
  const std::string name = text->substr(0, text->find(':'));
  if (role == nullptr) {
    const auto names = role_kind_names();
    c.reader.error(at, "unknown role \"" + name + "\"" + did_you_mean(name, names) +
                           (names.empty() ? std::string("; no system here resolves roles")
                                          : "; the roles are " + join_quoted(names, " and ")) +
                           ", e.g. \"leader:kube-system/kube-controller-manager\"");
    return;
  }
  for (const ScenarioSystem* system : scenario_systems()) {
    const auto& roles = system->roles;
    const bool owns = std::any_of(roles.begin(), roles.end(),
                                  [role](const RoleKind& r) { return &r == role; });
    if (!owns || system->section.empty() || c.has(system->section)) continue;
    c.reader.error(at, "role \"" + name + "\" is " + std::string(role->meaning) +
                           ", but the scenario has no \"" + std::string(system->section) +
                           "\" to hold it; add one or aim the fault at a \"node\" or \"process\"");
    return;
  }
  const std::size_t colon = text->find(':');
  const std::string argument = colon == std::string::npos ? "" : text->substr(colon + 1);
  if (auto why = role->check(argument)) {
    c.reader.error(at, "role \"" + *text + "\": " + *why + "; e.g. \"" +
                           std::string(role->example) + "\" (" + std::string(role->meaning) + ")");
    return;
  }
  spec.role = *text;
}

std::string join_quoted(const std::vector<std::string>& words, std::string_view last_joiner) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += i + 1 == words.size() ? std::string(last_joiner) : ", ";
    out += "\"" + words[i] + "\"";
  }
  return out;
}

// Exactly one of `forms` must be present; reports none or several. Returns the one, or "".
std::string one_of(JsonReader& r, const Json& f, const std::string& path,
                   const std::vector<std::string>& forms, const std::string& kind,
                   std::string_view examples) {
  std::vector<std::string> present;
  for (const std::string& form : forms) {
    if (JsonReader::field(f, form) != nullptr) present.push_back(form);
  }
  if (present.empty()) {
    r.error(path, "a " + kind + " fault needs a target; add " + std::string(examples));
  } else if (present.size() > 1) {
    r.error(JsonReader::key_path(path, present[1]),
            "a " + kind + " fault takes only one of " + join_quoted(forms, " or ") +
                ", but this one has " + join_quoted(present, " and ") + "; keep one");
  }
  return present.size() == 1 ? present[0] : std::string();
}

// "node", "nodes" or "process" ("node/process") into spec.targets; a terminate fault takes
// only "process".
void read_targets(Context& c, const Json& f, const std::string& path, FaultSpec& spec,
                  TargetForms target_forms) {
  JsonReader& r = c.reader;
  const std::string& kind = spec.kind;
  std::vector<std::string> forms{"node", "nodes"};
  std::string examples = "\"node\": \"n1\" or \"nodes\": [\"n1\", \"n2\"]";
  if (target_forms == TargetForms::nodes_or_process) {
    forms.push_back("process");
    examples = "\"node\": \"n1\", \"nodes\": [\"n1\", \"n2\"] or \"process\": \"n1/heartbeat\"";
  } else if (target_forms == TargetForms::process_only) {
    forms = {"process"};
    examples =
        "\"process\": \"node/process\" such as \"cp-1/kube-scheduler\" (a " + kind +
        " fault hits one process)";
  }
  if (target_forms != TargetForms::nodes) forms.push_back("role");
  const std::string form = one_of(r, f, path, forms, kind, examples);
  if (form.empty()) return;
  const Json& value = f[form];
  const std::string at = JsonReader::key_path(path, form);
  if (form == "role") return read_role(c, value, at, spec);
  if (form == "nodes") {
    if (auto list = read_node_list(c, value, at)) spec.targets = *list;
    return;
  }
  const auto text = r.string(value, at);
  if (!text) return;
  if (form == "node") {
    if (check_node(c, *text, at)) spec.targets = {*text};
    return;
  }
  const std::size_t slash = text->find('/');
  const std::string node = text->substr(0, slash);
  const std::string process = slash == std::string::npos ? "" : text->substr(slash + 1);
  if (slash == std::string::npos || !is_valid_name(node) || !is_valid_name(process)) {
    r.error(at, "expected \"node/process\" such as \"n1/heartbeat\", found " +
                    JsonReader::describe(value) + "; use \"node\" to hit a whole node");
  } else if (check_node(c, node, at) && check_process(c, node, process, at)) {
    spec.targets = {*text};
  }
}

void read_faults(Context& c, const Json& value, const std::string& path) {
  if (!c.reader.array(value, path, "[{\"at\": \"2m\", \"kind\": \"crash\", \"node\": \"n1\"}]")) {
    return;
  }
  c.scenario.faults.reserve(value.size());
  std::uint64_t cut = 0;  // directed links cut by the partitions so far
  bool reported = false;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::size_t before = c.scenario.faults.size();
    read_fault(c, value[i], JsonReader::index_path(path, i));
    if (c.scenario.faults.size() == before || reported) continue;
    cut += cut_links(c.scenario.faults.back(), c.nodes.names.size());
    if (cut <= kMaxCutLinks) continue;
    reported = true;
    c.reader.error(JsonReader::index_path(path, i),
                   "the partitions up to here cut " + std::to_string(cut) +
                       " directed links in all, more than the " + std::to_string(kMaxCutLinks) +
                       " one run may cut (each partition's links are listed when the run is "
                       "built, and isolating k of n nodes cuts 2*k*(n-k) of them); use fewer or "
                       "smaller partitions");
  }
}

}  // namespace hasim::scenario_loader
