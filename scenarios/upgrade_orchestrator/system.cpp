// The upgrade orchestrator as a registered system (scenarios/system.hpp): section "upgrade",
// no processes of its own (it stops and starts the control plane's), no fault kinds (check
// draws its timings instead: properties/upgrade_orchestrator/).
#include "scenarios/upgrade_orchestrator/upgrade_orchestrator.hpp"

namespace hasim {

const ScenarioSystem& upgrade_scenario_system() {
  static const ScenarioSystem system = [] {
    ScenarioSystem s;
    s.name = "upgrade-orchestrator";
    s.section = UpgradeSpec::kSection;
    s.key_sets = {{"upgrade",
                   {"at", "to", "order", "downtime", "gap", "startJitter", "canary", "emulation",
                    "stop", "grace", "method", "provision"}}};
    s.read = scenario_loader::read_upgrade;
    s.schedule = schedule_upgrade;
    s.dictionary = {"sequential", "random", "terminate", "power-off", "30s..90s",
                    "node",       "kubeadm", "replace"};
    return s;
  }();
  return system;
}

}  // namespace hasim
