#include "properties/control_plane/crashloop_backoff.hpp"

#include <algorithm>

#include "models/cluster/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim {

bool CrashLoopBackoff::wants(std::string_view kind) const {
  return kind == cluster::trace_kind::kKubeletRestart;
}

void CrashLoopBackoff::on_event(const TraceEvent& event) {
  if (event.kind != cluster::trace_kind::kKubeletRestart) return;
  const Duration initial{event.int_field("backoff_ns")};
  const Duration max{event.int_field("max_ns")};
  const Duration reset{event.int_field("reset_ns")};
  HASIM_ASSERT(initial.ns > 0 && max >= initial);
  const std::string container(event.string_field("process"));  // "node/process"
  const auto it = entries_.find(container);
  const bool fresh = it == entries_.end() || event.t - it->second.last_update > reset;
  const Duration allowed = fresh ? Duration{} : it->second.backoff;
  const Duration chosen{event.int_field("after_ns")};
  if (chosen > allowed) {
    std::vector<std::string> causes;
    std::string why;
    if (it != entries_.end()) {
      causes.push_back(it->second.last);
      const Duration ran = event.t - it->second.last_update;
      if (fresh) why = ": its last restart was " + format_duration(ran) + " before, more than ";
      if (fresh) why += format_duration(reset);
    }
    causes.push_back(describe_event(event));
    violate(event.t,
            "the kubelet restarts " + container + " after " + format_duration(chosen) +
                ", longer than CrashLoopBackOff allows (" + format_duration(allowed) + why + ")",
            std::move(causes));
  }
  Entry& entry = entries_[container];
  entry.backoff = fresh ? initial : std::min(Duration{allowed.ns * 2}, max);
  entry.last_update = event.t;
  entry.last = describe_event(event);
}

}  // namespace hasim
