#include "reports/failover_trial.hpp"

#include "models/apiserver/trace_kinds.hpp"
#include "models/cluster/acting_leaders.hpp"
#include "models/etcd/raft_roles.hpp"
#include "models/etcd/trace_entries.hpp"
#include "models/etcd/trace_kinds.hpp"
#include "properties/single_leader.hpp"
#include "scenarios/build.hpp"
#include "scenarios/control_plane/control_plane.hpp"
#include "scenarios/etcd/spec.hpp"
#include "sim/assert.hpp"

#include <limits>

namespace hasim {
namespace {

constexpr std::string_view kLease = "kube-system/kube-controller-manager";

// Records who starts acting as kube-controller-manager leader, and when.
class LeaseStarts final : public TraceObserver {
 public:
  void on_event(const TraceEvent& event) override {
    for (const ActingChange& change : leaders_.observe(event)) {
      if (change.started && change.lease == kLease) {
        starts_.push_back({event.t, change.actor.identity});
      }
    }
  }
  // The acting leader, if exactly one acts.
  std::optional<Actor> leader() const {
    const auto it = leaders_.acting().find(std::string(kLease));
    if (it == leaders_.acting().end() || it->second.size() != 1) return std::nullopt;
    return it->second.begin()->second;
  }
  // The first start after `after` by another identity (a restarted process is another).
  std::optional<TrueTime> successor(TrueTime after, const std::string& old_identity) const {
    for (const auto& [at, identity] : starts_) {
      if (at >= after && identity != old_identity) return at;
    }
    return std::nullopt;
  }

 private:
  ActingLeaders leaders_;
  std::vector<std::pair<TrueTime, std::string>> starts_;
};

// When the members commit again after the fault: the first entry of a later term than the
// failed leader's that a member applies. A new leader's first entry (the empty one raft
// appends on election) commits before any write can, and every kube-apiserver write waits
// behind it; so this is when writes succeed again for a cluster that always has some to
// make (node leases, events), whatever this control plane's own few writers happen to do.
class NewTermCommit final : public TraceObserver {
 public:
  NewTermCommit(TrueTime after, std::uint64_t term) : after_(after), term_(term) {}
  bool wants(std::string_view kind) const override { return kind == etcd::trace_kind::kApply; }
  void on_event(const TraceEvent& event) override {
    if (first || event.t <= after_ || event.kind != etcd::trace_kind::kApply) return;
    const auto first_index = static_cast<std::uint64_t>(event.int_field("first"));
    const auto entries = etcd::decode_trace_entries(first_index, event.string_field("ents"));
    HASIM_ASSERT(entries.has_value());
    for (const etcd::TracedEntry& entry : *entries) {
      if (entry.term > term_) first = event.t;
    }
  }
  std::optional<TrueTime> first;

 private:
  TrueTime after_;
  std::uint64_t term_;  // the failed leader's
};

// Who leads the etcd members, as the etcd system's "raft-leader" role reads it.
class RaftLeader final : public TraceObserver {
 public:
  bool wants(std::string_view kind) const override { return etcd::RaftRoles::reads(kind); }
  void on_event(const TraceEvent& event) override { roles_.observe(event); }
  std::optional<std::string> leader() const { return roles_.leader(); }
  std::uint64_t term_of(const std::string& member) const {
    return static_cast<std::uint64_t>(roles_.all().at(member).term);
  }

