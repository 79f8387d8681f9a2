#include "properties/rollout_capacity.hpp"

#include "models/apiserver/trace_kinds.hpp"
#include "models/cluster/acting_leaders.hpp"
#include "models/cluster/trace_kinds.hpp"
#include "properties/component_versions.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {

bool RolloutCapacity::wants(std::string_view kind) const {
  return kind == api::trace_kind::kComponentStart || kind == trace_kind::kCrash ||
         kind == trace_kind::kExit || kind == cluster::trace_kind::kUpgradeMachineCreate ||
         kind == cluster::trace_kind::kUpgradeDone;
}

void RolloutCapacity::on_event(const TraceEvent& event) {
  if (!wants(event.kind)) return;  // observers see every event that is built
  if (event.kind == cluster::trace_kind::kUpgradeMachineCreate) {
    if (floor_ == 0 && !done_) {
      floor_ = serving_.size();
      started_ = describe_event(event);
    }
    return;
  }
  if (event.kind == cluster::trace_kind::kUpgradeDone) {
    done_ = true;
    floor_ = 0;
    return;
  }
  const std::string process = process_of(event);
  if (event.kind == api::trace_kind::kComponentStart) {
    if (event.string_field("component") == kApiserverComponent) serving_.insert(process);
    return;
  }
  if (serving_.erase(process) == 0 || floor_ == 0 || serving_.size() >= floor_) return;
  violate(event.t,
          "rollout-capacity: " + process + " stopped during the rollout, leaving " +
              std::to_string(serving_.size()) + " kube-apiservers serving, fewer than the " +
              std::to_string(floor_) +
              " that served when it began (with maxSurge 1 a new machine joins and its pods "
              "pass their checks before an old one is removed)",
          {started_, describe_event(event)});
}

}  // namespace hasim
