#pragma once
// connections-close (the kernel under the control plane): when a process stops (crashes or
// exits) on a node that stays up, its operating system closes its TCP connections, so every
// running process it had a connection with receives the close (FIN) one link latency later,
// as a Linux host does for a dead process's sockets (kube-apiserver's watch and request
// handlers, client-go's requests and watches, all HTTP over TCP, fail at once instead of
// waiting for a timeout). Every control-plane message travels on such a connection
// (api-request, api-response, watch-event, store-notify: sim Transport::stream), so a
// connection is known open between two processes once one has received a message from the
// other in their current incarnations, and until the kernel traces its drop
// ("connection-drop": a partition or drop-connections). Nothing is owed when the node itself
// goes down (a powered-off host sends nothing), when the receiver stops or its node goes
// down, or when the close is dropped in flight (a traced "drop"). A close still owed 10 s
// after the stop, or at the end of the run, is a violation; a receiver paused then is judged
// once it resumes, since its messages are held.
#include <map>
#include <set>
#include <string>
#include <utility>

#include "properties/property.hpp"

namespace hasim {

class ConnectionsClose final : public Property {
 public:
  explicit ConnectionsClose(std::string spec) : Property(std::move(spec)) {}
  bool wants(std::string_view kind) const override;
  void on_event(const TraceEvent& event) override;
  void finish(TrueTime end) override;

  // How long a close may take to arrive before it counts as missing.
  static constexpr Duration kDeadline = seconds(10);

 private:
  using Pair = std::pair<std::string, std::string>;  // (stopped process, peer), qualified
  struct Owed {
    TrueTime stopped{};
    std::string stop;  // the stop event, described
  };
  void on_stop(const TraceEvent& event, const std::string& process);
  void forget(const std::string& process);
  void check_due(TrueTime now);

  std::set<Pair> open_;           // both orders: a connection known open
  std::map<Pair, Owed> owed_;     // closes not yet received
  std::set<std::string> down_;    // nodes powered off
  std::set<std::string> paused_;  // processes paused
};

}  // namespace hasim
