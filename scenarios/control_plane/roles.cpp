// The control plane's fault-target role "leader:NAMESPACE/NAME": whichever process acts as
// that lease's leader when the fault fires, as the single-leader property defines acting
// (from OnStartedLeading until its work stops; models/cluster/acting_leaders.hpp). So a
// scenario can crash "the kube-controller-manager leader" without relying on which node won
// the election.
#include <algorithm>

#include "models/cluster/acting_leaders.hpp"
#include "scenarios/control_plane/control_plane.hpp"

namespace hasim {

class LeaderTracker final : public TraceObserver {
 public:
  void on_event(const TraceEvent& event) override { leaders_.observe(event); }
  // The process acting as `lease`'s leader: the one acting longest if, in a violation, two
  // do (ties: by process name, an ordered map's order).
  std::optional<std::string> leader_of(std::string_view lease) const {
    const auto it = leaders_.acting().find(std::string(lease));
    if (it == leaders_.acting().end() || it->second.empty()) return std::nullopt;
    const auto first = std::min_element(
        it->second.begin(), it->second.end(),
        [](const auto& a, const auto& b) { return a.second.since < b.second.since; });
    return first->first;
  }

 private:
  ActingLeaders leaders_;
};

namespace {

std::optional<std::string> check_lease(std::string_view lease) {
  const std::size_t slash = lease.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == lease.size() ||
      lease.find('/', slash + 1) != std::string_view::npos) {
    return "expected a lease as NAMESPACE/NAME after \"leader:\", found \"" + std::string(lease) +
           "\"";
  }
  return std::nullopt;
}

std::optional<std::string> resolve(const World&, const BuildState& built, std::string_view lease) {
  const ControlPlaneWiring* wiring = built.get<ControlPlaneWiring>();
  if (wiring == nullptr || wiring->leaders == nullptr) return std::nullopt;
  return wiring->leaders->leader_of(lease);
}

}  // namespace

RoleKind leader_role() {
  return {"leader", "leader:kube-system/kube-controller-manager",
          "the process acting as that lease's leader when the fault fires", check_lease, resolve};
}

void track_leaders(World& world, const Scenario& scenario, ControlPlaneWiring& wiring) {
  const bool aimed =
      std::any_of(scenario.faults.begin(), scenario.faults.end(),
                  [](const FaultSpec& f) { return f.role.rfind("leader:", 0) == 0; });
  if (!aimed) return;
  auto tracker = std::make_shared<LeaderTracker>();
  world.trace().add_observer(tracker.get());
  world.keep_alive(tracker);
  wiring.leaders = tracker;
}

}  // namespace hasim
