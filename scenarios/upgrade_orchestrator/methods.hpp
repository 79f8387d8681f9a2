#pragma once
// The executors of the upgrade methods that react to the cluster instead of following a
// schedule drawn up front (models/cluster/upgrade_methods.hpp): "kubeadm" (kubeadm.cpp) and
// "replace" (replace.cpp). `nodes` is the upgrade's order (kubeadm) or the control plane's
// machines, oldest first (replace); `rng` draws the timings.
#include <map>
#include <string>
#include <vector>

#include "models/cluster/upgrade_spec.hpp"
#include "scenarios/control_plane/control_plane.hpp"
#include "sim/rng.hpp"
#include "sim/world.hpp"

namespace hasim {

void schedule_kubeadm_upgrade(World& world, const UpgradeSpec& spec, std::vector<std::string> nodes,
                              const ControlPlaneWiring& wiring, Rng rng);

// `zones`: every control-plane node's and replacement machine's zone (its failure domain).
void schedule_replace_upgrade(World& world, const UpgradeSpec& spec,
                              const std::vector<std::string>& nodes,
                              const std::map<std::string, std::string>& zones,
                              const ControlPlaneWiring& wiring, Rng rng);

}  // namespace hasim
