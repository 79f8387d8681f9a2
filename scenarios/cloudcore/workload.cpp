// The CloudCore section's workload (workload.hpp): reading "workload" and "objectChanges",
// and writing them into the store. The writes stand for users and controllers acting through
// kube-apiserver; they go straight into the ideal store (as the builder creates the CloudCore
// pods) and are traced as "edge-workload" events, from which edge-converges learns what the
// cloud wants on each edge node.
#include "scenarios/cloudcore/workload.hpp"

#include <algorithm>

#include "models/cloudcore/trace_kinds.hpp"
#include "sim/assert.hpp"
#include "sim/world.hpp"

namespace hasim {
namespace {

using scenario_loader::Context;

const std::vector<std::string> kOps{"create", "update", "delete"};
const std::vector<std::string> kKinds{"pod", "configmap", "secret"};
constexpr std::int64_t kMaxPerNode = 1000;

// A DNS-1123 label, as the names of pods, ConfigMaps and Secrets here must be.
bool is_object_name(std::string_view name) {
  if (name.empty() || name.size() > 63 || name.front() == '-' || name.back() == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-';
  });
}

bool read_count(JsonReader& r, const Json& object, const std::string& path, std::string_view key,
                int& target) {
  const Json* value = JsonReader::field(object, key);
  if (value == nullptr) return true;
  const auto n = r.integer(*value, JsonReader::key_path(path, key), 0, kMaxPerNode);
  if (n) target = static_cast<int>(*n);
  return n.has_value();
}

bool read_workload(Context& c, const Json& value, const std::string& path, EdgeWorkload& w) {
  JsonReader& r = c.reader;
  if (!r.object(value, path, scenario_loader::keys("edgeWorkload"), "the edge workload")) {
    return false;
  }
  bool ok = read_count(r, value, path, "podsPerNode", w.pods_per_node);
  ok = read_count(r, value, path, "configMapsPerPod", w.config_maps_per_pod) && ok;
  ok = read_count(r, value, path, "secretsPerPod", w.secrets_per_pod) && ok;
  for (const auto& [key, target] : {std::pair{"updateEvery", &w.update_every},
                                    std::pair{"updateUntil", &w.update_until}}) {
    const Json* d = JsonReader::field(value, key);
    if (d == nullptr) continue;
    const auto duration = r.duration(*d, JsonReader::key_path(path, key), DurationSign::positive);
    if (duration) *target = *duration;
    ok = duration.has_value() && ok;
  }
  if (ok && w.update_every && w.pods_per_node == 0) {
    r.error(JsonReader::key_path(path, "updateEvery"),
            "there is nothing to update: set \"podsPerNode\" (e.g. 10) or remove \"updateEvery\"");
    ok = false;
  }
  return ok;
}

std::optional<std::vector<std::string>> read_names(JsonReader& r, const Json& change,
                                                   const std::string& path, std::string_view key) {
  const Json* value = JsonReader::field(change, key);
  if (value == nullptr) return std::vector<std::string>{};
  return r.string_list(*value, JsonReader::key_path(path, key), "ConfigMap or Secret names");
}

bool read_change(Context& c, const Json& value, const std::string& path,
                 const CloudCoreSpec& spec, EdgeObjectChange& change) {
  JsonReader& r = c.reader;
  if (!r.object(value, path, scenario_loader::keys("edgeObjectChange"), "an object change")) {
    return false;
  }
  bool ok = scenario_loader::read_duration_field(r, value, path, "at", DurationSign::non_negative,
                                                 change.at);
  ok = r.required(value, path, "at", "\"2m\"") != nullptr && ok;
  ok = r.required(value, path, "op", "\"update\"") != nullptr &&
       scenario_loader::read_choice(c, value, path, "op", kOps, change.op) && ok;
  int kind = 0;
  ok = r.required(value, path, "kind", "\"configmap\"") != nullptr &&
       scenario_loader::read_choice(c, value, path, "kind", kKinds, kind) && ok;
  change.kind = kind == 0 ? api::Kind::pod : kind == 1 ? api::Kind::config_map : api::Kind::secret;
  if (const Json* name = r.required(value, path, "name", "\"e1-pod-0\"")) {
    const auto text = r.string(*name, JsonReader::key_path(path, "name"));
    if (text && !is_object_name(*text)) {
      r.error(JsonReader::key_path(path, "name"),
              "\"" + *text + "\" is not a valid object name: use lowercase letters, digits and '-'");
      ok = false;
    }
    if (text) change.name = *text;
    ok = text.has_value() && ok;
  } else {
    ok = false;
  }
  auto config_maps = read_names(r, value, path, "configMaps");
  auto secrets = read_names(r, value, path, "secrets");
  ok = config_maps && secrets && ok;
  if (const Json* node = JsonReader::field(value, "node")) {
    const auto text = r.string(*node, JsonReader::key_path(path, "node"));
    if (text) change.node = *text;
    ok = text.has_value() && ok;
  }
  if (!ok) return false;
  change.config_maps = *config_maps;
  change.secrets = *secrets;
  const bool creates_pod = change.op == EdgeChangeOp::create && change.kind == api::Kind::pod;
  const std::vector<std::string> pod_only{"node", "configMaps", "secrets"};
  for (const std::string& key : pod_only) {
    if (creates_pod || JsonReader::field(value, key) == nullptr) continue;
    r.error(JsonReader::key_path(path, key),
            "\"" + key + "\" applies only to a created pod (\"op\": \"create\", \"kind\": \"pod\"): remove it");
    ok = false;
  }
  const auto& edges = spec.edge_nodes;
  if (creates_pod && std::find(edges.begin(), edges.end(), change.node) == edges.end()) {
    r.error(JsonReader::key_path(path, "node"),
            change.node.empty() ? "a created pod needs the edge node it is bound to, e.g. \"node\": \"e1\""
                                : "\"" + change.node + "\" is not one of \"edgeNodes\": bind the pod to an edge node");
    ok = false;
  }
  return ok;
}

}  // namespace

