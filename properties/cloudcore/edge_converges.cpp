#include "properties/cloudcore/edge_converges.hpp"

#include "models/cloudcore/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

constexpr std::string_view kEdgeProcess = "edgecore";
constexpr std::string_view kNamespace = "default";

std::vector<std::string> split(std::string_view list, std::string_view kind) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    out.push_back(std::string(kind) + " " + std::string(kNamespace) + "/" +
                  std::string(list.substr(start, comma - start)));
    start = comma + 1;
  }
  return out;
}

}  // namespace

bool EdgeConverges::wants(std::string_view kind) const {
  return kind == cloudcore::trace_kind::kWorkload ||
         kind == cloudcore::trace_kind::kEdgeStoreApply || FaultsInForce::wants(kind);
}

EdgeConverges::Id EdgeConverges::id(std::string_view name) {
  const auto it = ids_.find(name);
  if (it != ids_.end()) return it->second;
  const Id next = static_cast<Id>(names_.size());
  HASIM_ASSERT(names_.size() < (1U << 30));
  ids_.emplace(std::string(name), next);
  names_.emplace_back(name);
  is_pod_.push_back(name.starts_with("Pod "));
  cloud_.emplace_back();
  return next;
}

void EdgeConverges::on_event(const TraceEvent& event) {
  if (!wants(event.kind)) return;
  faults_.observe(event);
  if (event.kind == cloudcore::trace_kind::kWorkload) on_workload(event);
  if (event.kind == cloudcore::trace_kind::kEdgeStoreApply && event.proc == kEdgeProcess) {
    on_apply(event);
  }
  check(event.t);
}

void EdgeConverges::reference(const CloudObject& pod, int delta) {
  for (const Id ref : pod.references) {
    int& count = referenced_[{ref, pod.node}];
    count += delta;
    HASIM_ASSERT(count >= 0);
    if (count == 0) referenced_.erase({ref, pod.node});
  }
}

void EdgeConverges::on_workload(const TraceEvent& event) {
  const Id object = id(event.string_field("object"));
  std::set<Id> edges;     // whose view of `object` may have changed
  std::vector<Id> refs;   // and of these
  CloudObject& cloud = cloud_[object];
  if (cloud.exists && is_pod_[object]) {
    edges.insert(cloud.node);
    reference(cloud, -1);
    refs = cloud.references;
  }
  CloudObject now;
  if (event.string_field("op") != "delete") {
    now = CloudObject{true, event.int_field("rv"), id(event.node), {}};
    if (is_pod_[object]) {
      for (const auto& [field, kind] : {std::pair{"configMaps", "ConfigMap"},
                                        std::pair{"secrets", "Secret"}}) {
        for (const std::string& ref : split(event.string_field(field), kind)) {
          now.references.push_back(id(ref));
        }
      }
      reference(now, +1);
      edges.insert(now.node);
      refs.insert(refs.end(), now.references.begin(), now.references.end());
    }
  }
  cloud_[object] = std::move(now);  // id() may have grown cloud_: index again
  if (!is_pod_[object]) {
    for (auto it = referenced_.lower_bound({object, 0});
         it != referenced_.end() && it->first.first == object; ++it) {
      edges.insert(it->first.second);
    }
    if (const auto it = held_by_.find(object); it != held_by_.end()) {
      edges.insert(it->second.begin(), it->second.end());
    }
  }
  for (const Id edge : edges) {
    recheck(edge, object, event.t);
    for (const Id ref : refs) recheck(edge, ref, event.t);
  }
}

void EdgeConverges::on_apply(const TraceEvent& event) {
  const Id edge = id(event.node);
  const Id object = id(event.string_field("object"));
  const std::string_view result = event.string_field("result");
  const std::int64_t rv = event.int_field("rv");
  const Key key{edge, object};
  if (result == "store") {
    const auto it = stores_.find(key);
    if (it != stores_.end() && rv < it->second) {
      violate(event.t,
              names_[edge] + "/edgecore replaced " + names_[object] + " at resourceVersion " +
                  std::to_string(it->second) + " by the older " + std::to_string(rv) +
                  " (a stale overwrite)",
              {describe_event(event)});
    }
    stores_[key] = rv;
    held_by_[object].insert(edge);
  } else if (result == "remove") {
    stores_.erase(key);
    held_by_[object].erase(edge);
  } else {
    return;
  }
  recheck(edge, object, event.t);
}

bool EdgeConverges::consistent(Id edge, Id object) const {
  const CloudObject& cloud = cloud_[object];
  const auto store = stores_.find({edge, object});
  const bool held = store != stores_.end();
  if (!cloud.exists) return !held;  // deleted (or never existed)
  // A pod belongs on its node only; a ConfigMap or Secret on the nodes whose pods reference
  // it, and it stays current wherever it is held.
  const bool wanted = is_pod_[object] ? cloud.node == edge
                                      : held || referenced_.contains({object, edge});
  if (!wanted) return !held;
  return held && store->second == cloud.rv;
}

void EdgeConverges::recheck(Id edge, Id object, TrueTime now) {
  const Key key{edge, object};
  const auto it = differs_.find(key);
  if (consistent(edge, object)) {
    if (it == differs_.end()) return;
    by_since_.erase({it->second, key});
    differs_.erase(it);
    if (differs_.empty()) agreeing_since_ = now;
    return;
  }
  if (it != differs_.end()) return;  // keeps the instant it started to differ
  differs_.emplace(key, now);
  by_since_.emplace(now, key);
}

void EdgeConverges::check(TrueTime now) {
  if (violation().has_value() || faults_.active() || by_since_.empty()) return;
  const auto& [since, key] = *by_since_.begin();
  const TrueTime from = since > faults_.healed_since() ? since : faults_.healed_since();
  if (now - from <= bound_) return;
  std::string detail = names_[key.first] + "/edgecore's store differs from the cloud for " +
                       names_[key.second] + " (" + explain(key) + ") from t=" +
                       format_seconds(since.ns) + "s";
  if (from > since) detail += " (faults healed at t=" + format_seconds(from.ns) + "s)";
  detail += " to at least t=" + format_seconds(now.ns) + "s, longer than the bound " +
            format_duration(bound_);
  violate(from + bound_, std::move(detail), {});
}

std::string EdgeConverges::explain(const Key& key) const {
  const CloudObject& cloud = cloud_[key.second];
  std::string out = cloud.exists ? "the cloud has resourceVersion " + std::to_string(cloud.rv)
                                 : "the cloud has none";
  const auto store = stores_.find(key);
  return out + (store != stores_.end() ? ", the edge " + std::to_string(store->second)
                                       : ", the edge none");
}

void EdgeConverges::finish(TrueTime end) { check(end); }

}  // namespace hasim
