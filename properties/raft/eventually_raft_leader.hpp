#pragma once
// eventually-raft-leader:BOUND: once every fault has healed (no partition, pause or downed
// node in force) and a quorum of the etcd members runs, some running member is raft leader
// within BOUND of true time, and from then on no leaderless stretch while that holds lasts
// longer than BOUND. Etcd's own figure: a leader within about 2 x election timeout after a
// leader is lost (A2: a follower campaigns 1-2 election timeouts after its last heartbeat).
#include <optional>
#include <set>
#include <string>

#include "models/etcd/raft_roles.hpp"
#include "properties/property.hpp"

namespace hasim {

class EventuallyRaftLeader final : public Property {
 public:
  EventuallyRaftLeader(std::string spec, Duration bound)
      : Property(std::move(spec)), bound_(bound) {}
  bool wants(std::string_view kind) const override;
  void on_event(const TraceEvent& event) override;
  void finish(TrueTime end) override;

 private:
  void track_faults(const TraceEvent& event);
  bool quorum_up() const { return roles_.up() >= roles_.members() / 2 + 1; }
  void check(TrueTime now);

  Duration bound_;
  etcd::RaftRoles roles_;
  std::int64_t cuts_ = 0;
  std::int64_t nodes_down_ = 0;
  std::set<std::string> paused_;
  bool waiting_ = false;  // healed, a quorum up, no leader: since `since_`
  TrueTime since_{};
  std::optional<std::size_t> overdue_;  // the open window: waiting longer than the bound
};

}  // namespace hasim
