// "upgrade": a node-by-node upgrade or rollback of the control plane (UpgradeSpec in
// models/cluster/upgrade_spec.hpp): when it starts, the target version, the node order, the timings
// drawn per node, and how each node's components stop.
#include <algorithm>
#include <string>
#include <vector>

#include "models/cluster/upgrade_methods.hpp"
#include "models/cluster/upgrade_spec.hpp"
#include "scenarios/control_plane/control_plane.hpp"
#include "scenarios/upgrade_orchestrator/upgrade_orchestrator.hpp"
#include "sim/assert.hpp"
#include "sim/did_you_mean.hpp"
#include "sim/text.hpp"

namespace hasim::scenario_loader {
namespace {

// An example "order" list for messages: the control-plane nodes, last one first.
std::string example_order(const std::vector<std::string>& nodes) {
  std::vector<std::string> shown = nodes;
  if (shown.size() > 1) std::rotate(shown.rbegin(), shown.rbegin() + 1, shown.rend());
  return "[" + join_quoted(shown, ", ") + "]";
}

// "order": "sequential" (controlPlane.nodes order: spec.order stays empty), "random" (a
// shuffle drawn from the seed) or every control-plane node once, in upgrade order.
void read_order(Context& c, const Json& value, const std::string& path, UpgradeSpec& spec) {
  JsonReader& r = c.reader;
  const std::vector<std::string> none;
  const ControlPlaneNotes* notes = c.notes.get<ControlPlaneNotes>();
  const bool known = notes != nullptr && notes->nodes.has_value();
  const std::vector<std::string>& cp = known ? *notes->nodes : none;
  const std::string example =
      cp.empty() ? std::string("[\"cp-2\", \"cp-1\", \"cp-3\"]") : example_order(cp);
  if (value.is_string()) {
    static const std::vector<std::string> kForms{"sequential", "random"};
    const std::string& text = value.get_ref<const std::string&>();
    if (text == "random") {
      spec.randomOrder = true;
    } else if (text != "sequential") {
      r.error(path, "unknown order \"" + text + "\"" + did_you_mean(text, kForms) +
                        "; use \"sequential\" (the control-plane nodes in their listed order, the "
                        "default), \"random\" (a shuffle drawn from the seed) or a list of every "
                        "control-plane node in upgrade order, e.g. " +
                        example);
    }
    return;
  }
  if (!value.is_array()) {
    r.error(path,
            "expected \"sequential\", \"random\" or a list of the control-plane nodes such as " +
                example + ", found " + JsonReader::describe(value));
    return;
  }
  const auto list = r.string_list(value, path, "control-plane nodes");
  // Without the control-plane nodes (an error reported under "controlPlane") there is nothing
  // to check the list against.
  if (!list || !known) return;
  bool ok = true;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const std::string& node = (*list)[i];
    if (is_listed(cp, node)) continue;
    ok = false;
    const std::string what = c.nodes.zone_of.count(node) > 0
                                 ? "node \"" + node + "\" is not a control-plane node"
                                 : "unknown node \"" + node + "\"";
    r.error(JsonReader::index_path(path, i),
            what + did_you_mean(node, cp) +
                ", so the upgrade has nothing to replace on it; the order lists each "
                "control-plane node once, and they are " +
                join_words(cp));
  }
  if (!ok) return;
  std::vector<std::string> missing;
  for (const std::string& node : cp) {
    if (!is_listed(*list, node)) missing.push_back(node);
  }
  if (!missing.empty()) {
    r.error(path,
            "the order must be a permutation of the control-plane nodes (an upgrade replaces "
            "every one), but it leaves out " +
                join_quoted(missing, ", ") + "; add " + (missing.size() == 1 ? "it" : "them") +
                " where it should be upgraded, e.g. " + example +
                ", or use \"sequential\" or \"random\"");
    return;
  }
  HASIM_ASSERT(list->size() == cp.size());
  spec.order = *list;
}

// "stop": how the node's components stop: "terminate" (SIGTERM, as the kubelet replaces a
// static pod) or "power-off" (every process dies at once).
void read_stop(JsonReader& r, const Json& value, const std::string& path, UpgradeSpec& spec) {
  const auto text = r.string(value, path);
  if (!text) return;
  static const std::vector<std::string> kStops{"terminate", "power-off"};
  if (*text == "terminate") {
    spec.stop = UpgradeSpec::Stop::terminate;
  } else if (*text == "power-off") {
    spec.stop = UpgradeSpec::Stop::power_off;
  } else {
    r.error(path, "unknown stop \"" + *text + "\"" + did_you_mean(*text, kStops) +
                      "; use \"terminate\" (each component gets SIGTERM and is killed after "
                      "\"grace\", as the kubelet replaces a static pod; the default) or "
                      "\"power-off\" (the node goes down: every process dies at once)");
  }
}

void read_timings(JsonReader& r, const Json& value, const std::string& path, UpgradeSpec& spec) {
  const std::pair<std::string_view, DurationDistribution*> distributions[] = {
      {"downtime", &spec.downtime}, {"gap", &spec.gap}, {"startJitter", &spec.startJitter}};
  for (const auto& [key, target] : distributions) {
    if (const Json* v = JsonReader::field(value, key)) {
      if (auto d = r.distribution(*v, JsonReader::key_path(path, key))) *target = *d;
    }
  }
  read_duration_field(r, value, path, "canary", DurationSign::non_negative, spec.canary);
  read_duration_field(r, value, path, "grace", DurationSign::non_negative, spec.grace);
}

// "method": "node" (today's: a node's components stop and return together; the default),
// "kubeadm" or "replace" (models/cluster/upgrade_methods.hpp).
void read_method(JsonReader& r, const Json& value, const std::string& path, UpgradeSpec& spec) {
  const auto text = r.string(value, path);
  if (!text) return;
  const auto& names = upgrade_method_names();
  const auto it = std::find(names.begin(), names.end(), *text);
  if (it != names.end()) {
    spec.method = static_cast<UpgradeSpec::Method>(it - names.begin());
    return;
  }
  r.error(path, "unknown method \"" + *text + "\"" + did_you_mean(*text, names) +
                    "; use \"node\" (a node's components stop and return together; the "
                    "default), \"kubeadm\" (in place, component by component in kubeadm's "
                    "order, the kubelet last after a drain) or \"replace\" (Cluster API's "
                    "rolling replacement: a new machine joins before an old one is deleted)");
}

// Keys that mean nothing to the chosen method: an error naming the key and what to do.
void check_method_keys(Context& c, const Json& value, const std::string& path,
                       const UpgradeSpec& spec) {
  JsonReader& r = c.reader;
  using Method = UpgradeSpec::Method;
  struct Rule {
    std::string_view key;
    Method method;
    std::string_view why;
  };
  static constexpr std::string_view kReplaceOnly = "only \"replace\" provisions new machines";
  static constexpr std::string_view kNodeOnly =
      "the compatibility-version flow is modelled for the \"node\" method only";
  static const Rule kRules[] = {
      {"provision", Method::node, kReplaceOnly},
      {"provision", Method::kubeadm, kReplaceOnly},
      {"emulation", Method::kubeadm, kNodeOnly},
      {"emulation", Method::replace, kNodeOnly},
      {"order", Method::replace,
       "Cluster API picks the machine to delete itself (the oldest "
       "outdated one in the failure domain with most machines)"},
      {"downtime", Method::replace,
       "no node goes down and comes back: a new machine joins "
       "(\"provision\") and an old one is deleted"},
      {"startJitter", Method::replace,
       "a joining machine's kubelet starts its static pods at "
       "boot (\"provision\" is the time to that)"},
  };
  for (const Rule& rule : kRules) {
    if (rule.method != spec.method || JsonReader::field(value, rule.key) == nullptr) continue;
    r.error(JsonReader::key_path(path, rule.key),
            "key \"" + std::string(rule.key) + "\" does not apply to \"method\": \"" +
                std::string(to_string(spec.method)) + "\": " + std::string(rule.why) +
                "; remove \"" + std::string(rule.key) + "\" or choose another method");
  }
  if (spec.method == Method::kubeadm && spec.stop == UpgradeSpec::Stop::power_off) {
    r.error(JsonReader::key_path(path, "stop"),
            "\"stop\": \"power-off\" does not apply to \"method\": \"kubeadm\": kubeadm "
            "replaces one static pod at a time and never powers a node off; remove \"stop\" "
            "or use \"method\": \"node\"");
  }
  const ControlPlaneSpec* cp = c.scenario.section<ControlPlaneSpec>();
  if (spec.method == Method::replace && cp != nullptr && cp->loadBalancer) {
    r.error(JsonReader::key_path(path, "method"),
            "\"method\": \"replace\" does not work with \"controlPlane\": {\"access\": "
            "\"loadBalancer\"} yet: the balancer's backends would change as machines come "
            "and go, which hasim does not model; use \"access\": \"local\" or another method");
  }
}

// "replace": one new machine per control-plane node, named after them and in the zone (the
// failure domain) of the node it takes the place of, powered off until it is created.
void add_replacement_nodes(Context& c, UpgradeSpec& spec) {
  const ControlPlaneNotes* notes = c.notes.get<ControlPlaneNotes>();
  if (notes == nullptr || !notes->nodes || notes->nodes->empty()) return;
  const std::vector<std::string>& cp = *notes->nodes;
  spec.replacements = cluster::replacement_nodes(cp, c.nodes.names);
  for (std::size_t i = 0; i < cp.size(); ++i) {
    const std::string& name = spec.replacements[i];
    const std::string zone = c.nodes.zone_of.at(cp[i]);
    NodeSpec node{name, zone, {}, {}};
    node.up_at_start = false;
    c.scenario.nodes.push_back(node);
    c.nodes.names.push_back(name);
    c.nodes.zone_of.emplace(name, zone);
    c.nodes.disks_of[name] = {std::string(kDefaultDisk)};
  }
}

}  // namespace

