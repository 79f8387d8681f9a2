#pragma once
// The schedule of a node-by-node control-plane upgrade or rollback, drawn up front from the
// scenario's UpgradeSpec and a random stream: for each pass and each node in order, when the
// node's components stop, when it is back up at which versions, and when each component
// starts (after its own jitter). The next node stops `gap` after the last component of the
// previous one started (plus the canary period after the very first node). The compatibility-
// version flow makes two passes: binaries then emulation for an upgrade, emulation then
// binaries for a rollback.
#include <string>
#include <string_view>
#include <vector>

#include "models/cluster/upgrade_spec.hpp"
#include "sim/rng.hpp"

namespace hasim::cluster {

struct UpgradeAction {
  enum class Kind { stop_node, node_up, start_component };
  Kind kind = Kind::stop_node;
  TrueTime at{};
  std::string node;
  std::string component;  // start_component
  std::string binary;     // node_up: the versions the node's components start with
  std::string emulation;
  int pass = 0;
};

// Components that start on every control-plane node, in this order.
inline const std::vector<std::string>& control_plane_components() {
  static const std::vector<std::string> kComponents{"kube-apiserver", "kube-controller-manager",
                                                    "kube-scheduler"};
  return kComponents;
}

// A stacked etcd member's process on each control-plane node: a static pod like the others,
// stopped with its node and started first when the node is back (kubeadm orders etcd before
// the other components: cmd/kubeadm/app/phases/upgrade/staticpods.go StaticPodControlPlane,
// "etcd upgrade is done prior to other control plane components").
inline constexpr std::string_view kStackedEtcdComponent = "etcd";

// The static pods an upgrade stops and starts on a node: the stacked etcd member first when
// there is one, then control_plane_components().
std::vector<std::string> upgraded_static_pods(bool stacked_etcd);

// The order nodes are upgraded in: `spec.order`, the control plane's (`nodes`), or a shuffle
// drawn from `rng` ("random"; the plan's first draws).
std::vector<std::string> upgrade_order(const UpgradeSpec& spec, std::vector<std::string> nodes,
                                       Rng& rng);

// Actions in time order (ties: plan order). `from_emulation` is the emulation version at start.
// `rollback` says `spec.to` is older than `from_binary`. With `stacked_etcd` each node's etcd
// member starts the instant its node is back (before every other component, and without a
// draw of its own: the random stream, hence every other timing, is the one without etcd).
std::vector<UpgradeAction> plan_upgrade(const UpgradeSpec& spec, std::vector<std::string> nodes,
                                        const std::string& from_binary,
                                        const std::string& from_emulation, bool rollback, Rng& rng,
                                        bool stacked_etcd = false);

}  // namespace hasim::cluster
