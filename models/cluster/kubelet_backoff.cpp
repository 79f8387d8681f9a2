#include "models/cluster/kubelet_backoff.hpp"

#include "sim/assert.hpp"

namespace hasim::cluster {

Duration KubeletBackoff::restart_delay(std::uint64_t key, TrueTime finished) {
  HASIM_ASSERT(policy_.initial.ns > 0 && policy_.max >= policy_.initial);
  const auto it = entries_.find(key);
  const bool expired =
      it != entries_.end() && finished - it->second.last_update > policy_.reset_after;
  if (it == entries_.end() || expired) {
    // IsInBackOffSince is false without an entry: restart now; Next() starts the entry.
    entries_[key] = Entry{policy_.initial, finished};
    return Duration{};
  }
  const Duration delay = it->second.backoff;
  Duration doubled{delay.ns * 2};
  it->second.backoff = doubled > policy_.max ? policy_.max : doubled;
  it->second.last_update = finished;
  return delay;
}

}  // namespace hasim::cluster
