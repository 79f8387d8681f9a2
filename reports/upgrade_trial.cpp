#include "reports/upgrade_trial.hpp"

#include "models/apiserver/trace_kinds.hpp"

#include <algorithm>

#include "models/cluster/upgrade_methods.hpp"
#include "models/cluster/upgrade_plan.hpp"
#include "models/cluster/acting_leaders.hpp"
#include "models/cluster/trace_kinds.hpp"
#include "properties/no_skew.hpp"
#include "reports/timeline_recorder.hpp"
#include "scenarios/build.hpp"
#include "scenarios/control_plane/control_plane.hpp"
#include "scenarios/etcd/spec.hpp"
#include "scenarios/upgrade_orchestrator/upgrade_orchestrator.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

constexpr Duration kUpgradeAt = seconds(30);  // leaders are settled well before this
const std::string kLeases[] = {"kube-system/kube-controller-manager", "kube-system/kube-scheduler"};

// The largest value a distribution yields in practice (its bound where it has one).
Duration upper_bound(const DurationDistribution& d) {
  switch (d.kind) {
    case DurationDistribution::Kind::constant:
      return d.a;
    case DurationDistribution::Kind::uniform:
      return d.b;
    default:
      return Duration{std::max(d.a.ns, d.b.ns) * 8};
  }
}

// The latest the upgrade's last component can start, from the distributions' bounds. For
// kubeadm and replace, which wait for the cluster, a bound for an upgrade without faults:
// per node, three static pods each noticed, stopped within the grace period and polled for
// (kubeadm), or a provisioning, a preflight requeue and a shutdown (replace).
TrueTime latest_last_start(const Scenario& scenario) {
  const UpgradeSpec& spec = *scenario.section<UpgradeSpec>();
  const int passes = spec.emulation ? 2 : 1;
  const auto nodes = static_cast<std::int64_t>(scenario.section<ControlPlaneSpec>()->nodes.size());
  Duration per_node =
      upper_bound(spec.downtime) + upper_bound(spec.startJitter) + upper_bound(spec.gap);
  if (spec.method == UpgradeSpec::Method::kubeadm) {
    // A stacked member is a fourth static pod, and kubeadm then waits for the cluster.
    const bool stacked = upgrades_stacked_etcd(scenario);
    per_node = upper_bound(spec.downtime) + upper_bound(spec.gap) +
               (upper_bound(spec.startJitter) + spec.grace + seconds(2)) * (stacked ? 4 : 3) +
               (stacked ? seconds(10) : Duration{});
  } else if (spec.method == UpgradeSpec::Method::replace) {
    per_node = upper_bound(spec.provision) + cluster::kPreflightFailedRequeueAfter + spec.grace +
               upper_bound(spec.gap);
  }
  return TrueTime{spec.at.ns} + spec.canary + per_node * (nodes * passes);
}

// Where kubeadm and replace end: upgrade-done (or upgrade-failed), seen in the trace.
class UpgradeEnd final : public TraceObserver {
 public:
  bool wants(std::string_view kind) const override {
    return kind == cluster::trace_kind::kUpgradeDone || kind == cluster::trace_kind::kUpgradeFailed;
  }
  // Observers see every event that is built (TraceWriter::record), not only those they want.
  void on_event(const TraceEvent& event) override {
    if (!end && wants(event.kind)) end = event.t;
  }
  std::optional<TrueTime> end;
};

// The upgrade's actions, drawn exactly as schedule_upgrade draws them for this world.
std::vector<cluster::UpgradeAction> plan_of(const Scenario& scenario, const World& world) {
  const ControlPlaneSpec& cp = *scenario.section<ControlPlaneSpec>();
  Rng rng = world.fork_rng("scenario/upgrade");
  const bool rollback = is_rollback(scenario);
  const std::string emulation = cp.emulationVersion.empty() ? cp.version : cp.emulationVersion;
  return cluster::plan_upgrade(*scenario.section<UpgradeSpec>(), cp.nodes, cp.version, emulation,
                               rollback, rng, upgrades_stacked_etcd(scenario));
}

