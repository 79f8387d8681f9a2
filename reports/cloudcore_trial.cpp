#include "reports/cloudcore_trial.hpp"

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "models/cloudcore/trace_kinds.hpp"
#include "models/cluster/acting_leaders.hpp"
#include "models/cluster/trace_kinds.hpp"
#include "properties/cloudcore/edge_converges.hpp"
#include "properties/cloudcore/single_serving.hpp"
#include "scenarios/build.hpp"
#include "scenarios/control_plane/spec.hpp"
#include "scenarios/loader.hpp"
#include "sim/assert.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {
namespace {

namespace cc = cloudcore::trace_kind;

constexpr std::string_view kLease = "kubeedge/cloudcorelease";  // makeLeaderElectionConfig

std::string edge_name(int index) { return "e" + std::to_string(index + 1); }

// Reads the trace for what the study measures besides the two properties: who leads at the
// fault, the first successor (another identity: a restarted process has a new UUID), when
// every edge is connected to that successor, and the delivery's resends, duplicates and
// drops after the fault.
class FailoverWatch final : public TraceObserver {
 public:
  explicit FailoverWatch(std::size_t edges) : edges_(edges) {}

  bool wants(std::string_view kind) const override {
    return kind == cluster::trace_kind::kActingStart || kind == cluster::trace_kind::kActingEnd ||
           kind == trace_kind::kCrash || kind == trace_kind::kExit || kind == cc::kEdgeConnected ||
           kind == cc::kEdgeDisconnected || kind == cc::kMessageResend ||
           kind == cc::kMessageDropped || kind == cc::kEdgeStoreApply;
  }

  void on_event(const TraceEvent& e) override {
    if (!wants(e.kind)) return;
    for (const ActingChange& change : leaders_.observe(e)) {
      if (change.lease == kLease && armed_) on_acting(e.t, change);
    }
    if (e.kind == cc::kEdgeConnected) {
      connections_[std::string(e.node)] = {std::string(e.string_field("cloudcore")), e.t};
      check_served(e.t);
    } else if (e.kind == cc::kEdgeDisconnected) {
      connections_.erase(std::string(e.node));
    } else if (armed_ && e.kind == cc::kMessageResend) {
      ++resent_;
    } else if (armed_ && e.kind == cc::kMessageDropped) {
      ++dropped_;
    } else if (armed_ && e.kind == cc::kEdgeStoreApply && e.string_field("result") == "duplicate") {
      ++duplicated_;
    }
  }

  // The one CloudCore acting as leader, if exactly one acts.
  std::optional<Actor> leader() const {
    const auto it = leaders_.acting().find(std::string(kLease));
    if (it == leaders_.acting().end() || it->second.size() != 1) return std::nullopt;
    return it->second.begin()->second;
  }
  // From now on: count, and wait for a successor to `old_identity`.
  void arm(std::string old_identity) {
    HASIM_ASSERT(!armed_);
    armed_ = true;
    old_identity_ = std::move(old_identity);
  }
  // Active-active: the replica holding the most edge sessions (the first by name on a tie).
  std::optional<std::string> busiest_replica() const {
    std::map<std::string, int> sessions;
    for (const auto& [edge, connection] : connections_) ++sessions[connection.cloudcore];
    std::optional<std::string> best;
    for (const auto& [process, count] : sessions) {
      if (!best || count > sessions.at(*best)) best = process;
    }
    return best;
  }
  // Active-active: from now on count, and wait until no edge is left on a session with
  // `replica` opened before `since` (at most now).
  void arm_replica(std::string replica, TrueTime since, TrueTime now) {
    HASIM_ASSERT(!armed_ && since <= now);
    armed_ = true;
    replica_ = Successor{std::move(replica), since};
    check_served(now);
  }
  bool armed() const { return armed_; }
  std::optional<TrueTime> served() const { return served_; }
  std::int64_t resent() const { return resent_; }
  std::int64_t duplicated() const { return duplicated_; }
  std::int64_t dropped() const { return dropped_; }

 private:
  struct Connection {
    std::string cloudcore;  // "node/cloudcore"
    TrueTime since{};
  };
  struct Successor {
    std::string process;
    TrueTime since{};
  };

  void on_acting(TrueTime t, const ActingChange& change) {
    if (served_) return;
    if (change.started && change.actor.identity != old_identity_ && !successor_) {
      successor_ = Successor{change.actor.process, t};
      check_served(t);
    } else if (!change.started && successor_ && change.actor.process == successor_->process) {
      successor_.reset();  // it stopped before every edge reached it: wait for the next one
    }
  }
  // Served: every edge holds a connection to the successor made after it started leading
  // (an edge of a powered-off old leader still believes in its dead connection).
  void check_served(TrueTime t) {
    if (!armed_ || served_ || connections_.size() != edges_) return;
    if (replica_) {
      for (const auto& [edge, connection] : connections_) {
        if (connection.cloudcore == replica_->process && connection.since < replica_->since) {
          return;
        }
      }
      served_ = t;
      return;
    }
    if (!successor_) return;
    for (const auto& [edge, connection] : connections_) {
      if (connection.cloudcore != successor_->process || connection.since < successor_->since) {
        return;
      }
    }
    served_ = t;
  }

