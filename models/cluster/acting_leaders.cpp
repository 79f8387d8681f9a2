#include "models/cluster/acting_leaders.hpp"

#include "models/apiserver/trace_kinds.hpp"
#include "models/cluster/trace_kinds.hpp"
#include "models/election/trace_kinds.hpp"
#include "sim/trace_kinds.hpp"

#include <array>
#include <string_view>

namespace hasim {

std::string process_of(const TraceEvent& event) {
  return std::string(event.node) + "/" + std::string(event.proc);
}

bool is_notable(const TraceEvent& event) {
  static constexpr std::array<std::string_view, 22> kinds{trace_kind::kCrash,
                                                          trace_kind::kExit,
                                                          trace_kind::kPause,
                                                          trace_kind::kResume,
                                                          trace_kind::kPartition,
                                                          trace_kind::kHeal,
                                                          trace_kind::kNodeDown,
                                                          trace_kind::kNodeUp,
                                                          trace_kind::kClockStep,
                                                          trace_kind::kClockRate,
                                                          trace_kind::kTerminate,
                                                          api::trace_kind::kApiserverSlow,
                                                          api::trace_kind::kApiserverHang,
                                                          api::trace_kind::kApiserverUnavailable,
                                                          election::trace_kind::kLeaseLost,
                                                          election::trace_kind::kLeaseRelease,
                                                          cluster::trace_kind::kActingStart,
                                                          cluster::trace_kind::kActingEnd,
                                                          cluster::trace_kind::kKubeletRestart,
                                                          trace_kind::kDiskLoss,
                                                          trace_kind::kDropConnections,
                                                          trace_kind::kStart};
  for (std::string_view kind : kinds) {
    if (event.kind == kind) return true;
  }
  return false;
}

bool ActingLeaders::wants(std::string_view kind) {
  return kind == api::trace_kind::kComponentStart || kind == cluster::trace_kind::kActingStart ||
         kind == cluster::trace_kind::kActingEnd || kind == trace_kind::kCrash ||
         kind == trace_kind::kExit;
}

std::vector<ActingChange> ActingLeaders::observe(const TraceEvent& event) {
  std::vector<ActingChange> changes;
  if (event.kind == api::trace_kind::kComponentStart) {
    const std::string_view lease = event.string_field("lease");
    if (!lease.empty()) leases_.emplace(std::string(lease), event.t);
  } else if (event.kind == cluster::trace_kind::kActingStart) {
    const std::string lease(event.string_field("lease"));
    const std::string version(event.string_field("version"));
    const std::string_view emulation = event.string_field("emulation");
    Actor actor{process_of(event),
                std::string(event.string_field("identity")),
                version,
                event.t,
                std::string(event.string_field("component")),
                emulation.empty() ? version : std::string(emulation)};
    acting_[lease][actor.process] = actor;
    changes.push_back(ActingChange{true, lease, std::move(actor)});
  } else if (event.kind == cluster::trace_kind::kActingEnd || event.kind == trace_kind::kCrash ||
             event.kind == trace_kind::kExit) {
    const std::string process = process_of(event);
    const std::string only(
        event.kind == cluster::trace_kind::kActingEnd ? event.string_field("lease") : "");
    for (auto& [lease, actors] : acting_) {
      if (!only.empty() && lease != only) continue;
      const auto it = actors.find(process);
      if (it == actors.end()) continue;
      changes.push_back(ActingChange{false, lease, it->second});
      actors.erase(it);
    }
  }
  return changes;
}

}  // namespace hasim
