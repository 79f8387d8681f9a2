#pragma once
// eventually-leader:BOUND: once every fault has healed (no partition, pause, downed node or
// apiserver fault in force), some process acts as leader for each lease within BOUND of
// true time. Crashed components count as healed: the kubelet restarts them, and the other
// candidates must take over anyway. Assumes at least one candidate can run.
#include <set>

#include "models/cluster/acting_leaders.hpp"
#include "properties/property.hpp"

namespace hasim {

class EventuallyLeader final : public Property {
 public:
  EventuallyLeader(std::string spec, Duration bound) : Property(std::move(spec)), bound_(bound) {}
  void on_event(const TraceEvent& event) override;
  void finish(TrueTime end) override;

 private:
  void track_faults(const TraceEvent& event);
  void check(TrueTime now);

  Duration bound_;
  ActingLeaders leaders_;
  std::map<std::string, TrueTime> leaderless_since_;  // leases nobody acts for
  std::map<std::string, std::size_t> overdue_;        // lease -> its open violation window
  void close_overdue(const std::string& lease, TrueTime at);
  std::int64_t active_faults_ = 0;
  TrueTime healed_since_{};
  std::set<std::string> paused_;  // processes paused now
  std::int64_t cuts_ = 0;
  std::int64_t nodes_down_ = 0;
  std::int64_t apiserver_faults_ = 0;
};

}  // namespace hasim
