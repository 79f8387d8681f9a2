#pragma once
// detect-crash:BOUND (completeness of the heartbeat detector): when a detector process
// crashes (or its node goes down), every other detector that is running at that moment
// suspects it within BOUND of true time, unless the crashed one restarts first or the
// observer itself stops or pauses. No assumption beyond the model running; a partition only makes
// suspicion come sooner.
#include <map>
#include <string>
#include <utility>

#include "properties/property.hpp"

namespace hasim {

class DetectCrash final : public Property {
 public:
  DetectCrash(std::string spec, Duration bound) : Property(std::move(spec)), bound_(bound) {}
  void on_event(const TraceEvent& event) override;
  void finish(TrueTime end) override;

 private:
  struct Obligation {
    TrueTime deadline;
    std::string crash;  // the crash event, described
  };
  void check_deadlines(TrueTime now, bool inclusive);
  void discharge_where(const std::string& process, bool as_observer);

  Duration bound_;
  std::map<std::string, bool> running_;  // detector processes, by "node/proc"
  // observer -> peers it currently suspects
  std::map<std::string, std::map<std::string, bool>> suspects_;
  // (observer, crashed) -> obligation
  std::map<std::pair<std::string, std::string>, Obligation> pending_;
};

}  // namespace hasim
