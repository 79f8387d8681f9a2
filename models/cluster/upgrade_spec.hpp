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
};

}  // namespace hasim
