#pragma once
// What `hasim check` may do to a scenario: the fault kinds that apply to it (the swarm's
// menu), whom each can hit, how intense it may be, and the assumptions the scenario's
// properties rest on (properties/catalog.cpp) in numbers, so a schedule can be kept within
// them or be told which one it breaks.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/scenario.hpp"

namespace hasim {

// The fault kinds the generator draws, as `--kinds` and the summary name them.
enum class FaultChoice {
  crash,                  // a process crashes and restarts after "for"
  pause,                  // a process stops taking steps (GC, SIGSTOP, VM stall)
  node_down,              // a node powers off and comes back
  partition_isolate,      // some nodes cut off from the rest
  partition_groups,       // a symmetric split into two groups
  partition_oneway,       // an asymmetric cut: from -> to only
  clock_step,             // a node's wall clock jumps
  clock_rate,             // a node's clock runs fast or slow
  apiserver_slow,         // a kube-apiserver adds latency to every request
  apiserver_hang,         // a kube-apiserver holds some verbs until its request timeout
  apiserver_unavailable,  // a kube-apiserver answers 503
  drop_connections,       // a node's TCP connections reset
  upgrade_timing,         // the upgrade's start, order, downtime, gap, jitter, canary, stop
};
inline constexpr std::size_t kFaultChoices = 13;
std::string_view to_string(FaultChoice choice);
std::optional<FaultChoice> parse_fault_choice(std::string_view name);
std::vector<std::string> fault_choice_names();

// The kind a fault counts as; nullopt for kinds the generator does not draw.
std::optional<FaultChoice> choice_of(const FaultSpec& fault);

// One leader-election configuration the scenario runs (client-go's timing parameters).
struct ElectionBounds {
  std::string who;  // "kube-controller-manager", "kube-scheduler", "leader-election-controller"
  Duration leaseDuration;
  Duration renewDeadline;
  Duration retryPeriod;
  // renewRequests: unbounded (client-go up to 1.11): a hung renewal holds the leader until
  // the request returns, so a hang breaks the stall bound below.
  bool unbounded_requests = false;
  // LD - RP - RD: how long a leader may stall (pause, slow request) and still stop acting
  // before a challenger can take over.
  Duration margin() const { return leaseDuration - retryPeriod - renewDeadline; }
};

struct FaultSpace {
  Duration duration{};                     // the run's
  std::vector<std::string> nodes;          // partitions may cut any node, the store's too
  std::vector<std::string> hosts;          // nodes whose processes may crash or power off
  std::vector<std::string> control_plane;  // nodes with a kube-apiserver
  std::vector<std::string> processes;      // "node/process" on the hosts
  std::vector<ElectionBounds> elections;
  std::optional<UpgradeSpec> upgrade;
  std::vector<FaultChoice> applicable;  // in enum order
  bool within_assumptions = true;

  // Envelope (inclusive bounds), narrowed to the assumptions when within_assumptions.
  Duration max_outage = minutes(3);  // crash, node-down, partition, apiserver faults
  Duration max_pause = minutes(1);
  Duration max_api_latency = seconds(20);
  Duration max_clock_step = minutes(1);
  std::int64_t min_rate_ppb = 500'000'000;  // clock-rate faults: rates in [min, max]
  std::int64_t max_rate_ppb = 1'999'000'000;
};

// Builds the space for `scenario` (its nodes, processes, control plane and upgrade).
// `within_assumptions` keeps every drawn fault inside the assumptions of the properties.
FaultSpace fault_space(const Scenario& scenario, bool within_assumptions);

// The documented assumptions the scenario with this schedule breaks, as sentences naming the
// fault (or the configuration) and the bound, e.g. "cp-1/kube-controller-manager is paused
// for 3.5s, longer than leaseDuration - retryPeriod - renewDeadline = 3s of
// kube-controller-manager". Empty: every assumption holds, so a violation is a finding.
std::vector<std::string> broken_assumptions(const Scenario& scenario);

}  // namespace hasim