// Counts what the study reports, from the trace.
class UpgradeCounters final : public TraceObserver {
 public:
  // Counts during [from, to]: the upgrade, from its first stop to its last start.
  UpgradeCounters(TrueTime from, TrueTime to) : from_(from), to_(to) {}
  // Writes, leaders and the upgrade's end only: what on_event reads.
  bool wants(std::string_view kind) const override {
    return kind == api::trace_kind::kWrite || kind == cluster::trace_kind::kUpgradeDone ||
           kind == cluster::trace_kind::kUpgradeFailed || ActingLeaders::wants(kind);
  }
  void on_event(const TraceEvent& event) override {
    // kubeadm and replace: the window closes where the upgrade ends.
    if (event.kind == cluster::trace_kind::kUpgradeDone ||
        event.kind == cluster::trace_kind::kUpgradeFailed) {
      to_ = std::min(to_, event.t);
    }
    for (const ActingChange& change : leaders_.observe(event)) {
      if (change.started && event.t >= from_ && event.t <= to_) ++leader_changes;
    }
    if (event.kind == api::trace_kind::kWrite && event.t >= from_ && event.t <= to_) {
      const std::string_view object = event.string_field("object");
      if (object.starts_with("Lease ")) ++lease_writes;
      if (object.starts_with("LeaseCandidate ")) ++candidate_writes;
    }
  }
  bool leaders_present() const {
    for (const std::string& lease : kLeases) {
      const auto it = leaders_.acting().find(lease);
      if (it == leaders_.acting().end() || it->second.empty()) return false;
    }
    return true;
  }
  std::uint64_t leader_changes = 0;
  std::uint64_t lease_writes = 0;
  std::uint64_t candidate_writes = 0;

 private:
  TrueTime from_;
  TrueTime to_;
  ActingLeaders leaders_;
};

struct Run {
  std::unique_ptr<World> world;
  TrueTime start{};
  TrueTime last_start{};
  TrueTime end{};
  // kubeadm and replace: the end is found while running (run_reactive).
  std::unique_ptr<UpgradeEnd> reactive;
};

Run prepare(const Scenario& scenario, std::uint64_t seed) {
  HASIM_ASSERT((scenario.section<UpgradeSpec>() != nullptr));
  Run run;
  run.world = build_world(scenario, seed);
  run.world->trace().disable_hash();  // only the observers read this trace
  const UpgradeSpec& spec = *scenario.section<UpgradeSpec>();
  if (spec.method != UpgradeSpec::Method::node) {
    run.start = TrueTime{spec.at.ns};
    run.reactive = std::make_unique<UpgradeEnd>();
    run.world->trace().add_observer(run.reactive.get());
    return run;
  }
  const auto plan = plan_of(scenario, *run.world);
  HASIM_ASSERT(!plan.empty());
  run.start = plan.front().at;
  run.last_start = plan.back().at;
  // Once the last component has started every version is the same and no violation is
  // possible; the run goes on for the scenario's settle time (its duration past the latest
  // possible last start) so leadership settles (leaders_at_end).
  const Duration settle = TrueTime{scenario.duration.ns} - latest_last_start(scenario);
  run.end = run.last_start + settle;
  return run;
}

// Runs to the upgrade's end and the settle time after it. The node method's end is its plan's
// last start; kubeadm and replace run in steps until upgrade-done (or the scenario's duration,
// which an upgrade without faults never reaches).
void run_to_end(Run& run, const Scenario& scenario) {
  if (run.reactive == nullptr) return (void)run.world->run_until(run.end);
  const TrueTime cap{scenario.duration.ns};
  const Duration settle = cap - latest_last_start(scenario);
  HASIM_ASSERT(settle.ns >= 0);
  while (!run.reactive->end && run.world->now() < cap) {
    run.world->run_until(std::min(cap, run.world->now() + seconds(10)));
  }
  run.last_start = run.reactive->end.value_or(cap);
  run.end = std::max(run.world->now(), run.last_start + settle);
  run.world->run_until(run.end);
}

// A stacked etcd as a scenario file gets it (scenarios/control_plane/etcd_backing.cpp): a
// member on every control-plane node with etcd's default timings, each kube-apiserver asking
// its own node's member.
void add_stacked_etcd(Scenario& scenario, ControlPlaneSpec& cp) {
  HASIM_ASSERT(!cp.nodes.empty());
  EtcdSpec etcd;
  etcd.members = cp.nodes;
  scenario.sections.set(etcd);
  cp.etcd.model = EtcdModel::raft;
  cp.etcd.topology = EtcdTopology::stacked;
}

}  // namespace

std::string_view to_string(UpgradeDirection direction) {
  return direction == UpgradeDirection::upgrade ? "upgrade" : "rollback";
}

std::string_view to_string(UpgradeStore store) {
  return store == UpgradeStore::ideal ? "ideal" : "stacked";
}

std::string describe(const UpgradeCell& cell) {
  return std::string(to_string(cell.mode)) + "/" + std::string(to_string(cell.direction)) + "/" +
         std::to_string(cell.nodes) +
         (cell.method == UpgradeSpec::Method::node ? ""
                                                   : "/" + std::string(to_string(cell.method))) +
         (cell.store == UpgradeStore::ideal ? "" : "/stacked-etcd");
}

