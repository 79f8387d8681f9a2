#include "reports/upgrade_trial.hpp"

#include <algorithm>

#include "models/cluster/upgrade_plan.hpp"
#include "models/cluster/acting_leaders.hpp"
#include "properties/no_skew.hpp"
#include "scenarios/build.hpp"
#include "scenarios/control_plane/control_plane.hpp"
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

// The latest the upgrade's last component can start, from the distributions' bounds.
TrueTime latest_last_start(const Scenario& scenario) {
  const UpgradeSpec& spec = *scenario.section<UpgradeSpec>();
  const int passes = spec.emulation ? 2 : 1;
  const auto nodes = static_cast<std::int64_t>(scenario.section<ControlPlaneSpec>()->nodes.size());
  const Duration per_node =
      upper_bound(spec.downtime) + upper_bound(spec.startJitter) + upper_bound(spec.gap);
  return TrueTime{spec.at.ns} + spec.canary + per_node * (nodes * passes);
}

// The upgrade's actions, drawn exactly as schedule_upgrade draws them for this world.
std::vector<cluster::UpgradeAction> plan_of(const Scenario& scenario, const World& world) {
  const ControlPlaneSpec& cp = *scenario.section<ControlPlaneSpec>();
  Rng rng = world.fork_rng("scenario/upgrade");
  const bool rollback = is_rollback(scenario);
  const std::string emulation = cp.emulationVersion.empty() ? cp.version : cp.emulationVersion;
  return cluster::plan_upgrade(*scenario.section<UpgradeSpec>(), cp.nodes, cp.version, emulation,
                               rollback, rng);
}

