#include "reports/failover_trial.hpp"

#include "models/cluster/acting_leaders.hpp"
#include "properties/single_leader.hpp"
#include "scenarios/build.hpp"
#include "scenarios/control_plane/control_plane.hpp"
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

}  // namespace

std::string_view to_string(FailoverFault fault) {
  switch (fault) {
    case FailoverFault::crash:
      return "crash";
    case FailoverFault::partition:
      return "partition";
    case FailoverFault::pause:
      return "pause";
  }
  return "?";
}

Scenario failover_scenario(const FailoverSettings& settings) {
  Scenario scenario;
  scenario.name = "failover";
  for (const char* zone : {"a", "b", "c"}) {
    scenario.nodes.push_back(
        NodeSpec{std::string("cp-") + std::to_string(zone[0] - 'a' + 1), zone, {}, {}});
  }
  scenario.nodes.push_back(store_node_spec());
  scenario.network.latency = DurationDistribution::lognormal(milliseconds(1), milliseconds(10));
  ControlPlaneSpec cp;
  cp.nodes = {"cp-1", "cp-2", "cp-3"};
  for (ElectionSpec* spec : {&cp.controllerManager, &cp.scheduler}) {
    spec->leaseDuration = settings.leaseDuration;
    spec->renewDeadline = settings.renewDeadline;
    spec->retryPeriod = settings.retryPeriod;
  }
  cp.scheduler.releaseOnCancel = true;
  scenario.sections.set(cp);
  return scenario;
}

FailoverTrial run_failover_trial(const Scenario& scenario, const FailoverSettings& settings,
                                 FailoverFault fault, std::uint64_t seed) {
  auto world = build_world(scenario, seed);
  LeaseStarts starts;
  SingleLeader single("single-leader");
  world->trace().add_observer(&starts);
  world->trace().add_observer(&single);
  // The fault lands anywhere in a 10s window after the first minute, so its phase against
  // the renew cycle varies from trial to trial.
  Rng rng = Rng(seed).fork("failover-fault-time");
  const TrueTime at =
      TrueTime{seconds(60).ns} + Duration{static_cast<std::int64_t>(rng.below(10'000'000'000ULL))};
  world->run_until(at);
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
  }
  const Duration horizon =
      settings.pause + settings.partition + settings.leaseDuration * 4 + seconds(60);
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