std::string mode_label(const UpgradeCell& cell) {
  const bool node = cell.method == UpgradeSpec::Method::node;
  const bool ideal = cell.store == UpgradeStore::ideal;
  if (node && ideal) return std::string(to_string(cell.mode));
  std::string extra = node ? "" : std::string(to_string(cell.method));
  if (!ideal) extra += std::string(extra.empty() ? "" : ", ") + "stacked etcd";
  return std::string(to_string(cell.mode)) + " (" + extra + ")";
}

Scenario upgrade_scenario(const UpgradeSettings& settings, const UpgradeCell& cell) {
  HASIM_ASSERT(cell.nodes >= 1);
  const bool upgrade = cell.direction == UpgradeDirection::upgrade;
  Scenario scenario;
  scenario.name = "upgrade-skew " + describe(cell);
  ControlPlaneSpec cp;
  for (int i = 1; i <= cell.nodes; ++i) {
    const std::string name = "cp-" + std::to_string(i);
    scenario.nodes.push_back(
        NodeSpec{name, std::string(1, static_cast<char>('a' + (i - 1) % 3)), {}, {}});
    cp.nodes.push_back(name);
  }
  const bool stacked = cell.store == UpgradeStore::stacked;
  // Over stacked members there is no ideal store, and no node for it.
  if (!stacked) scenario.nodes.push_back(store_node_spec());
  scenario.network.latency = DurationDistribution::lognormal(milliseconds(1), milliseconds(10));
  cp.version = upgrade ? settings.old_version : settings.new_version;
  cp.election = cell.mode;
  for (ElectionSpec* spec : {&cp.controllerManager, &cp.scheduler}) {
    spec->leaseDuration = settings.leaseDuration;
    spec->renewDeadline = settings.renewDeadline;
    spec->retryPeriod = settings.retryPeriod;
    spec->workInterval = Duration{};  // the study needs who leads, not what it writes
  }
  if (stacked) add_stacked_etcd(scenario, cp);
  scenario.sections.set(cp);
  UpgradeSpec spec = settings.upgrade;
  spec.at = kUpgradeAt;
  spec.to = upgrade ? settings.new_version : settings.old_version;
  spec.method = cell.method;
  if (cell.method == UpgradeSpec::Method::replace) {
    HASIM_ASSERT(!stacked);  // validate_upgrade_options refuses it, as the loader does
    // A new machine's provisioning takes the study's downtime; its nodes are named and
    // zoned as the scenario loader does (upgrade_orchestrator/loader.cpp).
    spec.provision = spec.downtime;
    spec.replacements = cluster::replacement_nodes(cp.nodes, {std::string(kStoreNode)});
    for (std::size_t i = 0; i < cp.nodes.size(); ++i) {
      NodeSpec node{spec.replacements[i], scenario.nodes[i].zone, {}, {}};
      node.up_at_start = false;
      scenario.nodes.push_back(node);
    }
  }
  scenario.sections.set(spec);
  scenario.duration = Duration{latest_last_start(scenario).ns} + settings.settle;
  scenario.properties = {"no-skew"};
  return scenario;
}

UpgradeTrial run_upgrade_trial(const Scenario& scenario, std::uint64_t seed) {
  Run run = prepare(scenario, seed);
  NoSkew skew("no-skew", std::nullopt);
  UpgradeCounters counters(run.start, run.reactive ? TrueTime::max() : run.last_start);
  run.world->trace().add_observer(&skew);
  run.world->trace().add_observer(&counters);
  run_to_end(run, scenario);
  skew.finish(run.end);
  UpgradeTrial trial;
  trial.violated = skew.violation_count() > 0;
  for (const NoSkew::SkewInterval& interval : skew.intervals()) {
    if (interval.component == "kube-controller-manager") trial.kcm_violated = true;
  }
  trial.violation_time = skew.total_violation_time();
  if (const auto first = skew.first_violation()) trial.first_violation = *first - run.start;
  trial.leader_changes = counters.leader_changes;
  trial.lease_writes = counters.lease_writes;
  trial.candidate_writes = counters.candidate_writes;
  trial.upgrade_duration = run.last_start - run.start;
  trial.leaders_at_end = counters.leaders_present();
  return trial;
}

UpgradeTimeline upgrade_timeline(const Scenario& scenario, std::uint64_t seed) {
  Run run = prepare(scenario, seed);
  const std::string newer = newer_version(scenario);
  NoSkew skew("no-skew", std::nullopt);
  // No window of events: the report draws lanes only.
  TimelineRecorder recorder(TrueTime{1}, TrueTime{0}, newer);
  run.world->trace().add_observer(&skew);
  run.world->trace().add_observer(&recorder);
  run_to_end(run, scenario);
  skew.finish(run.end);
  UpgradeTimeline timeline;
  timeline.lanes = recorder.upgrade_lanes(run.end, skew);
  timeline.start = run.start - seconds(10);
  timeline.end = run.end;
  return timeline;
}

}  // namespace hasim
