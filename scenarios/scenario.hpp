#pragma once
// A scenario as plain data, after validation. The loader (scenarios/loader.hpp) turns JSON
// into this and rejects bad input with a message naming the JSON path; scenarios/build.hpp
// turns it into a World. Every field here has been checked: names resolve, durations are
// non-negative, ranges are ordered.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/distribution.hpp"
#include "sim/time.hpp"

namespace hasim {

struct ClockSpec {
  Duration offset{};                      // wall clock minus true time at start
  std::int64_t rate_ppb = 1'000'000'000;  // from "drift": "+50ppm" or "rate": 1.0005
};

struct NodeSpec {
  std::string name;  // unique, e.g. "n1"
  std::string zone;  // may be empty
  ClockSpec clock;
};

struct LinkSpec {
  std::string from;  // node names; the override applies to messages from -> to
  std::string to;
  std::optional<DurationDistribution> latency;
  std::optional<double> loss;
  std::optional<double> duplicate;
};

struct NetworkSpec {
  DurationDistribution latency = DurationDistribution::constant(milliseconds(1));
  DurationDistribution loopback_latency = DurationDistribution::constant(microseconds(100));
  double loss = 0.0;       // datagrams only; streams (TCP) lose only on connection drop
  double duplicate = 0.0;  // datagrams only
  std::vector<LinkSpec> links;
};

// The demo model: a heartbeat failure detector on every node (models/demo/).
struct HeartbeatSpec {
  Duration interval = seconds(1);
  Duration timeout = seconds(3);  // suspect a peer not heard from for this long (local time)
};

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

// Control-plane nodes, each running kube-apiserver, kube-controller-manager and
// kube-scheduler, over one ideal linearizable store (an external etcd on node "etcd").
struct ControlPlaneSpec {
  std::vector<std::string> nodes;  // default: every node but "etcd"
  std::string version = "1.31.0";  // binary version of every component at start
  // --emulated-version at start; empty: the binary version (no compatibility-version flow).
  std::string emulationVersion;
  ElectionMode election = ElectionMode::lease;
  CoordinationSpec coordination;
  bool loadBalancer = false;              // components reach apiservers through a load balancer
  Duration requestTimeout = seconds(60);  // kube-apiserver --request-timeout
  DurationDistribution apiserverLatency = DurationDistribution::constant(Duration{});
  DurationDistribution watchLag = DurationDistribution::constant(Duration{});
  ElectionSpec controllerManager;                 // "kube-controller-manager"
  ElectionSpec scheduler = scheduler_defaults();  // "kube-scheduler" sets ReleaseOnCancel
  KubeletSpec kubelet;
};
inline constexpr std::string_view kStoreNode = "etcd";

struct FaultSpec {
  enum class Kind {
    crash,
    restart,
    pause,
    resume,
    node_down,
    node_up,
    clock_step,
    clock_rate,
    partition,
    heal,
    disk_loss,
    drop_connections,
    terminate,             // SIGTERM to a process, killed after `grace`
    apiserver_slow,        // the node's kube-apiserver adds `latency` to each request
    apiserver_hang,        // ... gives no answer to `verbs` until its request timeout
    apiserver_unavailable  // ... answers 503 to everything
  };
  enum class PartitionMode { isolate, groups, oneway };

  Kind kind = Kind::crash;
  Duration at{};
  std::optional<Duration> for_duration;  // undo after this long (restart, resume, heal, ...)
  // Targets: node names, or "node/process" names for process-level faults.
  std::vector<std::string> targets;
  // clock_step
  Duration step{};
  // clock_rate
  std::int64_t rate_ppb = 1'000'000'000;
  // partition
  PartitionMode partition_mode = PartitionMode::isolate;
  std::vector<std::vector<std::string>> groups;  // groups: cut between every pair of groups
  std::vector<std::string> from;                 // oneway: from -> to cut
  std::vector<std::string> to;
  // terminate
  Duration grace = seconds(30);
  // apiserver_slow
  Duration latency{};
  // apiserver_hang: "get", "list", "create", "update", "delete", "watch"; empty: all
  std::vector<std::string> verbs;
};

// A node-by-node upgrade (or rollback, when `to` is older than controlPlane.version): for
// each node in turn, its kube-apiserver, kube-controller-manager and kube-scheduler stop
// (SIGTERM with `grace`, as the kubelet replaces static pods; or a power-off), the node stays
// down for a drawn downtime, then each component starts at the new version after its own
// start jitter; the next node starts after the gap. With `emulation` the compatibility-version
// flow runs: an upgrade first changes binaries (still emulating the old version) and then, in
// a second pass, raises the emulation version; a rollback first lowers the emulation version,
// then rolls binaries back.
struct UpgradeSpec {
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

struct Scenario {
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  Duration duration = minutes(10);
  std::vector<NodeSpec> nodes;
  NetworkSpec network;
  std::optional<HeartbeatSpec> heartbeat;
  std::optional<ControlPlaneSpec> controlPlane;
  std::optional<UpgradeSpec> upgrade;
  std::vector<FaultSpec> faults;        // in file order; the kernel orders by (at, index)
  std::vector<std::string> properties;  // e.g. "detect-crash:10s"
};

std::string_view to_string(FaultSpec::Kind kind);

}  // namespace hasim