void read_upgrade(Context& c, const Json& value, const std::string& path) {
  JsonReader& r = c.reader;
  if (!r.object(value, path, keys("upgrade"), "the upgrade")) return;
  if (!c.has(ControlPlaneSpec::kSection)) {
    r.error(path,
            "an upgrade replaces the control-plane components node by node, but the scenario "
            "has no \"controlPlane\"; add \"controlPlane\": {} (a control plane on every node) "
            "or remove \"upgrade\"");
    return;
  }
  const std::size_t before = r.error_count();
  UpgradeSpec spec;

  const Json* at_json = JsonReader::field(value, "at");
  if (read_duration_field(r, value, path, "at", DurationSign::non_negative, spec.at) &&
      c.duration && spec.at >= *c.duration) {
    r.error(at_json != nullptr ? JsonReader::key_path(path, "at") : path,
            "the upgrade starts at " + short_duration(spec.at) +
                (at_json == nullptr ? " (the default \"at\")" : "") + ", after the run ends at " +
                short_duration(*c.duration) +
                "; make \"at\" earlier or lengthen the scenario's \"duration\"");
  }

  if (const Json* v = r.required(value, path, "to", "\"1.32.0\"")) {
    const std::string at = JsonReader::key_path(path, "to");
    const auto to = read_version(r, *v, at, spec.to);
    // Compare ignores build metadata, as Kubernetes does: "1.31.0+abc" is still 1.31.0.
    const ControlPlaneNotes* notes = c.notes.get<ControlPlaneNotes>();
    const auto& version = notes != nullptr ? notes->version : std::nullopt;
    if (to && version && election::compare(*to, *version) == 0) {
      const std::string up = neighbour_minor(*version, true);
      const std::string down = neighbour_minor(*version, false);
      r.error(at, "\"to\" " + spec.to + " is the version the control plane already runs (" +
                      "controlPlane.version " + election::to_string(*version) +
                      "); an upgrade needs a newer version, e.g. \"" + up + "\"" +
                      (down.empty() ? "" : ", and a rollback an older one, e.g. \"" + down + "\""));
    }
  }

  if (const Json* v = JsonReader::field(value, "order")) {
    read_order(c, *v, JsonReader::key_path(path, "order"), spec);
  }
  read_timings(r, value, path, spec);
  read_bool_field(r, value, path, "emulation", spec.emulation);
  const Json* stop = JsonReader::field(value, "stop");
  if (stop != nullptr) read_stop(r, *stop, JsonReader::key_path(path, "stop"), spec);
  if (stop != nullptr && spec.stop == UpgradeSpec::Stop::power_off &&
      JsonReader::field(value, "grace") != nullptr) {
    r.error(JsonReader::key_path(path, "grace"),
            "key \"grace\" does not apply when \"stop\" is \"power-off\": a power-off kills every "
            "process at once, with no SIGTERM and no grace period; remove \"grace\", or use "
            "\"stop\": \"terminate\"");
  }
  if (const Json* v = JsonReader::field(value, "method")) {
    read_method(r, *v, JsonReader::key_path(path, "method"), spec);
  }
  if (const Json* v = JsonReader::field(value, "provision")) {
    if (auto d = r.distribution(*v, JsonReader::key_path(path, "provision"))) spec.provision = *d;
  }
  check_method_keys(c, value, path, spec);
  if (r.error_count() != before) return;
  if (spec.method == UpgradeSpec::Method::replace) add_replacement_nodes(c, spec);
  c.scenario.sections.set(std::move(spec));
}

}  // namespace hasim::scenario_loader