 private:
  etcd::RaftRoles roles_;
};

// The etcd faults: the etcd raft leader crashes, or its node goes down for good.
FailoverTrial run_etcd_fault(World& world, const RaftLeader& raft, FailoverFault fault, TrueTime at,
                             Duration horizon, SingleLeader& single) {
  HASIM_ASSERT(is_etcd_fault(fault));
  const std::optional<std::string> leader = raft.leader();
  HASIM_ASSERT(leader.has_value());  // a quiet minute elects one
  const ProcessId member = *world.find_process(*leader);
  NewTermCommit writes(at, raft.term_of(*leader));
  world.trace().add_observer(&writes);
  if (fault == FailoverFault::etcd_leader_crash) {
    world.crash(member);  // the kubelet restarts the static pod (CrashLoopBackOff)
  } else {
    world.node_down(world.process_node(member));
  }
  world.run_until(at + horizon);
  single.finish(world.now());
  FailoverTrial trial;
  trial.recovered = writes.first.has_value();
  if (writes.first) trial.unavailable = *writes.first - at;
  trial.dual_leader = single.overlaps() > 0;
  trial.harmful = single.harmful_overlaps() > 0;
  return trial;
}

}  // namespace

bool is_etcd_fault(FailoverFault fault) {
  return fault == FailoverFault::etcd_leader_crash || fault == FailoverFault::etcd_leader_node_down;
}

std::string_view to_string(FailoverFault fault) {
  switch (fault) {
    case FailoverFault::crash:
      return "crash";
    case FailoverFault::partition:
      return "partition";
    case FailoverFault::pause:
      return "pause";
    case FailoverFault::etcd_leader_crash:
      return "etcd-leader-crash";
    case FailoverFault::etcd_leader_node_down:
      return "etcd-leader-node-down";
  }
  return "?";
}

Scenario failover_scenario(const FailoverSettings& settings, bool stacked_etcd) {
  Scenario scenario;
  scenario.name = stacked_etcd ? "failover-stacked-etcd" : "failover";
  for (const char* zone : {"a", "b", "c"}) {
    scenario.nodes.push_back(
        NodeSpec{std::string("cp-") + std::to_string(zone[0] - 'a' + 1), zone, {}, {}});
  }
  // Over stacked members there is no ideal store, and no node for it.
  if (!stacked_etcd) scenario.nodes.push_back(store_node_spec());
  scenario.network.latency = DurationDistribution::lognormal(milliseconds(1), milliseconds(10));
  ControlPlaneSpec cp;
  cp.nodes = {"cp-1", "cp-2", "cp-3"};
  for (ElectionSpec* spec : {&cp.controllerManager, &cp.scheduler}) {
    spec->leaseDuration = settings.leaseDuration;
    spec->renewDeadline = settings.renewDeadline;
    spec->retryPeriod = settings.retryPeriod;
  }
  cp.scheduler.releaseOnCancel = true;
  if (stacked_etcd) {
    // As a scenario file gets it (scenarios/control_plane/etcd_backing.cpp): a member on
    // every control-plane node with etcd's default timings.
    EtcdSpec etcd;
    etcd.members = cp.nodes;
    scenario.sections.set(etcd);
    cp.etcd.model = EtcdModel::raft;
    cp.etcd.topology = EtcdTopology::stacked;
  }
  scenario.sections.set(cp);
  return scenario;
}

FailoverTrial run_failover_trial(const Scenario& scenario, const FailoverSettings& settings,
                                 FailoverFault fault, std::uint64_t seed) {
  HASIM_ASSERT(is_etcd_fault(fault) == (scenario.section<EtcdSpec>() != nullptr));
  auto world = build_world(scenario, seed);
  LeaseStarts starts;
  SingleLeader single("single-leader");
  RaftLeader raft;
  world->trace().add_observer(&starts);
  world->trace().add_observer(&single);
  if (is_etcd_fault(fault)) world->trace().add_observer(&raft);
  // The fault lands anywhere in a 10s window after the first minute, so its phase against
  // the renew cycle varies from trial to trial.
  Rng rng = Rng(seed).fork("failover-fault-time");
  const TrueTime at =
      TrueTime{seconds(60).ns} + Duration{static_cast<std::int64_t>(rng.below(10'000'000'000ULL))};
  world->run_until(at);
  const Duration horizon =
      settings.pause + settings.partition + settings.leaseDuration * 4 + seconds(60);
  if (is_etcd_fault(fault)) return run_etcd_fault(*world, raft, fault, at, horizon, single);
  FailoverTrial trial;
  const auto leader = starts.leader();
  HASIM_ASSERT(leader.has_value());  // one leader after a quiet minute
  const ProcessId process = *world->find_process(leader->process);
  const NodeId node = world->process_node(process);
  TrueTime resumed{std::numeric_limits<std::int64_t>::max()};
  switch (fault) {
    case FailoverFault::crash:
      world->crash(process);
      break;
    case FailoverFault::partition: {
      const std::uint64_t cut =
          world->partition(Reachability::isolate({node}, world->node_count()));
      World* w = world.get();
      world->at(at + settings.partition, [w, cut] { w->heal(cut); });
      break;
    }
    case FailoverFault::pause: {
      world->pause(process);
      World* w = world.get();
      resumed = at + settings.pause;
      world->at(resumed, [w, process] { w->resume(process); });
      break;
    }
    case FailoverFault::etcd_leader_crash:
    case FailoverFault::etcd_leader_node_down:
      HASIM_ASSERT(false);  // run_etcd_fault
      break;
  }
  world->run_until(at + horizon);
  single.finish(world->now());
  std::optional<TrueTime> back = starts.successor(at, leader->identity);
  if (fault == FailoverFault::pause && (!back || *back > resumed)) back = resumed;
  trial.recovered = back.has_value();
  if (back) trial.unavailable = *back - at;
  trial.dual_leader = single.overlaps() > 0;
  trial.harmful = single.harmful_overlaps() > 0;
  return trial;
}

}  // namespace hasim
