#include "properties/no_false_suspicion.hpp"

#include "models/demo/trace_kinds.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {

void NoFalseSuspicion::on_event(const TraceEvent& event) {
  if (event.kind == trace_kind::kDrop) {
    last_drop_[{std::string(event.string_field("from")), std::string(event.string_field("to"))}] =
        event.t;
    return;
  }
  if (event.proc != "heartbeat") return;
  const std::string self = std::string(event.node) + "/" + std::string(event.proc);
  ProcessHistory& history = processes_[self];
  if (event.kind == trace_kind::kStart) {
    history.running = true;
    history.running_since = event.t;
  } else if (event.kind == trace_kind::kCrash) {
    history.running = false;
  } else if (event.kind == trace_kind::kPause) {
    history.running = false;
    history.last_paused = event.t;
  } else if (event.kind == trace_kind::kResume) {
    history.running = true;
    history.running_since = event.t;
    history.last_paused = event.t;
  } else if (event.kind == trace_kind::kRecv) {
    last_recv_[{std::string(event.string_field("from")), self}] = describe_event(event);
  } else if (event.kind == demo::trace_kind::kDetectorConfig) {
    history.timeout = Duration{event.int_field("timeout_ns")};
  } else if (event.kind == demo::trace_kind::kSuspect) {
    on_suspect(event, self);
  }
}

void NoFalseSuspicion::on_suspect(const TraceEvent& event, const std::string& observer) {
  const std::string peer(event.string_field("peer"));
  const ProcessHistory& q = processes_[observer];
  const ProcessHistory& p = processes_[peer];
  const TrueTime window_start = event.t - q.timeout;
  if (!p.running || p.running_since >= window_start) return;  // peer stopped in the window
  if (q.last_paused >= window_start) return;                  // observer's view is stale
  auto drop = last_drop_.find({peer, observer});
  if (drop != last_drop_.end() && drop->second >= window_start) return;  // a heartbeat was lost
  const auto recv = last_recv_.find({peer, observer});
  violate(event.t,
          observer + " suspected " + peer + " although " + peer +
              " ran and every heartbeat it sent to " + observer + " was delivered during the " +
              format_duration(q.timeout) + " before (true time)",
          {recv == last_recv_.end() ? "no heartbeat received yet" : recv->second,
           describe_event(event)});
}

}  // namespace hasim
