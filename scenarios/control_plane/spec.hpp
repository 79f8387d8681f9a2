#pragma once
// The control-plane system's scenario section, "controlPlane": kube-apiservers over the ideal
// store, kube-controller-manager and kube-scheduler electing with client-go's LeaderElector
// (lease mode) or Coordinated Leader Election (KEP-4355), and the kubelet that restarts them.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/distribution.hpp"
#include "sim/time.hpp"

namespace hasim {

// "renewRequests": whether a leader-election try is bounded by the HTTP client timeout and
// the renew loop's RenewDeadline (bounded, today's client-go) or may run until the request
// returns (unbounded, client-go up to 1.11: kubernetes#44887). election::RenewRequests has the
// details.
enum class RenewRequestsMode { bounded, unbounded };

// Leader election settings of one control-plane component (client-go LeaderElectionConfig
// plus how the component wires it).
struct ElectionSpec {
  Duration leaseDuration = seconds(15);
  Duration renewDeadline = seconds(10);
  Duration retryPeriod = seconds(2);
  bool releaseOnCancel = false;  // kube-scheduler: true; kube-controller-manager: false
  std::string lock = "leases";   // leases, endpoints, configmaps, endpointsleases, configmapsleases
  // "upgradeLock": the lock this component uses once its binary is the upgrade's target
  // version (a --leader-elect-resource-lock migration, e.g. endpointsleases to leases, done
  // by the rolling upgrade); empty: `lock` throughout.
  std::string upgradeLock;
  std::optional<Duration> clientTimeout;  // default max(1s, renewDeadline/2)
  Duration workInterval = seconds(1);     // how often the leader writes; 0: never
  RenewRequestsMode renewRequests = RenewRequestsMode::bounded;
};

// The kubelet's restart back-off for control-plane static pods (CrashLoopBackOff).
struct KubeletSpec {
  bool restart = true;  // restart containers that exit or crash
  Duration backoff = seconds(10);
  Duration maxBackoff = minutes(5);
  Duration resetAfter = minutes(10);
};

inline ElectionSpec scheduler_defaults() {
  ElectionSpec spec;
  spec.releaseOnCancel = true;
  return spec;
}

// How KCM and the scheduler elect (KEP-4355):
//   lease        client-go's lease race (tryAcquireOrRenew); no election controller runs;
//   coordinated  every component publishes a LeaseCandidate and elects with Coordinated: true,
//                every kube-apiserver runs the election controller (feature gate on);
//   mixed        the KEP's migration: instances whose binary is the newer of the upgrade's
//                two versions are coordinated (and their apiservers run the controller), the
//                older ones lease-based, all on one Lease.
enum class ElectionMode { lease, coordinated, mixed };
std::string_view to_string(ElectionMode mode);

// The election controller's choice rule: upstream's OldestEmulationVersion alone, or with the
// Priority field the KEP proposes (highest priority first, OldestEmulationVersion among
// equals); and what a coordinated component does if no election happens.
struct CoordinationSpec {
  bool priority = false;  // "strategy": "priority" (KEP PR #5357; not upstream)
  // KEP "Risk: What if the election controller fails to elect a leader?" proposes falling
  // back to direct leasing; upstream has no fallback (the elector polls forever). Unset: no
  // fallback (upstream). Set: a coordinated elector that has not been elected for this long
  // since it started campaigning also tries tryAcquireOrRenew.
  std::optional<Duration> fallbackAfter;
  Duration candidateRenewInterval = minutes(5);  // client-go leasecandidate requeueInterval
  // kube-apiserver --coordinated-leadership-{lease-duration,renew-deadline,retry-period}
  Duration leaseDuration = seconds(15);
  Duration renewDeadline = seconds(10);
  Duration retryPeriod = seconds(2);
};

// The node the ideal linearizable store runs on (it stands for an external etcd cluster that
// never loses quorum). Until issue 11 part 5 it was named "etcd", a name real etcd members
// take later; kLegacyStoreNode is that old name. Every seed must draw what it drew before
// the rename, so the store's node still forks its random streams by the old name
// (NodeSpec::stream_name). Old scenario files that name "etcd" are read as "store" with a
// note (scenarios/control_plane/legacy_store_node.cpp); a replay of format 1 runs the store
// on "etcd" as it did, since its recorded trace hash prints the name.
inline constexpr std::string_view kStoreNode = "store";
inline constexpr std::string_view kLegacyStoreNode = "etcd";

// What the kube-apiservers store objects in ("controlPlane.etcd"): the ideal store, or etcd
// members (the "etcd" section) through kube-apiserver's etcd client, either stacked (a member
// on each control-plane node; kubeadm gives each apiserver only its own, 127.0.0.1:2379) or
// external (members on their own nodes; every apiserver is given all of them).
enum class EtcdModel : std::uint8_t { ideal, raft };
enum class EtcdTopology : std::uint8_t { stacked, external };
struct ControlPlaneEtcd {
  EtcdModel model = EtcdModel::ideal;
  EtcdTopology topology = EtcdTopology::stacked;
  bool pinned = false;  // "balancer": "pinned" (clientv3 3.3) instead of "round-robin"
};

// Control-plane nodes, each running kube-apiserver, kube-controller-manager and
// kube-scheduler, over one ideal linearizable store (on node kStoreNode).
// controlPlane.loadBalancerHealthCheck: the balancer's checks of each kube-apiserver's
// /readyz (models/apiserver/load_balancer.hpp), with access "loadBalancer" only.
struct LoadBalancerHealthSpec {
  bool enabled = true;
  Duration interval = seconds(2);
  int fall = 3;
  int rise = 2;
};

struct ControlPlaneSpec {
  static constexpr std::string_view kSection = "controlPlane";
  std::vector<std::string> nodes;  // default: every node but the store's
  std::string version = "1.31.0";  // binary version of every component at start
  // --emulated-version at start; empty: the binary version (no compatibility-version flow).
  std::string emulationVersion;
  ElectionMode election = ElectionMode::lease;
  CoordinationSpec coordination;
  bool loadBalancer = false;              // components reach apiservers through a load balancer
  LoadBalancerHealthSpec loadBalancerHealthCheck;
  Duration requestTimeout = seconds(60);  // kube-apiserver --request-timeout
  DurationDistribution apiserverLatency = DurationDistribution::constant(Duration{});
  DurationDistribution watchLag = DurationDistribution::constant(Duration{});
  ElectionSpec controllerManager;                 // "kube-controller-manager"
  ElectionSpec scheduler = scheduler_defaults();  // "kube-scheduler" sets ReleaseOnCancel
  KubeletSpec kubelet;
  ControlPlaneEtcd etcd;
  // Not a key: the store's node, kStoreNode, or kLegacyStoreNode for a replay of format 1.
  std::string storeNode = std::string(kStoreNode);
};

// "lease", "coordinated", "mixed", in the order of ElectionMode.
const std::vector<std::string>& election_mode_names();

}  // namespace hasim
