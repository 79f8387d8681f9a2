#include "models/cluster/statefulset_control.hpp"

#include <algorithm>
#include <optional>

#include "sim/assert.hpp"

namespace hasim::cluster {

std::string_view name(PodPhase phase) {
  switch (phase) {
    case PodPhase::Pending:
      return "Pending";
    case PodPhase::Running:
      return "Running";
    case PodPhase::Succeeded:
      return "Succeeded";
    case PodPhase::Failed:
      return "Failed";
  }
  HASIM_ASSERT(false && "unknown pod phase");
  return "";
}

std::string_view name(SetAction::Reason reason) {
  switch (reason) {
    case SetAction::Reason::Missing:
      return "missing";
    case SetAction::Reason::Terminal:
      return "terminal";
    case SetAction::Reason::ScaleDown:
      return "scale-down";
    case SetAction::Reason::Update:
      return "update";
  }
  HASIM_ASSERT(false && "unknown set action reason");
  return "";
}

bool running_and_ready(const StatefulPod& pod) {
  return pod.phase == PodPhase::Running && pod.ready;
}

// podutil.IsPodAvailable: Ready, and Ready for longer than minReadySeconds (strictly: the
// transition time plus minReadySeconds is Before now).
bool available(const StatefulPod& pod, Duration minReadySeconds, LocalTime now) {
  HASIM_ASSERT(minReadySeconds.ns >= 0);
  if (!pod.ready) return false;
  return minReadySeconds.ns == 0 || pod.readySince + minReadySeconds < now;
}

bool unavailable(const StatefulPod& pod, Duration minReadySeconds, LocalTime now) {
  return !available(pod, minReadySeconds, now) || pod.terminating;
}

namespace {

// One sync's working state: replicas[i] is ordinal i (a pod created in this sync stands in
// for a missing one, as newVersionedStatefulSetPod's object does upstream), condemned the
// pods at ordinals >= replicas, highest first.
struct Sync {
  const StatefulSetSpec& spec;
  LocalTime now;
  bool monotonic;  // !allowsBurst: OrderedReady
  std::vector<std::optional<StatefulPod>> replicas;
  std::vector<StatefulPod> condemned;
  std::optional<int> firstUnavailable;  // an ordinal
  std::vector<SetAction> actions;