bool read_edge_workload(Context& c, const Json& section, const std::string& path,
                        CloudCoreSpec& spec) {
  JsonReader& r = c.reader;
  bool ok = true;
  if (const Json* workload = JsonReader::field(section, "workload")) {
    ok = read_workload(c, *workload, JsonReader::key_path(path, "workload"), spec.workload);
  }
  const Json* changes = JsonReader::field(section, "objectChanges");
  if (changes == nullptr) return ok;
  const std::string at = JsonReader::key_path(path, "objectChanges");
  if (!r.array(*changes, at, "[{\"at\": \"2m\", \"op\": \"update\", \"kind\": \"configmap\", \"name\": \"e1-pod-0-cm-0\"}]")) {
    return false;
  }
  for (std::size_t i = 0; i < changes->size(); ++i) {
    EdgeObjectChange change;
    if (read_change(c, (*changes)[i], at + "[" + std::to_string(i) + "]", spec, change)) {
      spec.object_changes.push_back(std::move(change));
    } else {
      ok = false;
    }
  }
  std::stable_sort(spec.object_changes.begin(), spec.object_changes.end(),
                   [](const auto& a, const auto& b) { return a.at < b.at; });
  return ok;
}

}  // namespace hasim

namespace hasim {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ",") + name;
  return out;
}

// Writes the workload's objects into the store and traces each write.
class WorkloadWriter {
 public:
  WorkloadWriter(World& world, api::IdealStore& store, ProcessId writer)
      : world_(world), store_(store), writer_(writer) {}

  void create(api::Object object) {
    // kube-apiserver's UIDs are random; a counter is unique and deterministic.
    object.uid = "uid-" + std::to_string(++created_);
    write(EdgeChangeOp::create, std::move(object));
  }
  void update(const api::ObjectKey& key) {
    const auto it = store_.objects().find(key);
    if (it == store_.objects().end()) return;  // deleted by an earlier change
    api::Object object = *it->second;
    object.data["generation"] = std::to_string(++updates_);
    object.resourceVersion = 0;  // unconditional
    write(EdgeChangeOp::update, std::move(object));
  }
  void remove(const api::ObjectKey& key) {
    const auto it = store_.objects().find(key);
    if (it == store_.objects().end()) return;
    write(EdgeChangeOp::delete_, *it->second);
  }

 private:
  void write(EdgeChangeOp op, api::Object object) {
    api::ObjectPtr written;
    auto done = [&written](const api::StoreResult& result) {
      if (api::is_success(result.status)) written = result.object;
    };
    if (op == EdgeChangeOp::create) store_.create(writer_, std::move(object), done);
    if (op == EdgeChangeOp::update) store_.update(writer_, std::move(object), done);
    if (op == EdgeChangeOp::delete_) store_.remove(writer_, object.key, done);
    if (written == nullptr) return;  // the name is taken, or the store is cut off
    // What the store holds now; for a delete, the last state (the resourceVersion deleted).
    const api::Object& state = *written;
    const auto rv = static_cast<std::int64_t>(state.resourceVersion);
    world_.trace_fault(cloudcore::trace_kind::kWorkload, state.pod_spec.nodeName,
                       {{"op", kOps[static_cast<std::size_t>(op)]},
                        {"object", api::describe(state.key)},
                        {"uid", state.uid},
                        {"rv", rv},
                        {"configMaps", joined(state.pod_spec.configMaps)},
                        {"secrets", joined(state.pod_spec.secrets)}});
  }

