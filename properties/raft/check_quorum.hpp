#pragma once
// check-quorum:BOUND: an etcd member that leads and has heard from fewer than a quorum of the
// voters (itself included) for BOUND steps down. etcd-io/raft raft.go (tickHeartbeat and
// stepLeader's MsgCheckQuorum): with CheckQuorum on (etcd hard-codes it), a leader checks
// every election timeout whether a quorum of voters was recently active and becomes a
// follower if not, so one cut off from its peers leads for at most about two election
// timeouts after the last message it heard. Stated over the trace: the messages a member
// received ("recv" from another etcd member) and its role (raft-state).
//
// The obligation starts again whenever the leader could not have ticked or counted: when it
// becomes leader, when it resumes from a pause, when its node's clock changes rate (a slow
// clock stretches the bound by its factor, read from the clock-rate event). The voters are
// the members of the initial cluster (a first start from the bootstrap snapshot) as changed
// by applied conf changes (etcd-conf-change). Any message a member received counts as heard,
// which is at least what raft counts (MsgAppResp and MsgHeartbeatResp), so the property only
// flags a leader that raft itself would have deposed. Assumes CheckQuorum (etcd mode; not
// the paper mode, not etcd.checkQuorum false) and node clocks that start at true rate.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "properties/property.hpp"

namespace hasim {

class CheckQuorum final : public Property {
 public:
  CheckQuorum(std::string spec, Duration bound) : Property(std::move(spec)), bound_(bound) {}
  void on_event(const TraceEvent& event) override;
  bool wants(std::string_view kind) const override;
  void finish(TrueTime end) override;

 private:
  struct Leader {
    TrueTime since{};  // when the obligation last started
    std::int64_t term = 0;
    bool paused = false;
    std::map<std::string, TrueTime, std::less<>> heard;  // peer "node/etcd" -> last recv
  };
  void observe_member(const TraceEvent& event, const std::string& name);
  void observe_node(const TraceEvent& event);
  // When `leader` is due to have stepped down unless it hears from a quorum, if it is.
  std::optional<TrueTime> due(const std::string& name, const Leader& leader) const;
  void check(TrueTime now);
  std::size_t quorum() const { return voters_.size() / 2 + 1; }

  Duration bound_;
  std::map<std::string, Leader, std::less<>> leaders_;  // "node/etcd" of members that lead
  std::map<std::string, std::int64_t, std::less<>> rates_;  // node -> clock rate, ppb
  std::set<std::int64_t> voters_;                           // raft IDs
  std::set<std::int64_t> seen_;                             // raft IDs that have started
};

}  // namespace hasim
