#include "models/election/acting_leaders.hpp"

#include <array>
#include <string_view>

namespace hasim {

std::string process_of(const TraceEvent& event) {
  return std::string(event.node) + "/" + std::string(event.proc);
}

bool is_notable(const TraceEvent& event) {
  static constexpr std::array<std::string_view, 22> kinds{"crash",
                                                          "exit",
                                                          "pause",
                                                          "resume",
                                                          "partition",
                                                          "heal",
                                                          "node-down",
                                                          "node-up",
                                                          "clock-step",
                                                          "clock-rate",
                                                          "terminate",
                                                          "apiserver-slow",
                                                          "apiserver-hang",
                                                          "apiserver-unavailable",
                                                          "lease-lost",
                                                          "lease-release",
                                                          "acting-start",
                                                          "acting-end",
                                                          "kubelet-restart",
                                                          "disk-loss",
                                                          "drop-connections",
                                                          "start"};
  for (std::string_view kind : kinds) {
    if (event.kind == kind) return true;
  }
  return false;
}

std::vector<ActingChange> ActingLeaders::observe(const TraceEvent& event) {
  std::vector<ActingChange> changes;
  if (event.kind == "component-start") {
    const std::string_view lease = event.string_field("lease");
    if (!lease.empty()) leases_.emplace(std::string(lease), event.t);
  } else if (event.kind == "acting-start") {
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
  } else if (event.kind == "acting-end" || event.kind == "crash" || event.kind == "exit") {
    const std::string process = process_of(event);
    const std::string only(event.kind == "acting-end" ? event.string_field("lease") : "");
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
