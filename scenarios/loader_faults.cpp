// "faults": when, what kind, for how long, and whom each fault hits.
#include <algorithm>
#include <map>
#include <set>

#include "models/apiserver/messages.hpp"
#include "scenarios/loader_internal.hpp"
#include "sim/did_you_mean.hpp"

namespace hasim::scenario_loader {
namespace {

using Kind = FaultSpec::Kind;

bool takes_process(Kind k) {
  return k == Kind::crash || k == Kind::restart || k == Kind::pause || k == Kind::resume ||
         k == Kind::disk_loss;
}

// The request verbs an apiserver-hang fault can hold (models/apiserver).
const std::vector<std::string>& verb_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (api::Verb verb : api::kVerbs) out.emplace_back(api::to_string(verb));
    return out;
  }();
  return names;
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

// Reports `process` at `path` unless build_world starts it on `node` (scenarios/build.cpp): the
// heartbeat detector on every node if the scenario has "heartbeat", and kube-apiserver,
// kube-controller-manager and kube-scheduler (build_control_plane.hpp) on each control-plane
// node. A fault aimed at a process that never exists would otherwise reach the builder.
bool check_process(Context& c, const std::string& node, const std::string& process,
                   const std::string& path) {
  // Control-plane nodes not known: their error is reported under "controlPlane".
  if (c.control_plane && !c.control_plane_nodes) return true;
  std::vector<std::string> running;
  if (c.scenario.heartbeat) running.emplace_back("heartbeat");
  const std::vector<std::string> none;
  const std::vector<std::string>& cp = c.control_plane_nodes ? *c.control_plane_nodes : none;
  if (std::find(cp.begin(), cp.end(), node) != cp.end()) {
    running.insert(running.end(), {"kube-apiserver", "kube-controller-manager", "kube-scheduler"});
  }
  if (std::find(running.begin(), running.end(), process) != running.end()) return true;
  std::string message = "unknown process \"" + process + "\" on node \"" + node + "\"";
  if (running.empty()) {
    message += ": no process runs on \"" + node +
               "\"; processes come from \"heartbeat\" (\"heartbeat\" on every node) and "
               "\"controlPlane\" (kube-apiserver, kube-controller-manager and kube-scheduler on "
               "each control-plane node), so add one of them or use \"node\" to hit the node";
  } else {
    message += did_you_mean(process, running) + "; the processes on \"" + node + "\" are " +
               join_quoted(running, " and ");
  }
  c.reader.error(path, message);
  return false;
}

// "node", "nodes" or "process" ("node/process") into spec.targets; a terminate fault takes
// only "process".
void read_targets(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  JsonReader& r = c.reader;
  const std::string kind(to_string(spec.kind));
  std::vector<std::string> forms{"node", "nodes"};
  std::string examples = "\"node\": \"n1\" or \"nodes\": [\"n1\", \"n2\"]";
  if (takes_process(spec.kind)) {
    forms.push_back("process");
    examples = "\"node\": \"n1\", \"nodes\": [\"n1\", \"n2\"] or \"process\": \"n1/heartbeat\"";
  } else if (spec.kind == Kind::terminate) {
    forms = {"process"};
    examples =
        "\"process\": \"node/process\" such as \"cp-1/kube-scheduler\" (a terminate fault "
        "stops one process)";
  }
  const std::string form = one_of(r, f, path, forms, kind, examples);
  if (form.empty()) return;
  const Json& value = f[form];
  const std::string at = JsonReader::key_path(path, form);
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

// The targets of an apiserver fault: nodes that run a kube-apiserver.
void read_apiserver_targets(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  JsonReader& r = c.reader;
  const std::size_t before = r.error_count();
  read_targets(c, f, path, spec);
  const std::string kind(to_string(spec.kind));
  if (!c.control_plane) {
    r.error(path, "a " + kind +
                      " fault acts on a kube-apiserver, but the scenario has no "
                      "\"controlPlane\", so no node runs one; add \"controlPlane\": {} (a "
                      "control plane on every node) or remove the fault");
    return;
  }
  if (r.error_count() != before || !c.control_plane_nodes) return;
  const std::vector<std::string>& cp = *c.control_plane_nodes;
  const bool single = JsonReader::field(f, "node") != nullptr;
  for (std::size_t i = 0; i < spec.targets.size(); ++i) {
    const std::string& node = spec.targets[i];
    if (std::find(cp.begin(), cp.end(), node) != cp.end()) continue;
    const std::string at = single ? JsonReader::key_path(path, "node")
                                  : JsonReader::index_path(JsonReader::key_path(path, "nodes"), i);
    std::string known;
    for (const std::string& n : cp) known += (known.empty() ? "" : ", ") + n;
    const std::string why = ", so it runs no kube-apiserver for a " + kind + " fault to act on";
    r.error(at, "node \"" + node + "\" is not a control-plane node" + why + did_you_mean(node, cp) +
                    "; the control-plane nodes are " + known +
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
                join_quoted(names, " and "));
    return;
  }
  const auto list = r.string_list(*v, at, "verbs");
  if (!list) return;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const std::string& verb = (*list)[i];
    if (std::find(names.begin(), names.end(), verb) != names.end()) continue;
    r.error(JsonReader::index_path(at, i), "unknown verb \"" + verb + "\"" +
                                               did_you_mean(verb, names) + "; the verbs are " +
                                               join_quoted(names, " and "));
  }
  spec.verbs = *list;
}

// A partition that leaves nobody on the other side cuts nothing: almost surely a mistake.
void check_not_everyone(Context& c, const std::vector<std::string>& cut, const std::string& path) {
  if (c.nodes.known && cut.size() == c.nodes.names.size()) {
    c.reader.error(path,
                   "this isolates every node, so nothing is cut off; leave at least one "
                   "node out");
  }
}

// How many directed links a partition cuts (Reachability::isolate, between_groups, one_way);
// 0 for other faults. Partitions of hundreds of nodes cut hundreds of thousands of links, and
// build_world lists every one up front, so their sum is bounded.
constexpr std::uint64_t kMaxCutLinks = 10'000'000;

std::uint64_t cut_links(const FaultSpec& spec, std::size_t node_count) {
  if (spec.kind != Kind::partition) return 0;
  switch (spec.partition_mode) {
    case FaultSpec::PartitionMode::isolate: {
      const std::uint64_t k = spec.targets.size();
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

void read_partition(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  JsonReader& r = c.reader;
  // "to" alone stands for the one-way form, so its missing "from" is reported below.
  const std::string oneway =
      JsonReader::field(f, "from") == nullptr && JsonReader::field(f, "to") != nullptr ? "to"
                                                                                       : "from";
  const std::string form =
      one_of(r, f, path, {"isolate", "isolateZone", "groups", oneway}, "partition",
             "one of \"isolate\": [\"n1\"], \"isolateZone\": \"a\", \"groups\": [[\"n1\"], "
             "[\"n2\", \"n3\"]] or \"from\": [\"n1\"] with \"to\": [\"n2\"]");
  const std::string at = JsonReader::key_path(path, form);
  if (form == "isolate") {
    spec.partition_mode = FaultSpec::PartitionMode::isolate;
    if (auto list = read_node_list(c, f[form], at)) {
      check_not_everyone(c, *list, at);
      spec.targets = *list;
    }
  } else if (form == "isolateZone") {
    spec.partition_mode = FaultSpec::PartitionMode::isolate;
    const auto zone = r.string(f[form], at);
    if (!zone || !c.nodes.known) return;
    std::vector<std::string> zones;
    for (const auto& [node, z] : c.nodes.zone_of) {
      if (z == *zone) spec.targets.push_back(node);
      if (!z.empty() && zones.end() == std::find(zones.begin(), zones.end(), z)) zones.push_back(z);
    }
    if (spec.targets.empty()) {
      r.error(at, "unknown zone \"" + *zone + "\"" + did_you_mean(*zone, zones) +
                      (zones.empty() ? "; no node has a zone, so give nodes a \"zone\""
                                     : "; the zones are " + join_quoted(zones, " and ")));
    }
    check_not_everyone(c, spec.targets, at);
  } else if (form == "groups") {
    spec.partition_mode = FaultSpec::PartitionMode::groups;
    const Json& groups = f[form];
    if (!r.array(groups, at, "[[\"n1\"], [\"n2\", \"n3\"]]")) return;
    if (groups.size() < 2) {
      r.error(at, "expected at least two groups to cut apart, found " +
                      std::to_string(groups.size()) + "; e.g. [[\"n1\"], [\"n2\", \"n3\"]]");
      return;
    }
    std::map<std::string, std::string> group_of;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const std::string group_path = JsonReader::index_path(at, g);
      auto list = read_node_list(c, groups[g], group_path);
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
  } else if (form == "from" || form == "to") {
    spec.partition_mode = FaultSpec::PartitionMode::oneway;
    const Json* from = r.required(f, path, "from", "[\"n1\"]");
    const Json* to = r.required(f, path, "to", "[\"n2\"]");
    if (from == nullptr || to == nullptr) return;
    auto senders = read_node_list(c, *from, JsonReader::key_path(path, "from"));
    auto receivers = read_node_list(c, *to, JsonReader::key_path(path, "to"));
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
  const auto kind = parse_fault_kind(*kind_name);
  if (!kind) {
    r.error(kind_path, "unknown fault kind \"" + *kind_name + "\"" +
                           did_you_mean(*kind_name, fault_kind_names()) + "; the kinds are " +
                           join_quoted(fault_kind_names(), " and "));
    return;
  }
  spec.kind = *kind;
  const std::string name(to_string(*kind));
  const std::size_t before_kind = r.error_count();
  r.inapplicable(f, path, keys("fault"), keys("fault:" + name), "a " + name + " fault");
  if (r.error_count() != before_kind) return;  // other errors would be echoes of these

  if (const Json* v = JsonReader::field(f, "for")) {
    spec.for_duration = r.duration(*v, JsonReader::key_path(path, "for"), DurationSign::positive);
  }
  switch (*kind) {
    case Kind::heal:
      break;
    case Kind::partition:
      read_partition(c, f, path, spec);
      break;
    case Kind::clock_step:
      read_targets(c, f, path, spec);
      if (const Json* v = r.required(f, path, "by", "\"-2s\"")) {
        const auto by = r.duration(*v, JsonReader::key_path(path, "by"), DurationSign::any);
        if (by) spec.step = *by;
      }
      break;
    case Kind::clock_rate: {
      read_targets(c, f, path, spec);
      bool given = false;
      const auto rate = read_rate(r, f, path, given);
      if (rate) spec.rate_ppb = *rate;
      if (!given) {
        r.error(path,
                "a clock-rate fault needs \"drift\" (e.g. \"+100ppm\") or \"rate\" "
                "(e.g. 2.5, the local clock's seconds per true second)");
      }
      break;
    }
    case Kind::terminate:
      read_targets(c, f, path, spec);
      if (const Json* v = JsonReader::field(f, "grace")) {
        const auto grace =
            r.duration(*v, JsonReader::key_path(path, "grace"), DurationSign::non_negative);
        if (grace) spec.grace = *grace;
      }
      break;
    case Kind::apiserver_slow:
      read_apiserver_targets(c, f, path, spec);
      if (const Json* v = r.required(f, path, "latency", "\"500ms\"")) {
        const auto latency =
            r.duration(*v, JsonReader::key_path(path, "latency"), DurationSign::positive);
        if (latency) spec.latency = *latency;
      }
      break;
    case Kind::apiserver_hang:
      read_apiserver_targets(c, f, path, spec);
      read_verbs(r, f, path, spec);
      break;
    case Kind::apiserver_unavailable:
      read_apiserver_targets(c, f, path, spec);
      break;
    default:
      read_targets(c, f, path, spec);
      break;
  }
  if (r.error_count() == before) c.scenario.faults.push_back(std::move(spec));
}

}  // namespace

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
