#pragma once
// One sync of the StatefulSet controller over a set's pods, as kube-controller-manager's
// pkg/controller/statefulset/stateful_set_control.go (updateStatefulSet, processReplica,
// processCondemned, the RollingUpdate loop) decides it: which ordinals to create and which
// pods to delete, and why. Pure: the caller applies the actions (the API calls) and syncs
// again when a pod changes, as the controller's informer does.
//
// Not modelled: PVC retention policy (druid leaves it at Retain, the default), start
// ordinals (.spec.ordinals), the MaxUnavailableStatefulSet feature gate (alpha, off), and
// identity/storage repair of existing pods (hasim's pods never lose their labels).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/time.hpp"

namespace hasim::cluster {

enum class PodPhase { Pending, Running, Succeeded, Failed };
std::string_view name(PodPhase phase);

// What the controller sees of one of the set's pods (its informer's copy).
struct StatefulPod {
  int ordinal = 0;
  std::string revision;  // the controller-revision-hash label
  PodPhase phase = PodPhase::Pending;
  bool ready = false;        // the Ready condition is True
  LocalTime readySince{};    // the Ready condition's lastTransitionTime
  bool terminating = false;  // deletionTimestamp set
};

enum class PodManagementPolicy { OrderedReady, Parallel };
enum class UpdateStrategyType { RollingUpdate, OnDelete };

struct StatefulSetSpec {
  int replicas = 0;
  PodManagementPolicy podManagementPolicy = PodManagementPolicy::OrderedReady;
  UpdateStrategyType updateStrategy = UpdateStrategyType::RollingUpdate;
  int partition = 0;  // RollingUpdate: ordinals below it keep currentRevision
  Duration minReadySeconds{};
  std::string currentRevision;  // status.currentRevision
  std::string updateRevision;   // status.updateRevision (the template's revision now)
};

struct SetAction {
  enum class Kind { Create, Delete };
  enum class Reason {
    Missing,    // an ordinal in [0, replicas) has no pod
    Terminal,   // the pod Failed or Succeeded: deleted so it is created again
    ScaleDown,  // the ordinal is >= replicas (condemned)
    Update,     // RollingUpdate: the highest ordinal not yet at updateRevision
  };
  Kind kind = Kind::Create;
  Reason reason = Reason::Missing;
  int ordinal = 0;
  std::string revision;  // Create: the revision of the new pod
  friend bool operator==(const SetAction&, const SetAction&) = default;
};
std::string_view name(SetAction::Reason reason);

// The actions of one sync, in the order the controller issues them. With Parallel pod
// management (burst) upstream issues a phase's calls concurrently (slowStartBatch); here
// they come in ordinal order (ascending for replicas, descending for condemned pods), which
// is one of the orders upstream can produce. `pods` may come in any order; ordinals are
// unique and >= 0.
std::vector<SetAction> sync_stateful_set(const StatefulSetSpec& spec,
                                         const std::vector<StatefulPod>& pods, LocalTime now);

// isRunningAndReady / IsPodAvailable / isUnavailable of stateful_set_utils.go and podutil.
bool running_and_ready(const StatefulPod& pod);
bool available(const StatefulPod& pod, Duration minReadySeconds, LocalTime now);
bool unavailable(const StatefulPod& pod, Duration minReadySeconds, LocalTime now);

}  // namespace hasim::cluster
