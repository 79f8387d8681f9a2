#pragma once
// eventually-leader:BOUND: once every fault has healed (no partition, pause, downed node or
// apiserver fault in force), some process acts as leader for each lease within BOUND of
// true time. Crashed components count as healed: the kubelet restarts them, and the other
// candidates must take over anyway. Assumes at least one candidate can run.
#include "models/cluster/acting_leaders.hpp"
#include "properties/faults_in_force.hpp"
#include "properties/property.hpp"

namespace hasim {

class EventuallyLeader final : public Property {
 public:
  EventuallyLeader(std::string spec, Duration bound) : Property(std::move(spec)), bound_(bound) {}
  void on_event(const TraceEvent& event) override;
  void finish(TrueTime end) override;

 private:
  void check(TrueTime now);

  Duration bound_;
  ActingLeaders leaders_;
  std::map<std::string, TrueTime> leaderless_since_;  // leases nobody acts for
  FaultsInForce faults_;
  std::map<std::string, std::size_t> overdue_;  // lease -> its open violation window
  void close_overdue(const std::string& lease, TrueTime at);
};

}  // namespace hasim
