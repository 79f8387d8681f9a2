#include "properties/cloudcore/no_duplicate_delivery.hpp"

#include "models/cloudcore/trace_kinds.hpp"
#include "properties/cloudcore/process_names.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {
using cloudcore_trace::kEdgeProcess;
constexpr std::size_t kMaxStored = 10'000'000;  // (edge, object) pairs: bounds the map
}  // namespace

bool NoDuplicateDelivery::wants(std::string_view kind) const {
  return kind == cloudcore::trace_kind::kEdgeConnected ||
         kind == cloudcore::trace_kind::kEdgeStoreApply;
}

void NoDuplicateDelivery::on_event(const TraceEvent& event) {
  if (!wants(event.kind) || event.proc != kEdgeProcess) return;
  const std::string edge(event.node);
  if (event.kind == cloudcore::trace_kind::kEdgeConnected) {
    connected_to_[edge] = std::string(event.string_field("cloudcore"));
    return;
  }
  const std::string_view result = event.string_field("result");
  const auto key = std::make_pair(edge, std::string(event.string_field("object")));
  const std::string& from = connected_to_[edge];
  if (result == "store") {
    HASIM_ASSERT(stored_.size() < kMaxStored || stored_.contains(key));
    stored_[key] = Stored{event.int_field("rv"), from, event.t};
    return;
  }
  if (result == "remove") {
    stored_.erase(key);
    return;
  }
  if (result != "duplicate") return;
  if (duplicates_++ > 0) return;
  first_at_ = event.t;
  first_event_ = describe_event(event);
  const auto it = stored_.find(key);
  first_ = edge + "/edgecore was sent " + key.second + " at resourceVersion " +
           std::to_string(event.int_field("rv")) + " again, by " + from;
  if (it != stored_.end()) {
    first_ += ", after storing it from " + it->second.from + " at " +
              format_duration(Duration{it->second.at.ns});
  }
}

void NoDuplicateDelivery::finish(TrueTime /*end*/) {
  if (duplicates_ == 0) return;
  violate(first_at_,
          std::to_string(duplicates_) + " duplicate deliver" + (duplicates_ == 1 ? "y" : "ies") +
              " (at-least-once allows them; nothing was lost): the first: " + first_,
          {first_event_});
}

}  // namespace hasim
