#pragma once
// The executors of the upgrade methods that react to the cluster instead of following a
// schedule drawn up front (models/cluster/upgrade_methods.hpp): "kubeadm" (kubeadm.cpp) and
// "replace" (replace.cpp). `nodes` is the upgrade's order (kubeadm) or the control plane's
// machines, oldest first (replace); `rng` draws the timings.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/cluster/upgrade_spec.hpp"
#include "scenarios/control_plane/control_plane.hpp"
#include "sim/rng.hpp"
#include "sim/world.hpp"

namespace hasim {

// What kubeadm's etcd step (performEtcdStaticPodUpgrade) finds on the nodes.
struct KubeadmEtcd {
  // A stacked member on every node ("NODE/etcd"); otherwise the store stands for an external
  // etcd and the step is skipped, as kubeadm skips it ("external etcd detected").
  bool stacked = false;
  // A rollback: the target release's etcd is older than the running one, and kubeadm "Won't
  // downgrade etcd, instead just continue".
  bool downgrade = false;
  std::vector<std::string> members;  // "NODE/etcd", the endpoints kubeadm's etcd client asks
  // The member that leads now ("NODE/etcd"), if any (the etcd system's raft-leader role).
  std::function<std::optional<std::string>()> leader;
};

void schedule_kubeadm_upgrade(World& world, const UpgradeSpec& spec, std::vector<std::string> nodes,
                              const ControlPlaneWiring& wiring, KubeadmEtcd etcd, Rng rng);

// `zones`: every control-plane node's and replacement machine's zone (its failure domain).
void schedule_replace_upgrade(World& world, const UpgradeSpec& spec,
                              const std::vector<std::string>& nodes,
                              const std::map<std::string, std::string>& zones,
                              const ControlPlaneWiring& wiring, Rng rng);

}  // namespace hasim
