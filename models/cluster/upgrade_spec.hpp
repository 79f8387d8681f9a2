#pragma once
// A node-by-node upgrade (or rollback, when `to` is older than the control plane's version):
// for each node in turn, its kube-apiserver, kube-controller-manager and kube-scheduler stop
// (SIGTERM with `grace`, as the kubelet replaces static pods; or a power-off), the node stays
// down for a drawn downtime, then each component starts at the new version after its own
// start jitter; the next node starts after the gap. With `emulation` the compatibility-version
// flow runs: an upgrade first changes binaries (still emulating the old version) and then, in
// a second pass, raises the emulation version; a rollback first lowers the emulation version,
// then rolls binaries back.
//
// That is the `node` method. Two more follow how upgrades are really done (upgrade_methods.hpp):
// `kubeadm` (in place, component by component, each static pod waited for until healthy, the
// kubelet last after a drain) and `replace` (Cluster API's KubeadmControlPlane rolling
// replacement with maxSurge 1: a new machine joins before an old one is deleted).
//
// It lives with the orchestrator that plans it (upgrade_plan.hpp), not with the scenario
// format, so models/ never includes scenarios/; the scenario's "upgrade" section is this spec.
#include <string>
#include <string_view>
#include <vector>

#include "sim/distribution.hpp"
#include "sim/time.hpp"

namespace hasim {

struct UpgradeSpec {
  static constexpr std::string_view kSection = "upgrade";
  enum class Stop { terminate, power_off };
  enum class Method { node, kubeadm, replace };
  Method method = Method::node;
  Duration at = minutes(2);
  std::string to;                  // target binary version
  std::vector<std::string> order;  // node names; empty: controlPlane.nodes order
  bool randomOrder = false;        // "order": "random": a shuffle drawn from the seed
  DurationDistribution downtime = DurationDistribution::uniform(seconds(30), seconds(90));
  // From the last component of a node starting to the next node's stop.
  DurationDistribution gap = DurationDistribution::uniform(seconds(30), seconds(60));
  DurationDistribution startJitter = DurationDistribution::uniform(Duration{}, seconds(5));
  Duration canary{};  // extra wait after the first node (a canary period)
  bool emulation = false;
  Stop stop = Stop::terminate;
  Duration grace = seconds(30);
  // replace: from creating a Machine until its kubelet starts the static pods (provisioning
  // plus kubeadm join).
  DurationDistribution provision = DurationDistribution::uniform(seconds(30), seconds(90));
  // replace: the new machines' node names, one per control-plane node (not a key: the loader
  // and the study name them with replacement_nodes(), upgrade_methods.hpp).
  std::vector<std::string> replacements;
};

// "node", "kubeadm", "replace", in the order of UpgradeSpec::Method.
const std::vector<std::string>& upgrade_method_names();
std::string_view to_string(UpgradeSpec::Method method);

}  // namespace hasim
