#pragma once
// Which faults are in force, followed from the trace, for the properties whose bound starts
// once every fault has healed (eventually-leader, edge-converges): partitions not yet healed,
// paused processes, downed nodes and apiserver conditions. Crashed processes count as healed:
// the kubelet (or the scenario) restarts them.
#include <cstdint>
#include <set>
#include <string>

#include "sim/trace.hpp"

namespace hasim {

class FaultsInForce {
 public:
  static bool wants(std::string_view kind);
  void observe(const TraceEvent& event);
  bool active() const { return active_ > 0; }
  // When the last fault healed (zero if none ever was in force).
  TrueTime healed_since() const { return healed_since_; }

 private:
  std::int64_t active_ = 0;
  TrueTime healed_since_{};
  std::set<std::string> paused_;  // processes paused now
  std::int64_t cuts_ = 0;
  std::int64_t nodes_down_ = 0;
  std::int64_t apiserver_faults_ = 0;
};

}  // namespace hasim
