#pragma once
// tunnel-routes:BOUND (KubeEdge CloudCore active-active, v1.7+): every edge node attached to a
// CloudCore (an open CloudHub session) has, within BOUND, that CloudCore's tunnel port in its
// Node's status.daemonEndpoints.kubeletEndpoint.Port: the port kube-apiserver dials for
// `kubectl logs/exec` on the node, which the iptables rules send to the replica that
// negotiated it (KE@v1.8.0:cloud/pkg/edgecontroller/controller/upstream.go updateNodeStatus;
// cloud/pkg/cloudstream/iptables). Only the replica holding the node's session can reach its
// edge, so a Node naming another replica's port fails logs and exec ("can not find session").
// The port is written by whichever replica handles edged's node status report (every 10s),
// so after an edge moves it names the old replica until its next report through the new one.
// Like edge-converges, the clock starts at the later of the attachment going wrong and the
// last fault's healing (a partition can hold the report back).
#include <map>
#include <optional>
#include <string>

#include "properties/faults_in_force.hpp"
#include "properties/property.hpp"

namespace hasim {

class TunnelRoutes final : public Property {
 public:
  TunnelRoutes(std::string spec, Duration bound) : Property(std::move(spec)), bound_(bound) {}
  bool wants(std::string_view kind) const override;
  void on_event(const TraceEvent& event) override;
  void finish(TrueTime end) override;

 private:
  struct Edge {
    std::optional<std::string> attached;  // "node/cloudcore" holding its session
    std::optional<int> node_port;         // what its Node says
    std::optional<TrueTime> wrong_since;  // attached, and the Node names another port
  };
  void detach(const std::string& replica);
  void recheck(Edge& edge, TrueTime now);
  void check(TrueTime now);

  Duration bound_;
  FaultsInForce faults_;
  std::map<std::string, int, std::less<>> ports_;     // replica -> its tunnel port
  std::map<std::string, Edge, std::less<>> edges_;    // by edge node
};

}  // namespace hasim
