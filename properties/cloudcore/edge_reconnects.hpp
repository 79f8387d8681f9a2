#pragma once
// edge-reconnects:BOUND (KubeEdge CloudCore, models/cloudcore/): every EdgeHub that is not
// connected (it just started, or its connection broke) is connected to a CloudCore again
// within BOUND. Judged at each reconnection and, for an edge still waiting, at the end of the
// run. It assumes a serving CloudCore is reachable through the load balancer within BOUND of
// the break, so a bound below failover time (lease expiry, module start, 2 x heartbeat and
// the dial rounds) fails by design.
#include <map>
#include <optional>
#include <string>

#include "properties/property.hpp"

namespace hasim {

class EdgeReconnects final : public Property {
 public:
  EdgeReconnects(std::string spec, Duration bound) : Property(std::move(spec)), bound_(bound) {}
  bool wants(std::string_view kind) const override;
  void on_event(const TraceEvent& event) override;
  void finish(TrueTime end) override;

 private:
  struct Waiting {
    TrueTime since{};
    std::string cause;  // the break (or start), described
  };
  void report(const std::string& edge, const Waiting& waiting, std::string outcome);

  Duration bound_;
  std::map<std::string, Waiting, std::less<>> waiting_;  // by edge node
};

}  // namespace hasim
