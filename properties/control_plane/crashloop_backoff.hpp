#pragma once
// crashloop-backoff (the kubelet's CrashLoopBackOff): the kubelet never waits longer to
// restart a static-pod container that crashed or exited than its back-off allows, as
// pkg/kubelet/kuberuntime (doBackOff) uses k8s.io/client-go/util/flowcontrol.Backoff, keyed
// by container and counted from when the container finished: the first restart is at once;
// each later one waits the current back-off, which starts at `backoff` and doubles per
// restart up to `max`; an entry not updated for more than `reset` (2 x max: flowcontrol's
// hasExpired) is forgotten, so a container that ran that long restarts at once again.
// Judged at each "kubelet-restart" event (the kubelet's decision, with its policy and the
// delay it chose, "after_ns") from the history of earlier ones: the property keeps its own
// back-off per container and reads nothing from the kubelet's.
#include <map>
#include <string>

#include "properties/property.hpp"

namespace hasim {

class CrashLoopBackoff final : public Property {
 public:
  explicit CrashLoopBackoff(std::string spec) : Property(std::move(spec)) {}
  bool wants(std::string_view kind) const override;
  void on_event(const TraceEvent& event) override;

 private:
  struct Entry {
    Duration backoff{};
    TrueTime last_update{};
    std::string last;  // that restart, described
  };
  std::map<std::string, Entry, std::less<>> entries_;  // by "node/process"
};

}  // namespace hasim
