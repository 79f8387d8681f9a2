#include "properties/eventually_leader.hpp"

#include "models/apiserver/trace_kinds.hpp"

namespace hasim {

void EventuallyLeader::close_overdue(const std::string& lease, TrueTime at) {
  const auto it = overdue_.find(lease);
  if (it == overdue_.end()) return;
  close_window(it->second, at);
  overdue_.erase(it);
}

void EventuallyLeader::on_event(const TraceEvent& event) {
  const bool was_active = faults_.active();
  faults_.observe(event);
  // A fault suspends the obligation: overdue windows end here.
  if (faults_.active() && !was_active) {
    for (const auto& [lease, window] : overdue_) close_window(window, event.t);
    overdue_.clear();
  }
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
  if (faults_.active()) return;
  for (const auto& [lease, since] : leaderless_since_) {
    const TrueTime from = since > faults_.healed_since() ? since : faults_.healed_since();
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
