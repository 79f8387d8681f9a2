#pragma once
// no-false-suspicion (accuracy of the heartbeat detector): when observer Q suspects peer P
// at true time t, something during the window [t - timeout, t] must explain it:
//   - P was not running throughout the window (crashed, paused, node down, restarted), or
//   - a message from P to Q was dropped in the window (loss, partition, lost connection), or
//   - Q itself was paused in the window (it resumes with stale beliefs).
// `timeout` is the detector's configured timeout, read from its detector-config event.
// Assumes latency below timeout - interval and equal clock rates: a clock that runs fast
// shrinks the observer's timeout in true time, and that is exactly what this catches.
#include <map>
#include <string>
#include <utility>

#include "properties/property.hpp"

namespace hasim {

class NoFalseSuspicion final : public Property {
 public:
  explicit NoFalseSuspicion(std::string spec) : Property(std::move(spec)) {}
  void on_event(const TraceEvent& event) override;

 private:
  struct ProcessHistory {
    bool running = false;
    TrueTime running_since{};  // start of the current uninterrupted running stretch
    TrueTime last_paused{-1};  // last time it was paused (or -1: never)
    Duration timeout{};
  };
  void on_suspect(const TraceEvent& event, const std::string& observer);

  std::map<std::string, ProcessHistory> processes_;
  std::map<std::pair<std::string, std::string>, TrueTime> last_drop_;     // (from, to) -> t
  std::map<std::pair<std::string, std::string>, std::string> last_recv_;  // (from, to) -> event
};

}  // namespace hasim
