#include "properties/cloudcore/edge_reconnects.hpp"

#include "models/cloudcore/trace_kinds.hpp"
#include "sim/assert.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {
namespace {
constexpr std::string_view kEdgeProcess = "edgecore";
}  // namespace

bool EdgeReconnects::wants(std::string_view kind) const {
  namespace cc = cloudcore::trace_kind;
  return kind == cc::kEdgeConnected || kind == cc::kEdgeDisconnected ||
         kind == trace_kind::kStart || kind == trace_kind::kCrash || kind == trace_kind::kExit;
}

void EdgeReconnects::on_event(const TraceEvent& event) {
  if (event.proc != kEdgeProcess) return;
  const std::string edge(event.node);
  if (event.kind == cloudcore::trace_kind::kEdgeConnected) {
    const auto it = waiting_.find(edge);
    if (it == waiting_.end()) return;
    if (event.t - it->second.since > bound_) {
      report(edge, it->second,
             "connected only at " + format_duration(Duration{event.t.ns}) + " (to " +
                 std::string(event.string_field("cloudcore")) + ")");
    }
    waiting_.erase(it);
    return;
  }
  if (!wants(event.kind)) return;
  // A break, a start, or the EdgeCore stopping: waiting from the first of them.
  waiting_.emplace(edge, Waiting{event.t, describe_event(event)});
}

void EdgeReconnects::report(const std::string& edge, const Waiting& waiting, std::string outcome) {
  HASIM_ASSERT(bound_.ns >= 0);
  violate(waiting.since + bound_,
          edge + "/edgecore was not connected to a CloudCore within " + format_duration(bound_) +
              " of " + format_duration(Duration{waiting.since.ns}) + ": " + outcome,
          {waiting.cause});
}

void EdgeReconnects::finish(TrueTime end) {
  for (const auto& [edge, waiting] : waiting_) {
    if (end - waiting.since <= bound_) continue;
    report(edge, waiting, "still not connected at the end of the run");
    return;  // the first one is reported
  }
}

}  // namespace hasim
