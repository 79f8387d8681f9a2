#include "properties/eventually_leader.hpp"

#include "models/apiserver/trace_kinds.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {

void EventuallyLeader::track_faults(const TraceEvent& event) {
  const std::string_view kind = event.kind;
  if (kind == trace_kind::kPartition) ++cuts_;
  if (kind == trace_kind::kHeal) cuts_ = event.string_field("cut") == "all" ? 0 : cuts_ - 1;
  if (kind == trace_kind::kPause) paused_.insert(process_of(event));
  if (kind == trace_kind::kResume || kind == trace_kind::kCrash) paused_.erase(process_of(event));
  if (kind == trace_kind::kNodeDown) ++nodes_down_;
  if (kind == trace_kind::kNodeUp) --nodes_down_;
  const bool apiserver_condition = kind == api::trace_kind::kApiserverSlow ||
                                   kind == api::trace_kind::kApiserverHang ||
                                   kind == api::trace_kind::kApiserverUnavailable;
  if (apiserver_condition && event.find("state") != nullptr) {
    apiserver_faults_ += event.string_field("state") == "start" ? 1 : -1;
  }
  const std::int64_t active =
      cuts_ + static_cast<std::int64_t>(paused_.size()) + nodes_down_ + apiserver_faults_;
  if (active == 0 && active_faults_ > 0) healed_since_ = event.t;
  // A fault suspends the obligation: overdue windows end here.
  if (active > 0 && active_faults_ == 0) {
    for (const auto& [lease, window] : overdue_) close_window(window, event.t);
    overdue_.clear();
  }
  active_faults_ = active;
}

void EventuallyLeader::close_overdue(const std::string& lease, TrueTime at) {
  const auto it = overdue_.find(lease);
  if (it == overdue_.end()) return;
  close_window(it->second, at);
  overdue_.erase(it);
}

void EventuallyLeader::on_event(const TraceEvent& event) {
  track_faults(event);
  for (const ActingChange& change : leaders_.observe(event)) {
    if (change.started) {
      leaderless_since_.erase(change.lease);
      close_overdue(change.lease, event.t);
    } else if (leaders_.acting().at(change.lease).empty()) {
      leaderless_since_[change.lease] = event.t;
    }
  }
  if (event.kind == api::trace_kind::kComponentStart && !event.string_field("lease").empty()) {
    const std::string lease(event.string_field("lease"));
    if (!leaders_.acting().contains(lease) || leaders_.acting().at(lease).empty()) {
      leaderless_since_.emplace(lease, event.t);
    }
  }
  check(event.t);
}

void EventuallyLeader::check(TrueTime now) {
  if (active_faults_ > 0) return;
  for (const auto& [lease, since] : leaderless_since_) {
    const TrueTime from = since > healed_since_ ? since : healed_since_;
    if (now - from <= bound_) continue;
    std::string detail = "no process acted as leader for Lease " + lease +
                         " from t=" + format_seconds(since.ns) + "s";
    if (from > since) detail += " (faults healed at t=" + format_seconds(from.ns) + "s)";
    detail += " to at least t=" + format_seconds(now.ns) + "s, longer than the bound " +
              format_duration(bound_);
    if (!overdue_.contains(lease)) overdue_.emplace(lease, open_window(from + bound_, detail));
    violate(from + bound_, std::move(detail), {});
  }
}

void EventuallyLeader::finish(TrueTime end) {
  check(end);
  close_open_windows(end);
}

}  // namespace hasim
