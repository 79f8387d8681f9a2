#include "properties/control_plane/connections_close.hpp"

#include <vector>

#include "sim/trace_kinds.hpp"

namespace hasim {
namespace {

constexpr std::string_view kClosed = "connection-closed";  // sim/env.hpp ConnectionClosed

std::string qualified(const TraceEvent& event) {
  return std::string(event.node) + "/" + std::string(event.proc);
}

}  // namespace

bool ConnectionsClose::wants(std::string_view kind) const {
  return kind == trace_kind::kRecv || kind == trace_kind::kCrash || kind == trace_kind::kExit ||
         kind == trace_kind::kStart || kind == trace_kind::kNodeDown ||
         kind == trace_kind::kNodeUp || kind == trace_kind::kConnectionDrop ||
         kind == trace_kind::kDrop || kind == trace_kind::kPause || kind == trace_kind::kResume;
}

void ConnectionsClose::on_event(const TraceEvent& event) {
  if (violation().has_value()) return;
  check_due(event.t);
  if (violation().has_value()) return;
  if (event.kind == trace_kind::kRecv) {
    const std::string to = qualified(event);
    const std::string from(event.string_field("from"));
    if (from == to) return;
    if (event.string_field("msg") == kClosed) {
      owed_.erase({from, to});
      return;
    }
    open_.insert({from, to});
    open_.insert({to, from});
    return;
  }
  if (event.kind == trace_kind::kCrash || event.kind == trace_kind::kExit) {
    return on_stop(event, qualified(event));
  }
  if (event.kind == trace_kind::kStart) return forget(qualified(event));
  if (event.kind == trace_kind::kPause) {
    paused_.insert(qualified(event));
    return;
  }
  if (event.kind == trace_kind::kResume) {
    paused_.erase(qualified(event));
    return;
  }
  if (event.kind == trace_kind::kNodeDown) {
    down_.insert(std::string(event.node));
    return;
  }
  if (event.kind == trace_kind::kNodeUp) {
    down_.erase(std::string(event.node));
    return;
  }
  if (event.kind == trace_kind::kConnectionDrop) {
    const std::string a(event.string_field("a"));
    const std::string b(event.string_field("b"));
    open_.erase({a, b});
    open_.erase({b, a});
    owed_.erase({a, b});  // a close in flight on it is lost with it
    owed_.erase({b, a});
    return;
  }
  if (event.kind == trace_kind::kDrop && event.string_field("msg") == kClosed) {
    owed_.erase({std::string(event.string_field("from")), std::string(event.string_field("to"))});
  }
}

// A stopped process's connections: each running peer on them is owed a close, unless the
// process's node is down (crash reason "node-down", or already powered off).
void ConnectionsClose::on_stop(const TraceEvent& event, const std::string& process) {
  const bool node_up =
      !down_.contains(std::string(event.node)) &&
      (event.kind != trace_kind::kCrash || event.string_field("reason") != "node-down");
  if (node_up) {
    for (auto it = open_.lower_bound({process, ""}); it != open_.end() && it->first == process;
         ++it) {
      owed_.try_emplace({process, it->second}, Owed{event.t, describe_event(event)});
    }
  }
  forget(process);
}

// A process that stops or starts has no connection any more, and is owed nothing.
void ConnectionsClose::forget(const std::string& process) {
  for (auto it = open_.begin(); it != open_.end();) {
    it = it->first == process || it->second == process ? open_.erase(it) : std::next(it);
  }
  for (auto it = owed_.begin(); it != owed_.end();) {
    it = it->first.second == process ? owed_.erase(it) : std::next(it);
  }
}

void ConnectionsClose::check_due(TrueTime now) {
  for (const auto& [pair, owed] : owed_) {
    if (now - owed.stopped <= kDeadline || paused_.contains(pair.second)) continue;
    const auto& [process, peer] = pair;
    violate(owed.stopped,
            process + " stopped on a node that stayed up, but " + peer +
                ", which had a connection with it, had not received its close (FIN) " +
                format_duration(kDeadline) +
                " later: a dead process's connections are closed by its operating system, so "
                "its peers learn at once instead of by their own timeouts",
            std::vector<std::string>{owed.stop});
    return;
  }
}

void ConnectionsClose::finish(TrueTime end) {
  if (violation().has_value()) return;
  check_due(end);
}

}  // namespace hasim
