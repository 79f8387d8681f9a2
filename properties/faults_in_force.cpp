#include "properties/faults_in_force.hpp"

#include "models/apiserver/trace_kinds.hpp"
#include "models/cluster/acting_leaders.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {
namespace {

bool is_apiserver_condition(std::string_view kind) {
  return kind == api::trace_kind::kApiserverSlow || kind == api::trace_kind::kApiserverHang ||
         kind == api::trace_kind::kApiserverUnavailable;
}

}  // namespace

bool FaultsInForce::wants(std::string_view kind) {
  return kind == trace_kind::kPartition || kind == trace_kind::kHeal ||
         kind == trace_kind::kPause || kind == trace_kind::kResume || kind == trace_kind::kCrash ||
         kind == trace_kind::kNodeDown || kind == trace_kind::kNodeUp ||
         is_apiserver_condition(kind);
}

void FaultsInForce::observe(const TraceEvent& event) {
  const std::string_view kind = event.kind;
  if (kind == trace_kind::kPartition) ++cuts_;
  if (kind == trace_kind::kHeal) cuts_ = event.string_field("cut") == "all" ? 0 : cuts_ - 1;
  if (kind == trace_kind::kPause) paused_.insert(process_of(event));
  if (kind == trace_kind::kResume || kind == trace_kind::kCrash) paused_.erase(process_of(event));
  if (kind == trace_kind::kNodeDown) ++nodes_down_;
  if (kind == trace_kind::kNodeUp) --nodes_down_;
  if (is_apiserver_condition(kind) && event.find("state") != nullptr) {
    apiserver_faults_ += event.string_field("state") == "start" ? 1 : -1;
  }
  const std::int64_t active =
      cuts_ + static_cast<std::int64_t>(paused_.size()) + nodes_down_ + apiserver_faults_;
  if (active == 0 && active_ > 0) healed_since_ = event.t;
  active_ = active;
}

}  // namespace hasim
