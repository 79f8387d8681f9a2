#pragma once
// One trial of the failover study: three control-plane nodes electing with the given
// LD/RD/RP; at a random instant after the first minute, the kube-controller-manager leader
// is hit by a crash, a partition of its node, or a pause; the trial measures how long the
// cluster goes without a working leader (until another process acts as leader, or the
// paused one resumes) and whether two leaders acted at once.
//
// The etcd faults run the same control plane over a stacked 3-member etcd (a member on each
// node, each kube-apiserver asking its own): the etcd raft leader crashes (the kubelet
// restarts it), or the node of the etcd raft leader is lost whole (powered off for good:
// its member, kube-apiserver, kube-controller-manager and kube-scheduler with it). There the
// trial measures the time until writes succeed again: from the fault until a member applies
// the first entry of a newer term (the new leader's; every write commits behind it).
#include <cstdint>
#include <string_view>

#include "scenarios/control_plane/spec.hpp"
#include "scenarios/scenario.hpp"

namespace hasim {

enum class FailoverFault { crash, partition, pause, etcd_leader_crash, etcd_leader_node_down };
std::string_view to_string(FailoverFault fault);
// The study's default cells (over the ideal store).
inline constexpr FailoverFault kFailoverFaults[] = {FailoverFault::crash, FailoverFault::partition,
                                                    FailoverFault::pause};
// Every cell, the default ones first (cell k of a study keeps its seeds whatever follows).
inline constexpr FailoverFault kAllFailoverFaults[] = {
    FailoverFault::crash, FailoverFault::partition, FailoverFault::pause,
    FailoverFault::etcd_leader_crash, FailoverFault::etcd_leader_node_down};
// Whether the fault hits stacked etcd members (and its trial measures writes).
bool is_etcd_fault(FailoverFault fault);

struct FailoverSettings {
  Duration leaseDuration = seconds(15);
  Duration renewDeadline = seconds(10);
  Duration retryPeriod = seconds(2);
  Duration pause = seconds(20);      // how long the leader is paused
  Duration partition = seconds(60);  // how long the leader's node is cut off
};

struct FailoverTrial {
  bool recovered = false;    // a working leader (etcd faults: a write) came back in the horizon
  Duration unavailable{};    // from the fault until then (if recovered)
  bool dual_leader = false;  // single-leader was violated
  bool harmful = false;      // ... with both leaders writing
};

// The control plane the trials run (three nodes, lognormal 1ms/10ms latency), over the
// ideal store or (`stacked_etcd`) over a stacked 3-member etcd.
Scenario failover_scenario(const FailoverSettings& settings, bool stacked_etcd = false);

FailoverTrial run_failover_trial(const Scenario& scenario, const FailoverSettings& settings,
                                 FailoverFault fault, std::uint64_t seed);

}  // namespace hasim
