#include "properties/druid/etcd_pods.hpp"

#include <algorithm>

#include "models/druid/trace_kinds.hpp"
#include "models/etcd/trace_kinds.hpp"
#include "sim/assert.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim::druid_props {

namespace {

// Kernel and etcd events after which the embedded etcd no longer runs: the container's
// process ended, or etcd stopped itself (lg.Fatal, or learning it was removed:
// server/etcdserver/server.go, "the member has been permanently removed").
bool stops_etcd(std::string_view kind) {
  namespace ek = etcd::trace_kind;
  return kind == trace_kind::kCrash || kind == trace_kind::kExit || kind == ek::kFatal ||
         kind == ek::kRemoved;
}

}  // namespace

bool EtcdPods::wants(std::string_view kind) {
  return kind == druid::trace_kind::kEtcdStart || stops_etcd(kind) ||
         kind == trace_kind::kNodeDown || kind == trace_kind::kPause || kind == trace_kind::kResume;
}

bool EtcdPods::on_event(const TraceEvent& event) {
  if (event.kind == druid::trace_kind::kEtcdStart) {
    Pod& pod = pods_[std::string(event.string_field("pod"))];
    pod.node = std::string(event.node);
    pod.id = static_cast<std::uint64_t>(std::max<std::int64_t>(0, event.int_field("member")));
    pod.running = true;
    pod.paused = false;
    return true;
  }
  if (event.kind == trace_kind::kNodeDown) {
    bool changed = false;
    for (auto& [name, pod] : pods_) {
      if (pod.node != event.node || !pod.running) continue;
      pod.running = false;  // a powered-off host runs nothing
      changed = true;
    }
    return changed;
  }
  if (!wants(event.kind)) return false;
  const auto it = pods_.find(etcd_pod_of(event.proc));
  if (it == pods_.end()) return false;  // not an etcd-wrapper, or one that never started etcd
  Pod& pod = it->second;
  if (event.kind == trace_kind::kPause) {
    pod.paused = true;
  } else if (event.kind == trace_kind::kResume) {
    pod.paused = false;
  } else {
    pod.running = false;
  }
  return true;
}

const EtcdPods::Pod* EtcdPods::find(std::string_view pod) const {
  const auto it = pods_.find(pod);
  return it == pods_.end() ? nullptr : &it->second;
}

std::size_t EtcdPods::serving_voters(const EtcdMembership& membership) const {
  std::size_t n = 0;
  for (const auto& [name, pod] : pods_) {
    if (serving(pod, membership) && membership.is_voter(pod.id)) ++n;
  }
  HASIM_ASSERT(n <= membership.voters().size());
  return n;
}

}  // namespace hasim::druid_props
