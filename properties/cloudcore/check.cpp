// KubeEdge CloudCore's check half (properties/check_system.hpp): single-serving (hot standby
// only), edge-reconnects:BOUND, edge-converges:BOUND and no-duplicate-delivery.
// Its fault choices are the kernel's and the control plane's (crashes, partitions, pauses,
// apiserver faults), which already aim at every process a scenario runs.
#include "properties/cloudcore/check.hpp"

#include "properties/cloudcore/edge_converges.hpp"
#include "properties/cloudcore/edge_reconnects.hpp"
#include "properties/cloudcore/no_duplicate_delivery.hpp"
#include "properties/cloudcore/single_serving.hpp"
#include "properties/cloudcore/tunnel_routes.hpp"

namespace hasim {
namespace {

std::unique_ptr<Property> single_serving(const std::string& spec, std::optional<Duration>) {
  return std::make_unique<SingleServing>(spec);
}

std::unique_ptr<Property> edge_reconnects(const std::string& spec, std::optional<Duration> bound) {
  return std::make_unique<EdgeReconnects>(spec, bound.value());
}

std::unique_ptr<Property> no_duplicate_delivery(const std::string& spec,
                                                std::optional<Duration>) {
  return std::make_unique<NoDuplicateDelivery>(spec);
}

std::unique_ptr<Property> tunnel_routes(const std::string& spec, std::optional<Duration> bound) {
  return std::make_unique<TunnelRoutes>(spec, bound.value());
}

std::unique_ptr<Property> edge_converges(const std::string& spec, std::optional<Duration> bound) {
  return std::make_unique<EdgeConverges>(spec, bound.value());
}

}  // namespace

const CheckSystem& cloudcore_check_system() {
  static const CheckSystem system{
      "cloudcore",
      {
          {{"single-serving", "",
            "at no instant do two CloudCores serve edge traffic through the load balancer (a "
            "ready Service endpoint or an open edge session)",
            "hot-standby mode; the kubelet restarts an exited CloudCore container"},
           single_serving},
          {{"edge-reconnects", "BOUND",
            "every EdgeHub without a connection (started, or its connection broke) is "
            "connected to a CloudCore again within BOUND",
            "a serving CloudCore is reachable through the load balancer within BOUND of each "
            "break (faults heal)"},
           edge_reconnects},
          {{"edge-converges", "BOUND",
            "once faults heal, every edge node's store equals what the cloud wants on it "
            "within BOUND (pods bound to it and the ConfigMaps and Secrets they reference, at "
            "the cloud's resourceVersion; nothing deleted left behind), and no store ever "
            "replaces a version by an older one",
            "no edge is silently unreachable for a new object's whole resend window (5 writes, "
            "25s): hot standby forgets a message given up"},
           edge_converges},
          {{"no-duplicate-delivery", "",
            "no edge node is sent a version of an object it already holds (KubeEdge promises "
            "at-least-once: a violation counts duplicates, not losses, and names the CloudCores "
            "that sent the version first and again)",
            "nothing: it reports what at-least-once delivery allows"},
           no_duplicate_delivery},
          {{"tunnel-routes", "BOUND",
            "active-active (v1.7+): every edge node attached to a CloudCore has that "
            "CloudCore's tunnel port in its Node (where kubectl logs/exec go) within BOUND",
            "edged's node status reports (every 10s) reach the CloudCore within BOUND once "
            "faults heal"},
           tunnel_routes},
      },
      {},
      nullptr,
      nullptr,
      nullptr,
  };
  return system;
}

}  // namespace hasim