// Counts what the study reports, from the trace.
class UpgradeCounters final : public TraceObserver {
 public:
  // Counts during [from, to]: the upgrade, from its first stop to its last start.
  UpgradeCounters(TrueTime from, TrueTime to) : from_(from), to_(to) {}
  void on_event(const TraceEvent& event) override {
    for (const ActingChange& change : leaders_.observe(event)) {
      if (change.started && event.t >= from_ && event.t <= to_) ++leader_changes;
    }
    if (event.kind == "write" && event.t >= from_ && event.t <= to_) {
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

// Collects the swimlanes of the sample timeline.
class TimelineRecorder final : public TraceObserver {
 public:
  explicit TimelineRecorder(std::string newer) : newer_(std::move(newer)) {}
  void on_event(const TraceEvent& event) override {
    const std::string process = process_of(event);
    if (event.kind == "component-start" && event.string_field("component") == "kube-apiserver") {
      open_[process] = {event.t, std::string(event.string_field("emulation"))};
    } else if ((event.kind == "crash" || event.kind == "exit") && open_.contains(process)) {
      close(process, event.t);
    }
    if (event.kind == "upgrade-stop" || event.kind == "upgrade-node-up") {
      const std::string label = event.kind == "upgrade-stop"
                                    ? "stop"
                                    : "up at " + std::string(event.string_field("emulation"));
      lane(std::string(event.node) + " kube-apiserver").markers.push_back({event.t, label, ""});
    }
    for (const ActingChange& change : leaders_.observe(event)) {
      const std::string name = change.lease.substr(change.lease.find('/') + 1) + " leader";
      if (change.started) {
        leading_[change.lease] = {event.t, change.actor};
      } else if (leading_.contains(change.lease)) {
        const auto& [since, actor] = leading_.at(change.lease);
        const std::string version = actor.emulation.empty() ? actor.version : actor.emulation;
        lane(name).segments.push_back(
            {since, event.t, actor.process.substr(0, actor.process.find('/')) + " v" + version,
             colour(version)});
        leading_.erase(change.lease);
      }
    }
  }
  void finish(TrueTime end, const NoSkew& skew) {
    std::vector<std::string> processes;
    for (const auto& [process, open] : open_) processes.push_back(process);
    for (const std::string& process : processes) close(process, end);
    for (const auto& [lease, leading] : leading_) {
      const auto& [since, actor] = leading;
      const std::string version = actor.emulation.empty() ? actor.version : actor.emulation;
      lane(lease.substr(lease.find('/') + 1) + " leader")
          .segments.push_back({since, end,
                               actor.process.substr(0, actor.process.find('/')) + " v" + version,
                               colour(version)});
    }
    for (const NoSkew::SkewInterval& interval : skew.intervals()) {
      lane(interval.lease.substr(interval.lease.find('/') + 1) + " leader")
          .markers.push_back({interval.start, "skew violation", "#d55e00"});
    }
  }
  std::vector<TimelineLane> lanes() const {
    std::vector<TimelineLane> out;
    for (const auto& [name, lane] : lanes_) out.push_back(lane);
    return out;
  }

 private:
  TimelineLane& lane(const std::string& name) {
    TimelineLane& lane = lanes_[name];
    lane.label = name;
    return lane;
  }
  std::string colour(const std::string& version) const {
    return version == newer_ ? palette_colour(1) : palette_colour(0);
  }
  void close(const std::string& process, TrueTime at) {
    const auto& [since, version] = open_.at(process);
    lane(process.substr(0, process.find('/')) + " kube-apiserver")
        .segments.push_back({since, at, "v" + version, colour(version)});
    open_.erase(process);
  }

  std::string newer_;
  ActingLeaders leaders_;
  std::map<std::string, std::pair<TrueTime, std::string>> open_;  // serving apiservers
  std::map<std::string, std::pair<TrueTime, Actor>> leading_;     // by lease
  std::map<std::string, TimelineLane> lanes_;                     // ordered by name
};

struct Run {
  std::unique_ptr<World> world;
  TrueTime start{};
  TrueTime last_start{};
  TrueTime end{};
};

Run prepare(const Scenario& scenario, std::uint64_t seed) {
  HASIM_ASSERT((scenario.section<UpgradeSpec>() != nullptr));
  Run run;
  run.world = build_world(scenario, seed);
  run.world->trace().disable_hash();  // only the observers read this trace
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

}  // namespace

std::string_view to_string(UpgradeDirection direction) {
  return direction == UpgradeDirection::upgrade ? "upgrade" : "rollback";
}

std::string describe(const UpgradeCell& cell) {
  return std::string(to_string(cell.mode)) + "/" + std::string(to_string(cell.direction)) + "/" +
         std::to_string(cell.nodes);
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
        NodeSpec{name, std::string(1, static_cast<char>('a' + (i - 1) % 3)), {}});
    cp.nodes.push_back(name);
  }
  scenario.nodes.push_back(NodeSpec{std::string(kStoreNode), "", {}});
  scenario.network.latency = DurationDistribution::lognormal(milliseconds(1), milliseconds(10));
  cp.version = upgrade ? settings.old_version : settings.new_version;
  cp.election = cell.mode;
  for (ElectionSpec* spec : {&cp.controllerManager, &cp.scheduler}) {
    spec->leaseDuration = settings.leaseDuration;
    spec->renewDeadline = settings.renewDeadline;
    spec->retryPeriod = settings.retryPeriod;
    spec->workInterval = Duration{};  // the study needs who leads, not what it writes
  }
  scenario.sections.set(cp);
  UpgradeSpec spec = settings.upgrade;
  spec.at = kUpgradeAt;
  spec.to = upgrade ? settings.new_version : settings.old_version;
  scenario.sections.set(spec);
  scenario.duration = Duration{latest_last_start(scenario).ns} + settings.settle;
  scenario.properties = {"no-skew"};
  return scenario;
}

UpgradeTrial run_upgrade_trial(const Scenario& scenario, std::uint64_t seed) {
  Run run = prepare(scenario, seed);
  NoSkew skew("no-skew");
  UpgradeCounters counters(run.start, run.last_start);
  run.world->trace().add_observer(&skew);
  run.world->trace().add_observer(&counters);
  run.world->run_until(run.end);
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
  NoSkew skew("no-skew");
  TimelineRecorder recorder(newer);
  run.world->trace().add_observer(&skew);
  run.world->trace().add_observer(&recorder);
  run.world->run_until(run.end);
  skew.finish(run.end);
  recorder.finish(run.end, skew);
  UpgradeTimeline timeline;
  timeline.lanes = recorder.lanes();
  timeline.start = run.start - seconds(10);
  timeline.end = run.end;
  return timeline;
}

}  // namespace hasim
