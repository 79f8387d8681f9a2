#pragma once
// single-serving (KubeEdge CloudCore hot standby, models/cloudcore/): at no instant do two
// CloudCores serve edge traffic through the load balancer. A CloudCore serves from the moment
// the load balancer sends new edge connections to it (its Service endpoint is ready) or it
// holds an edge session, until neither is true (the endpoint is withdrawn and every session
// ended, by keepalive timeout, a closed connection, its exit, a crash or a power loss).
// Hot standby's promise is that only the leader does; the kubeedge#2156 pattern breaks it: a
// v1.3 leader that crashed leaves its readiness gate True, so after its container restarts
// as a standby its pod is Ready again and the Service sends edges to it beside the new
// leader.
// Every dual-serving window is reported with its start, its end (or "until the end of the
// run") and the events that made each CloudCore serve; the violation's time is the first
// window's start.
#include <map>
#include <string>
#include <vector>

#include "properties/property.hpp"

namespace hasim {

class SingleServing final : public Property {
 public:
  explicit SingleServing(std::string spec) : Property(std::move(spec)) {}
  bool wants(std::string_view kind) const override;
  void on_event(const TraceEvent& event) override;
  void finish(TrueTime end) override;
  std::vector<ViolationWindow> windows() const override;

 private:
  struct Server {
    bool endpoint_ready = false;
    std::map<std::string, std::string> sessions;  // edge node -> the open event, described
    std::string endpoint_cause;                   // the endpoint-ready event, described
    bool serving() const { return endpoint_ready || !sessions.empty(); }
    std::string cause() const;
  };
  struct Window {
    TrueTime start{};
    std::optional<TrueTime> end;
    std::vector<std::string> servers;  // "node/cloudcore"
    std::vector<std::string> causes;
  };
  void update(TrueTime t);
  std::size_t serving_count() const;

  std::map<std::string, Server, std::less<>> servers_;  // by "node/cloudcore"
  std::vector<Window> windows_;
  static constexpr std::size_t kMaxWindows = 1000;
  std::size_t dropped_ = 0;
  TrueTime end_{};  // of the run, once finished: where open windows end
};

}  // namespace hasim
