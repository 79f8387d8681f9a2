#include "properties/detect_crash.hpp"

#include "models/demo/trace_kinds.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {
namespace {
std::string qualified(const TraceEvent& event) {
  return std::string(event.node) + "/" + std::string(event.proc);
}
}  // namespace

void DetectCrash::check_deadlines(TrueTime now, bool inclusive) {
  for (const auto& [key, obligation] : pending_) {
    const bool due = inclusive ? obligation.deadline <= now : obligation.deadline < now;
    if (!due) continue;
    violate(obligation.deadline,
            key.first + " did not suspect " + key.second + " within " + format_duration(bound_) +
                " of its crash",
            {obligation.crash});
  }
  std::erase_if(pending_, [&](const auto& entry) {
    return inclusive ? entry.second.deadline <= now : entry.second.deadline < now;
  });
}

void DetectCrash::discharge_where(const std::string& process, bool as_observer) {
  std::erase_if(pending_, [&](const auto& entry) {
    return (as_observer ? entry.first.first : entry.first.second) == process;
  });
}

void DetectCrash::on_event(const TraceEvent& event) {
  // A suspicion at exactly the deadline is in time; an obligation is late once time passes it.
  check_deadlines(event.t, false);
  if (event.proc != "heartbeat") return;
  const std::string self = qualified(event);
  if (event.kind == trace_kind::kStart) {
    running_[self] = true;
    suspects_[self].clear();  // a fresh incarnation trusts everyone
    discharge_where(self, false);
  } else if (event.kind == trace_kind::kCrash) {
    running_[self] = false;
    discharge_where(self, true);
    for (const auto& [observer, running] : running_) {
      if (!running || observer == self || suspects_[observer][self]) continue;
      pending_[{observer, self}] = Obligation{event.t + bound_, describe_event(event)};
    }
  } else if (event.kind == trace_kind::kPause) {
    running_[self] = false;  // a frozen observer cannot be expected to notice anything
    discharge_where(self, true);
  } else if (event.kind == trace_kind::kResume) {
    running_[self] = true;
  } else if (event.kind == demo::trace_kind::kSuspect) {
    const std::string peer(event.string_field("peer"));
    suspects_[self][peer] = true;
    pending_.erase({self, peer});
  } else if (event.kind == demo::trace_kind::kTrust) {
    suspects_[self][std::string(event.string_field("peer"))] = false;
  }
}

void DetectCrash::finish(TrueTime end) { check_deadlines(end, true); }

}  // namespace hasim
