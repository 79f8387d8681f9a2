#include "properties/raft/eventually_raft_leader.hpp"

#include "sim/trace_kinds.hpp"

namespace hasim {

// Only these kinds move what the property follows; the rest (most of all "recv") it never
// needs, and a trial then skips building them.
bool EventuallyRaftLeader::wants(std::string_view kind) const {
  return etcd::RaftRoles::reads(kind) || kind == trace_kind::kPartition ||
         kind == trace_kind::kHeal || kind == trace_kind::kPause || kind == trace_kind::kResume ||
         kind == trace_kind::kCrash || kind == trace_kind::kNodeDown || kind == trace_kind::kNodeUp;
}

void EventuallyRaftLeader::track_faults(const TraceEvent& event) {
  const std::string_view kind = event.kind;
  if (kind == trace_kind::kPartition) ++cuts_;
  if (kind == trace_kind::kHeal) cuts_ = event.string_field("cut") == "all" ? 0 : cuts_ - 1;
  if (kind == trace_kind::kNodeDown) ++nodes_down_;
  if (kind == trace_kind::kNodeUp) --nodes_down_;
  if (kind != trace_kind::kPause && kind != trace_kind::kResume && kind != trace_kind::kCrash) return;
  std::string process = std::string(event.node) + "/" + std::string(event.proc);
  if (kind == trace_kind::kPause) {
    paused_.insert(std::move(process));
  } else {
    paused_.erase(process);
  }
}

void EventuallyRaftLeader::on_event(const TraceEvent& event) {
  // What held until this event: a bound that ran out since the last event read is found now
  // (with the time it ran out, since_ + bound_), before this event can end the wait.
  check(event.t);
  track_faults(event);
  roles_.observe(event);
  const bool healed = cuts_ == 0 && nodes_down_ == 0 && paused_.empty();
  const bool owed = healed && roles_.members() > 0 && quorum_up() && !roles_.leader();
  if (owed && !waiting_) since_ = event.t;
  // The overdue window ends with a leader, or when a fault suspends the obligation.
  if (!owed && overdue_) {
    close_window(*overdue_, event.t);
    overdue_.reset();
  }
  waiting_ = owed;
  check(event.t);
}

void EventuallyRaftLeader::check(TrueTime now) {
  if (!waiting_ || now - since_ <= bound_) return;
  std::string detail = "no etcd member was raft leader from t=" + format_seconds(since_.ns) +
                       "s, when faults had healed and " + std::to_string(roles_.up()) + " of " +
                       std::to_string(roles_.members()) + " members ran, to at least t=" +
                       format_seconds(now.ns) + "s, longer than the bound " +
                       format_duration(bound_);
  if (!overdue_) overdue_ = open_window(since_ + bound_, detail);
  violate(since_ + bound_, std::move(detail), {});
}

void EventuallyRaftLeader::finish(TrueTime end) {
  check(end);
  close_open_windows(end);
}

}  // namespace hasim