  std::size_t edges_;
  ActingLeaders leaders_;
  bool armed_ = false;
  std::string old_identity_;
  std::optional<Successor> successor_;
  std::optional<Successor> replica_;  // active-active: the faulted replica, since the fault
  std::optional<TrueTime> served_;
  std::map<std::string, Connection> connections_;  // by edge node
  std::int64_t resent_ = 0, duplicated_ = 0, dropped_ = 0;
};

// The cell's scenario as a scenario file would say it.
nlohmann::ordered_json scenario_json(const CloudCoreCell& cell, const CloudCoreSettings& settings) {
  using Json = nlohmann::ordered_json;
  Json nodes = Json::array({{{"name", "cp-1"}, {"zone", "a"}},
                            {{"name", "cc-1"}, {"zone", "a"}},
                            {{"name", "cc-2"}, {"zone", "b"}}});
  Json edges = Json::array();
  for (int i = 0; i < settings.edges; ++i) {
    nodes.push_back({{"name", edge_name(i)}, {"zone", "edge"}});
    edges.push_back(edge_name(i));
  }
  return {{"name", "cloudcore-study"},
          {"seed", 1},
          {"duration", format_duration(kWarmUp + kFaultWindow + settings.horizon)},
          {"nodes", nodes},
          {"network", {{"latency", {{"dist", "lognormal"}, {"median", "1ms"}, {"p99", "10ms"}}}}},
          {"controlPlane", {{"nodes", {"cp-1"}}, {"version", "1.31.0"}}},
          {"cloudcore",
           {{"mode", std::string(cloudcore::to_string(cell.mode))},
            {"nodes", {"cc-1", "cc-2"}},
            {"edgeNodes", edges},
            {"loadBalancer", std::string(to_string(cell.balancer))},
            {"workload",
             {{"podsPerNode", 2},
              {"configMapsPerPod", 1},
              {"secretsPerPod", 1},
              {"updateEvery", format_duration(kUpdateEvery)},
              {"updateUntil", format_duration(kWarmUp)}}}}}};
}

// The base scenario with the cloud's changes placed after this trial's fault: updates until
// kChangesAfterFault, a pod deleted (SyncController's delete path), a pod created (the
// informers' list) and a ConfigMap updated while the edges may be unserved.
Scenario with_changes_after(const Scenario& base, TrueTime fault) {
  Scenario scenario = base;
  CloudCoreSpec* spec = scenario.section<CloudCoreSpec>();
  HASIM_ASSERT(spec != nullptr && !spec->edge_nodes.empty());
  const Duration at{fault.ns};
  spec->workload.update_until = at + kChangesAfterFault;
  const std::string& first = spec->edge_nodes.front();
  const std::string& last = spec->edge_nodes.back();
  EdgeObjectChange remove{
      at + seconds(3), EdgeChangeOp::delete_, api::Kind::pod, first + "-pod-1", "", {}, {}};
  EdgeObjectChange create{at + seconds(6),
                          EdgeChangeOp::create,
                          api::Kind::pod,
                          last + "-extra",
                          last,
                          {last + "-pod-0-cm-0"},
                          {}};
  EdgeObjectChange update{at + seconds(9),
                          EdgeChangeOp::update,
                          api::Kind::config_map,
                          last + "-pod-0-cm-0",
                          "",
                          {},
                          {}};
  spec->object_changes = {remove, create, update};
  return scenario;
}

void apply_fault(World& world, CloudCoreFault fault, ProcessId leader,
                 const CloudCoreSettings& settings) {
  const NodeId node = world.process_node(leader);
  World* w = &world;
  switch (fault) {
    case CloudCoreFault::crash:
      world.delete_pod(leader);  // stopped without telling the kubelet: it stays down
      return;
    case CloudCoreFault::crash_restart:
      world.crash(leader);  // the kubelet restarts a first crash at once
      return;
    case CloudCoreFault::apiserver_partition: {
      const NodeId cp = *world.find_node("cp-1");
      const std::uint64_t cut = world.partition({{node, cp}, {cp, node}});
      world.at(world.now() + settings.partition, [w, cut] { w->heal(cut); });
      return;
    }
    case CloudCoreFault::node_down:
      world.node_down(node);
      world.at(world.now() + settings.node_down, [w, node] { w->node_up(node); });
      return;
  }
  HASIM_ASSERT(false);
}

// Splits single-serving's windows at the fault: those opened after it are the fault's doing
// (a window still open from the warm-up is counted apart, not as the fault's).
void dual_serving_windows(const SingleServing& single, TrueTime fault, CloudCoreTrial& trial) {
  std::vector<ViolationWindow> after;
  for (const ViolationWindow& w : single.windows()) {
    if (w.start < fault) {
      trial.dual_serving_before = true;
    } else {
      after.push_back(w);
    }
  }
  trial.dual_serving = !after.empty();
  trial.dual_serving_time = summarize(after).total;
}

}  // namespace

