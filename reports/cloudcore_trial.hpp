#pragma once
// One trial of `hasim report cloudcore` (issue 14 part 8): KubeEdge CloudCore in hot standby
// (models/cloudcore/) with two CloudCores, one control-plane node and a few edge nodes that
// hold pods, ConfigMaps and Secrets. After a warm-up, at a random instant, the CloudCore
// leader is hit by one fault; the cloud keeps changing objects for a while after it. The
// trial reads the trace (observers and the cloudcore properties, never the models' state)
// for how long the edges go unserved, how long until every edge store equals the cloud's
// wants again, how many messages were resent and applied twice, and whether two CloudCores
// served at once.
//
// A cell is (fault, load balancer, mode). The mode is a cell dimension so that the
// active-active mode (issue 14 part 5, `v1.7+`) plugs in as one more entry of
// kCloudCoreStudyModes once models/cloudcore has it.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/cloudcore/cloudcore.hpp"
#include "scenarios/cloudcore/spec.hpp"
#include "scenarios/scenario.hpp"

namespace hasim {

// The faults, each aimed at whichever CloudCore leads when it fires:
//  - crash: the leader's process dies and is not restarted within the trial (its pod is
//    deleted; the Deployment's replacement pod is not modelled), so it never comes back
//    with a stale readiness gate;
//  - crash-restart: the leader's container crashes and the kubelet restarts it at once (a
//    first crash has no back-off): the kubeedge#2156 pattern, where a v1.3 CloudCore comes
//    back as a standby with its gate still True;
//  - apiserver-partition: the leader's node is cut off from the control plane (both ways)
//    for --partition while its edge connections stay up;
//  - node-down: the leader's node powers off for --node-down, then boots again (its edges'
//    sockets vanish without a FIN: they notice at their next failed write).
enum class CloudCoreFault : std::uint8_t { crash, crash_restart, apiserver_partition, node_down };
std::string_view to_string(CloudCoreFault fault);
inline constexpr CloudCoreFault kCloudCoreFaults[] = {
    CloudCoreFault::crash, CloudCoreFault::crash_restart, CloudCoreFault::apiserver_partition,
    CloudCoreFault::node_down};

// "service" (readiness gate) and "keepalived" (VIP), as the scenario section spells them.
std::string_view to_string(CloudLoadBalancer balancer);
inline constexpr CloudLoadBalancer kCloudLoadBalancers[] = {CloudLoadBalancer::service,
                                                            CloudLoadBalancer::keepalived};

// The modes the study can run: every mode models/cloudcore has. In active-active (v1.7+)
// no CloudCore leads: the fault hits the replica holding the most edge sessions (the first
// by name on a tie), only behind the Service (keepalived's check needs /readyz, which v1.7
// removed), and dual serving does not apply (every replica serves by design).
inline constexpr cloudcore::CloudCoreMode kCloudCoreStudyModes[] = {
    cloudcore::CloudCoreMode::v1_3, cloudcore::CloudCoreMode::v1_5,
    cloudcore::CloudCoreMode::v1_7_plus};

struct CloudCoreCell {
  CloudCoreFault fault = CloudCoreFault::crash;
  CloudLoadBalancer balancer = CloudLoadBalancer::service;
  cloudcore::CloudCoreMode mode = cloudcore::CloudCoreMode::v1_5;
  std::string name() const;  // "crash-restart/service/v1.3"
  bool operator==(const CloudCoreCell&) const = default;
};

struct CloudCoreSettings {
  int edges = 3;                    // edge nodes, each with two pods (a ConfigMap, a Secret each)
  Duration partition = minutes(2);  // apiserver-partition: how long the leader is cut off
  Duration node_down = minutes(2);  // node-down: how long the leader's node is off
  Duration horizon = minutes(5);    // a trial ends this long after the fault
};

// The warm-up (the first election and the edges' first connections take about 5s), the
// window the fault lands in (a uniform instant, so its phase against the 2s renewals and the
// 15s edge heartbeats varies), and the cloud's changes after the fault: a random update every
// 5s until kChangesAfterFault, a pod deleted, a pod created and a ConfigMap updated.
inline constexpr Duration kWarmUp = seconds(60);
inline constexpr Duration kFaultWindow = seconds(30);
inline constexpr Duration kChangesAfterFault = seconds(20);
inline constexpr Duration kUpdateEvery = seconds(5);

struct CloudCoreTrial {
  // Hot standby: every edge connected to the new leader within the horizon. Active-active:
  // every edge connected to a replica, those of the faulted replica by a session opened
  // after the fault.
  bool served = false;
  Duration served_after{};       // from the fault, if served
  bool converged = false;        // every edge store equal to the cloud's wants at the horizon
  Duration converged_after{};    // from the fault until the last difference ended, if converged
  std::int64_t resent = 0;       // CloudHub writes again (no ACK within 5s), after the fault
  std::int64_t duplicated = 0;   // MetaManager applied a version it already held, after the fault
  std::int64_t dropped = 0;      // messages given up after their last write, after the fault
  bool dual_serving = false;     // a dual-serving window (single-serving) opened after the fault
  Duration dual_serving_time{};  // the time covered by those windows
  // A window opened before the fault: client-go's MultiLock can let two CloudCores create
  // the Endpoints and the Lease of a fresh lock at once; the one that believed it led loses
  // after RenewDeadline and, in v1.3, restarts with its gate True (kubeedge#2156 at start-up).
  bool dual_serving_before = false;
  bool operator==(const CloudCoreTrial&) const = default;
};

// The world a cell's trials run (loaded through the scenario loader, so it is exactly what a
// scenario file with these values would be). A trial changes only the workload's timing.
Scenario cloudcore_study_scenario(const CloudCoreCell& cell, const CloudCoreSettings& settings);

// `watcher` (tests, debugging) also sees the trial's trace.
CloudCoreTrial run_cloudcore_trial(const Scenario& scenario, const CloudCoreCell& cell,
                                   const CloudCoreSettings& settings, std::uint64_t seed,
                                   TraceObserver* watcher = nullptr);

}  // namespace hasim