  bool unavail(const StatefulPod& pod) const { return unavailable(pod, spec.minReadySeconds, now); }
  bool deleted(int ordinal) const {
    return std::any_of(actions.begin(), actions.end(), [ordinal](const SetAction& a) {
      return a.kind == SetAction::Kind::Delete && a.ordinal == ordinal;
    });
  }
  // A pod deleted twice in one sync (a terminal pod that is also outdated) is one call's
  // worth of effect: upstream's second DELETE finds it terminating already.
  void remove(const StatefulPod& pod, SetAction::Reason reason) {
    if (!deleted(pod.ordinal))
      actions.push_back({SetAction::Kind::Delete, reason, pod.ordinal, {}});
  }
};

// newVersionedStatefulSetPod: below the partition a new pod is made from currentRevision.
std::string revision_for_new(const StatefulSetSpec& spec, int ordinal) {
  const bool current =
      spec.updateStrategy == UpdateStrategyType::RollingUpdate && ordinal < spec.partition;
  return current ? spec.currentRevision : spec.updateRevision;
}

// processReplica: true when a monotonic sync must stop here.
bool process_replica(Sync& s, int ordinal) {
  std::optional<StatefulPod>& slot = s.replicas[static_cast<std::size_t>(ordinal)];
  if (slot && (slot->phase == PodPhase::Failed || slot->phase == PodPhase::Succeeded)) {
    // Created again on a later sync, once the old pod is gone.
    if (!slot->terminating) s.remove(*slot, SetAction::Reason::Terminal);
    return true;
  }
  if (!slot) {
    StatefulPod created{ordinal, revision_for_new(s.spec, ordinal), PodPhase::Pending, false, {},
                        false};
    s.actions.push_back(
        {SetAction::Kind::Create, SetAction::Reason::Missing, ordinal, created.revision});
    slot = created;
    if (s.monotonic) return true;
  }
  if (!s.monotonic) return false;
  // OrderedReady: each pod waits for its predecessors to be Running, Ready and Available.
  return slot->terminating || !running_and_ready(*slot) ||
         !available(*slot, s.spec.minReadySeconds, s.now);
}

// processCondemned: true when a monotonic sync must stop here (and after each deletion).
bool process_condemned(Sync& s, const StatefulPod& pod) {
  if (pod.terminating) return s.monotonic;
  const bool first = s.firstUnavailable == pod.ordinal;
  if (s.monotonic && !first &&
      (!running_and_ready(pod) || !available(pod, s.spec.minReadySeconds, s.now))) {
    return true;
  }
  s.remove(pod, SetAction::Reason::ScaleDown);
  return true;
}

// The first unavailable pod: the lowest replica ordinal that is unavailable or not created
// yet (upstream's placeholder object is not ready), else the lowest unavailable condemned pod.
void find_first_unavailable(Sync& s) {
  for (std::size_t i = 0; i < s.replicas.size(); ++i) {
    if (!s.replicas[i] || s.unavail(*s.replicas[i])) {
      s.firstUnavailable = static_cast<int>(i);
      return;
    }
  }
  for (auto it = s.condemned.rbegin(); it != s.condemned.rend(); ++it) {
    if (s.unavail(*it)) {
      s.firstUnavailable = it->ordinal;
      return;
    }
  }
}

// The RollingUpdate loop: from the highest ordinal down to the partition, delete the first
// pod not at updateRevision, unless a pod above it is still unavailable. Nothing here looks
// at the pods below, nor at etcd roles: the reason druid's DEP-07 proposes OnDelete.
void rolling_update(Sync& s) {
  for (int target = s.spec.replicas - 1; target >= s.spec.partition; --target) {
    const std::optional<StatefulPod>& pod = s.replicas[static_cast<std::size_t>(target)];
    HASIM_ASSERT(pod.has_value());  // every replica exists or was created in this sync
    if (pod->revision != s.spec.updateRevision && !pod->terminating) {
      s.remove(*pod, SetAction::Reason::Update);
      return;
    }
    if (s.unavail(*pod)) return;
  }
}

}  // namespace

std::vector<SetAction> sync_stateful_set(const StatefulSetSpec& spec,
                                         const std::vector<StatefulPod>& pods, LocalTime now) {
  HASIM_ASSERT(spec.replicas >= 0 && spec.partition >= 0);
  Sync s{spec, now, spec.podManagementPolicy == PodManagementPolicy::OrderedReady, {}, {}, {}, {}};
  s.replicas.resize(static_cast<std::size_t>(spec.replicas));
  for (const StatefulPod& pod : pods) {
    HASIM_ASSERT(pod.ordinal >= 0);
    if (pod.ordinal < spec.replicas) {
      HASIM_ASSERT(!s.replicas[static_cast<std::size_t>(pod.ordinal)].has_value());
      s.replicas[static_cast<std::size_t>(pod.ordinal)] = pod;
    } else {
      s.condemned.push_back(pod);
    }
  }
  std::sort(s.condemned.begin(), s.condemned.end(),
            [](const StatefulPod& a, const StatefulPod& b) { return a.ordinal > b.ordinal; });
  HASIM_ASSERT(std::adjacent_find(s.condemned.begin(), s.condemned.end(),
                                  [](const StatefulPod& a, const StatefulPod& b) {
                                    return a.ordinal == b.ordinal;
                                  }) == s.condemned.end());
  find_first_unavailable(s);
  // Burst mode runs every replica and every condemned pod; monotonic mode stops at the
  // first that blocks (runForAll).
  for (int ordinal = 0; ordinal < spec.replicas; ++ordinal) {
    if (process_replica(s, ordinal) && s.monotonic) return s.actions;
  }
  for (const StatefulPod& pod : s.condemned) {
    if (process_condemned(s, pod) && s.monotonic) return s.actions;
  }
  if (spec.updateStrategy == UpdateStrategyType::OnDelete) return s.actions;
  rolling_update(s);
  HASIM_ASSERT(s.actions.size() <= static_cast<std::size_t>(spec.replicas) + pods.size());
  return s.actions;
}

}  // namespace hasim::cluster
