#pragma once
// The kubelet's container restart back-off (CrashLoopBackOff), as pkg/kubelet uses
// flowcontrol.Backoff: a container that exits is restarted at once the first time; a later
// exit waits for the current back-off (10s, doubling per restart up to 5 min) counted from
// when it finished; an entry not updated for 2 x max (10 min) starts over.
#include <map>

#include "sim/time.hpp"

namespace hasim::cluster {

struct BackoffPolicy {
  Duration initial = seconds(10);
  Duration max = minutes(5);
  Duration reset_after = minutes(10);  // flowcontrol's hasExpired: 2 x max by default
};

class KubeletBackoff {
 public:
  explicit KubeletBackoff(BackoffPolicy policy) : policy_(policy) {}
  // How long after `finished` the container `key` may start again; updates its entry.
  Duration restart_delay(std::uint64_t key, TrueTime finished);

 private:
  struct Entry {
    Duration backoff{};
    TrueTime last_update{};
  };
  BackoffPolicy policy_;
  std::map<std::uint64_t, Entry> entries_;
};

}  // namespace hasim::cluster
