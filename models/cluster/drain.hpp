#pragma once
// `kubectl drain NODE` as k8s.io/kubectl/pkg/drain does it, after the cordon
// (spec.unschedulable): which of the node's pods it may remove (the filters of
// filters.go), and, for each pod it evicts, the eviction loop of drain.go evictPods: POST
// the eviction; 429 (a PodDisruptionBudget says no) waits 5 s and asks again; accepted, it
// polls every second until the pod is gone (NotFound, or a new pod with the same name: a
// StatefulSet's replacement); any other error fails that pod; a global --timeout (0: none)
// fails whatever is still going. Pods are evicted concurrently, each on its own loop.
// Pure: the caller makes the API calls and arms the timers the steps ask for.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/time.hpp"

namespace hasim::cluster {

struct DrainOptions {
  bool ignoreDaemonSets = true;    // --ignore-daemonsets
  bool deleteEmptyDirData = true;  // --delete-emptydir-data
  bool force = false;              // --force: pods with no controller too
  Duration timeout{};              // --timeout; 0: wait forever
};

struct DrainCandidate {
  std::string name;
  bool daemonSet = false;  // controlled by a DaemonSet: its controller would put it back
  bool mirror = false;     // a static pod's mirror: the kubelet owns it
  bool emptyDir = false;   // has an emptyDir volume (its data goes with the pod)
  bool controller = true;  // has a controller ownerReference
  bool terminal = false;   // Succeeded or Failed: removable whatever else holds
};

struct DrainSelection {
  std::vector<std::string> evict;    // in the node's pod list order
  std::vector<std::string> ignored;  // DaemonSet pods (with --ignore-daemonsets), mirror pods
  // Pods that stop the drain before anything is evicted, with the filter's reason.
  std::vector<std::pair<std::string, std::string>> refused;
};

// makeFilters in order (daemonSet, mirror, local storage, unreplicated); the first filter
// that keeps a pod decides.
DrainSelection select_drain_pods(const std::vector<DrainCandidate>& pods,
                                 const DrainOptions& options);

enum class EvictionResponse { Accepted, NotFound, TooManyRequests, OtherError };

// One pod's loop in evictPods.
class PodEvictionLoop {
 public:
  enum class Next {
    Evict,       // POST the eviction now
    EvictAfter,  // call next_try after `wait` (5 s after a 429)
    PollAfter,   // GET the pod after `wait` (0 for the immediate first poll, then 1 s)
    Done,        // gone
    Failed,      // an error, or the global timeout
  };
  struct Step {
    Next next = Next::Evict;
    Duration wait{};
  };
  // `deadline`: start + timeout, or nullopt for none (LocalTime of the kubectl machine).
  explicit PodEvictionLoop(std::optional<LocalTime> deadline) : deadline_(deadline) {}
  // The first try, and each try after a 429's pause: Evict, or Failed past the deadline.
  Step next_try(LocalTime now);
  Step on_eviction(EvictionResponse response);
  // After a poll: the pod is gone (NotFound, or its UID changed).
  Step on_poll(bool gone, LocalTime now);
  int attempts() const { return attempts_; }
  const std::string& failure() const { return failure_; }

 private:
  Step fail(std::string why);
  bool past_deadline(LocalTime now) const { return deadline_ && now >= *deadline_; }
  std::optional<LocalTime> deadline_;
  int attempts_ = 0;
  bool finished_ = false;
  std::string failure_;
};

// kubectl's pause after a 429, and its poll interval while it waits for the deletion.
inline constexpr Duration kEvictionRetry = seconds(5);
inline constexpr Duration kDeletePoll = seconds(1);

}  // namespace hasim::cluster
