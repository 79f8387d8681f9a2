#include "properties/cloudcore/single_serving.hpp"

#include <algorithm>

#include "models/cloudcore/trace_kinds.hpp"
#include "properties/cloudcore/process_names.hpp"
#include "sim/assert.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {
namespace {

using cloudcore_trace::qualified;
constexpr std::string_view kProcess = cloudcore_trace::kCloudCoreProcess;

}  // namespace

std::string SingleServing::Server::cause() const {
  if (endpoint_ready) return endpoint_cause;
  HASIM_ASSERT(!sessions.empty());
  return sessions.begin()->second;
}

bool SingleServing::wants(std::string_view kind) const {
  namespace cc = cloudcore::trace_kind;
  return kind == cc::kEndpointReady || kind == cc::kEndpointNotReady || kind == cc::kSessionOpen ||
         kind == cc::kSessionClose || kind == trace_kind::kCrash || kind == trace_kind::kExit ||
         kind == trace_kind::kNodeDown || kind == trace_kind::kPodDelete;
}

void SingleServing::on_event(const TraceEvent& event) {
  namespace cc = cloudcore::trace_kind;
  if (!wants(event.kind)) return;  // observers see every event; only these change serving
  if (event.kind == cc::kEndpointReady || event.kind == cc::kEndpointNotReady) {
    Server& server = servers_[std::string(event.string_field("process"))];
    server.endpoint_ready = event.kind == cc::kEndpointReady;
    server.endpoint_cause = describe_event(event);
  } else if (event.kind == cc::kSessionOpen && event.proc == kProcess) {
    servers_[qualified(event)].sessions[std::string(event.string_field("edge"))] =
        describe_event(event);
  } else if (event.kind == cc::kSessionClose && event.proc == kProcess) {
    servers_[qualified(event)].sessions.erase(std::string(event.string_field("edge")));
  } else if (event.kind == trace_kind::kNodeDown) {
    // A powered-off host serves nothing; its sockets are gone.
    const std::string prefix = std::string(event.node) + "/";
    for (auto& [name, server] : servers_) {
      if (name.rfind(prefix, 0) == 0) server.sessions.clear();
    }
  } else if (event.proc == kProcess) {  // crash, exit, pod deletion: the sockets close
    servers_[qualified(event)].sessions.clear();
  } else {
    return;
  }
  update(event.t);
}

std::size_t SingleServing::serving_count() const {
  return static_cast<std::size_t>(std::count_if(
      servers_.begin(), servers_.end(), [](const auto& s) { return s.second.serving(); }));
}

void SingleServing::update(TrueTime t) {
  const bool dual = serving_count() >= 2;
  const bool open = !windows_.empty() && !windows_.back().end.has_value();
  if (dual && !open) {
    if (windows_.size() >= kMaxWindows) {
      ++dropped_;
      return;
    }
    Window window{t, std::nullopt, {}, {}};
    for (const auto& [name, server] : servers_) {
      if (!server.serving()) continue;
      window.servers.push_back(name);
      window.causes.push_back(server.cause());
    }
    windows_.push_back(std::move(window));
  } else if (!dual && open) {
    windows_.back().end = t;
  }
}

void SingleServing::finish(TrueTime end) {
  end_ = end;
  if (windows_.empty()) return;
  std::string detail = std::to_string(windows_.size() + dropped_) +
                       " window(s) in which two CloudCores served edge traffic through the "
                       "load balancer: ";
  constexpr std::size_t kShown = 5;
  for (std::size_t i = 0; i < windows_.size() && i < kShown; ++i) {
    const Window& w = windows_[i];
    std::string who;
    for (const std::string& s : w.servers) who += (who.empty() ? "" : " and ") + s;
    if (i > 0) detail += "; ";
    detail += "[" + format_duration(Duration{w.start.ns}) + ", " +
              (w.end ? format_duration(Duration{w.end->ns}) : "end of run at " +
                                                                  format_duration(Duration{end.ns})) +
              ") " + who;
  }
  if (windows_.size() > kShown) detail += "; ...";
  violate(windows_.front().start, std::move(detail), windows_.front().causes);
}

std::vector<ViolationWindow> SingleServing::windows() const {
  std::vector<ViolationWindow> out;
  out.reserve(windows_.size());
  for (const Window& w : windows_) {
    std::string who;
    for (const std::string& server : w.servers) who += (who.empty() ? "" : " and ") + server;
    out.push_back({w.start, w.end.value_or(end_), who + " served edge traffic at once"});
  }
  return out;
}

}  // namespace hasim