std::string_view to_string(CloudCoreFault fault) {
  switch (fault) {
    case CloudCoreFault::crash:
      return "crash";
    case CloudCoreFault::crash_restart:
      return "crash-restart";
    case CloudCoreFault::apiserver_partition:
      return "apiserver-partition";
    case CloudCoreFault::node_down:
      return "node-down";
  }
  return "?";
}

std::string_view to_string(CloudLoadBalancer balancer) {
  return balancer == CloudLoadBalancer::service ? "service" : "keepalived";
}

std::string CloudCoreCell::name() const {
  return std::string(to_string(fault)) + "/" + std::string(to_string(balancer)) + "/" +
         std::string(cloudcore::to_string(mode));
}

Scenario cloudcore_study_scenario(const CloudCoreCell& cell, const CloudCoreSettings& settings) {
  HASIM_ASSERT(settings.edges >= 1);
  const std::string text = scenario_json(cell, settings).dump();
  LoadResult loaded = load_scenario_text(text, "cloudcore study");
  if (!loaded.errors.empty()) {
    // A bug in scenario_json, never the user's input: say what the loader found.
    std::fputs(format_errors(loaded.errors, "cloudcore study").c_str(), stderr);
  }
  HASIM_ASSERT(loaded.errors.empty() && loaded.scenario.has_value());
  return std::move(*loaded.scenario);
}

CloudCoreTrial run_cloudcore_trial(const Scenario& base, const CloudCoreCell& cell,
                                   const CloudCoreSettings& settings, std::uint64_t seed,
                                   TraceObserver* watcher) {
  Rng rng = Rng(seed).fork("cloudcore-fault-time");
  const TrueTime at =
      TrueTime{kWarmUp.ns} + Duration{static_cast<std::int64_t>(rng.below(kFaultWindow.ns))};
  const Scenario scenario = with_changes_after(base, at);
  auto world = build_world(scenario, seed);
  FailoverWatch watch(static_cast<std::size_t>(settings.edges));
  SingleServing single("single-serving");
  EdgeConverges converges("edge-converges:" + format_duration(settings.horizon), settings.horizon);
  for (TraceObserver* o : std::initializer_list<TraceObserver*>{&watch, &converges}) {
    world->trace().add_observer(o);
  }
  // Dual serving is hot standby's question: every active-active replica serves.
  if (cloudcore::is_hot_standby(cell.mode)) world->trace().add_observer(&single);
  if (watcher != nullptr) world->trace().add_observer(watcher);
  // Scheduled rather than applied after run_until(at): the world's clock stops at its last
  // event before `at`, and the fault must land at `at` itself.
  World* w = world.get();
  world->at(at, [w, &watch, &cell, &settings] {
    if (!cloudcore::is_hot_standby(cell.mode)) {
      const auto replica = watch.busiest_replica();
      HASIM_ASSERT(replica.has_value());  // every edge attached after the warm-up
      // Cut off from the apiserver, a replica keeps its sessions and serves them (stale):
      // they count as served; convergence shows the staleness.
      const bool keeps_sessions = cell.fault == CloudCoreFault::apiserver_partition;
      watch.arm_replica(*replica, keeps_sessions ? TrueTime{} : w->now(), w->now());
      apply_fault(*w, cell.fault, *w->find_process(*replica), settings);
      return;
    }
    const auto leader = watch.leader();
    HASIM_ASSERT(leader.has_value());  // one leader after a quiet warm-up
    watch.arm(leader->identity);
    apply_fault(*w, cell.fault, *w->find_process(leader->process), settings);
  });
  world->run_until(at + settings.horizon);
  HASIM_ASSERT(watch.armed());
  single.finish(world->now());
  converges.finish(world->now());
  CloudCoreTrial trial;
  if (const auto served = watch.served()) {
    trial.served = true;
    trial.served_after = *served - at;
  }
  trial.converged = converges.differing() == 0;
  if (trial.converged) {
    trial.converged_after = std::max(converges.agreeing_since(), at) - at;
  }
  trial.resent = watch.resent();
  trial.duplicated = watch.duplicated();
  trial.dropped = watch.dropped();
  if (cloudcore::is_hot_standby(cell.mode)) dual_serving_windows(single, at, trial);
  HASIM_ASSERT(!trial.served ||
               (trial.served_after >= Duration{} && trial.served_after <= settings.horizon));
  return trial;
}

}  // namespace hasim