  World& world_;
  api::IdealStore& store_;
  ProcessId writer_;
  std::uint64_t created_ = 0;
  std::uint64_t updates_ = 0;
};

api::Object make_object(api::Kind kind, const std::string& name) {
  api::Object object;
  object.key = api::ObjectKey{kind, std::string(kEdgeNamespace), name};
  return object;
}

api::Object make_pod(const std::string& name, const std::string& node,
                     std::vector<std::string> config_maps, std::vector<std::string> secrets) {
  api::Object pod = make_object(api::Kind::pod, name);
  pod.pod_spec = api::PodSpec{node, std::move(config_maps), std::move(secrets)};
  return pod;
}

// The generated objects: for each edge node and pod i, its ConfigMaps and Secrets, then the pod.
std::vector<api::Object> generated(const std::vector<std::string>& edge_nodes,
                                   const EdgeWorkload& w) {
  std::vector<api::Object> out;
  for (const std::string& node : edge_nodes) {
    for (int i = 0; i < w.pods_per_node; ++i) {
      const std::string pod = node + "-pod-" + std::to_string(i);
      std::vector<std::string> config_maps, secrets;
      for (int j = 0; j < w.config_maps_per_pod; ++j) {
        config_maps.push_back(pod + "-cm-" + std::to_string(j));
        out.push_back(make_object(api::Kind::config_map, config_maps.back()));
      }
      for (int j = 0; j < w.secrets_per_pod; ++j) {
        secrets.push_back(pod + "-secret-" + std::to_string(j));
        out.push_back(make_object(api::Kind::secret, secrets.back()));
      }
      out.push_back(make_pod(pod, node, std::move(config_maps), std::move(secrets)));
    }
  }
  return out;
}

void schedule_updates(World& world, const CloudCoreSpec& spec,
                      const std::shared_ptr<WorkloadWriter>& writer,
                      const std::shared_ptr<const std::vector<api::ObjectKey>>& keys) {
  const EdgeWorkload& w = spec.workload;
  if (!w.update_every || keys->empty()) return;
  auto rng = std::make_shared<Rng>(world.fork_rng("workload"));
  const Duration every = *w.update_every;
  const std::optional<Duration> until = w.update_until;
  auto tick = std::make_shared<std::function<void()>>();
  // The tick reschedules itself through a weak reference: the World keeps it alive.
  *tick = [&world, writer, keys, rng, every, until, self = std::weak_ptr(tick)] {
    writer->update((*keys)[rng->below(keys->size())]);
    const TrueTime next = world.now() + every;
    const auto again = self.lock();
    if (again && (!until || next.ns <= until->ns)) world.at(next, *again);
  };
  world.at(TrueTime{every.ns}, *tick);
  world.keep_alive(tick);
  world.keep_alive(rng);
}

}  // namespace

void add_edge_workload(World& world, const CloudCoreSpec& spec, api::IdealStore& store,
                       ProcessId writer_process) {
  auto writer = std::make_shared<WorkloadWriter>(world, store, writer_process);
  world.keep_alive(writer);
  auto keys = std::make_shared<std::vector<api::ObjectKey>>();
  for (api::Object& object : generated(spec.edge_nodes, spec.workload)) {
    keys->push_back(std::move(object.key));
  }
  // Generated again when written, so no copy of 30,000 objects waits for t=0.
  world.at(TrueTime{}, [writer, edges = spec.edge_nodes, workload = spec.workload] {
    for (api::Object& object : generated(edges, workload)) writer->create(std::move(object));
  });
  for (const EdgeObjectChange& change : spec.object_changes) {
    world.at(TrueTime{change.at.ns}, [writer, change] {
      api::Object object = change.kind == api::Kind::pod
                               ? make_pod(change.name, change.node, change.config_maps, change.secrets)
                               : make_object(change.kind, change.name);
      if (change.op == EdgeChangeOp::create) return writer->create(std::move(object));
      if (change.op == EdgeChangeOp::update) return writer->update(object.key);
      writer->remove(object.key);
    });
  }
  schedule_updates(world, spec, writer, keys);
}

}  // namespace hasim
