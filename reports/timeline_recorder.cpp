#include "reports/timeline_recorder.hpp"

#include "models/apiserver/trace_kinds.hpp"
#include "models/cluster/trace_kinds.hpp"
#include "models/election/trace_kinds.hpp"
#include "sim/trace_kinds.hpp"

#include "properties/property.hpp"
#include "sim/text.hpp"

namespace hasim {
namespace {

std::string short_lease(const std::string& lease) { return lease.substr(lease.find('/') + 1); }
std::string node_of(const std::string& process) { return process.substr(0, process.find('/')); }
std::string version_of(const Actor& actor) {
  return actor.emulation.empty() ? actor.version : actor.emulation;
}

// Markers at one instant share a label ("lease lost, exit"), so labels never overprint.
void mark(TimelineLane& lane, TrueTime at, const std::string& label, const std::string& colour) {
  if (!lane.markers.empty() && lane.markers.back().at == at) {
    lane.markers.back().label += ", " + label;
    return;
  }
  lane.markers.push_back({at, label, colour});
}

}  // namespace

TimelineRecorder::TimelineRecorder(TrueTime window_from, TrueTime window_to,
                                   std::string newer_version)
    : window_from_(window_from), window_to_(window_to), newer_(std::move(newer_version)) {}

void TimelineRecorder::on_event(const TraceEvent& event) {
  const std::string process = process_of(event);
  if (event.t >= window_from_ && event.t <= window_to_ && window_.size() < kWindowEvents) {
    window_.push_back(describe_event(event));
  }
  if (!event.proc.empty()) observe_process(event, process);
  observe_upgrade(event, process);
  observe_leaders(event);
}

void TimelineRecorder::observe_process(const TraceEvent& event, const std::string& process) {
  ProcessLane& lane = processes_[process];
  if (event.kind == api::trace_kind::kComponentStart) {
    const std::string version(event.string_field("version"));
    if (lane.versions.empty() || lane.versions.back() != version) lane.versions.push_back(version);
  }
  if (event.kind == trace_kind::kStart && lane.down_since) {
    lane.lane.segments.push_back({*lane.down_since, event.t, "down", "#999999"});
    lane.down_since.reset();
  }
  if ((event.kind == trace_kind::kCrash || event.kind == trace_kind::kExit) && !lane.down_since) {
    lane.down_since = event.t;
    mark(lane.lane, event.t, std::string(event.kind), "#000000");
  }
  if (event.kind == trace_kind::kPause) lane.paused_since = event.t;
  if (event.kind == trace_kind::kResume && lane.paused_since) {
    lane.lane.segments.push_back({*lane.paused_since, event.t, "paused", "#e69f00"});
    lane.paused_since.reset();
  }
  if (event.kind == election::trace_kind::kLeaseLost)
    mark(lane.lane, event.t, "lease lost", "#d55e00");
}

void TimelineRecorder::observe_upgrade(const TraceEvent& event, const std::string& process) {
  if (event.kind == api::trace_kind::kComponentStart &&
      event.string_field("component") == "kube-apiserver") {
    serving_[process] = {event.t, std::string(event.string_field("emulation"))};
  } else if ((event.kind == trace_kind::kCrash || event.kind == trace_kind::kExit) &&
             serving_.contains(process)) {
    close_apiserver(process, event.t);
  }
  if (event.kind == cluster::trace_kind::kUpgradeStop ||
      event.kind == cluster::trace_kind::kUpgradeNodeUp) {
    const std::string label = event.kind == cluster::trace_kind::kUpgradeStop
                                  ? "stop"
                                  : "up at " + std::string(event.string_field("emulation"));
    upgrade_lane(std::string(event.node) + " kube-apiserver")
        .markers.push_back({event.t, label, ""});
  }
}

// One observation of who acts as leader feeds both views (ActingLeaders keeps state, so it
// must see each event once).
void TimelineRecorder::observe_leaders(const TraceEvent& event) {
  for (const ActingChange& change : leaders_.observe(event)) {
    ProcessLane& lane = processes_[change.actor.process];
    const std::string name = short_lease(change.lease) + " leader";
    if (change.started) {
      lane.leading[change.lease] = event.t;
      leading_[change.lease] = {event.t, change.actor};
      continue;
    }
    if (lane.leading.contains(change.lease)) {
      lane.lane.segments.push_back({lane.leading.at(change.lease), event.t,
                                    "leads " + short_lease(change.lease),
                                    lease_colour(change.lease)});
      lane.leading.erase(change.lease);
    }
    if (leading_.contains(change.lease)) {
      const auto& [since, actor] = leading_.at(change.lease);
      const std::string version = version_of(actor);
      upgrade_lane(name).segments.push_back(
          {since, event.t, node_of(actor.process) + " v" + version, version_colour(version)});
      leading_.erase(change.lease);
    }
  }
}

std::vector<TimelineLane> TimelineRecorder::process_lanes(TrueTime end) {
  std::vector<TimelineLane> out;
  for (auto& [name, lane] : processes_) {
    for (const auto& [lease, since] : lane.leading) {
      lane.lane.segments.push_back(
          {since, end, "leads " + short_lease(lease), lease_colour(lease)});
    }
    if (lane.down_since) lane.lane.segments.push_back({*lane.down_since, end, "down", "#999999"});
    if (lane.paused_since) {
      lane.lane.segments.push_back({*lane.paused_since, end, "paused", "#e69f00"});
    }
    lane.lane.label = name + (lane.versions.empty() ? "" : " v" + join_words(lane.versions, "→"));
    out.push_back(lane.lane);
  }
  return out;
}

std::vector<TimelineLane> TimelineRecorder::upgrade_lanes(TrueTime end, const NoSkew& skew) {
  std::vector<std::string> processes;
  for (const auto& [process, open] : serving_) processes.push_back(process);
  for (const std::string& process : processes) close_apiserver(process, end);
  for (const auto& [lease, leading] : leading_) {
    const auto& [since, actor] = leading;
    const std::string version = version_of(actor);
    upgrade_lane(short_lease(lease) + " leader")
        .segments.push_back(
            {since, end, node_of(actor.process) + " v" + version, version_colour(version)});
  }
  leading_.clear();
  for (const NoSkew::SkewInterval& interval : skew.intervals()) {
    upgrade_lane(short_lease(interval.lease) + " leader")
        .markers.push_back({interval.start, "skew violation", "#d55e00"});
  }
  std::vector<TimelineLane> out;
  for (const auto& [name, lane] : upgrade_lanes_) out.push_back(lane);
  return out;
}

std::string TimelineRecorder::lease_colour(const std::string& lease) {
  const auto [it, fresh] = lease_colours_.emplace(lease, lease_colours_.size());
  return palette_colour(it->second);
}

std::string TimelineRecorder::version_colour(const std::string& version) const {
  return version == newer_ ? palette_colour(1) : palette_colour(0);
}

TimelineLane& TimelineRecorder::upgrade_lane(const std::string& name) {
  TimelineLane& lane = upgrade_lanes_[name];
  lane.label = name;
  return lane;
}

void TimelineRecorder::close_apiserver(const std::string& process, TrueTime at) {
  const auto& [since, version] = serving_.at(process);
  upgrade_lane(node_of(process) + " kube-apiserver")
      .segments.push_back({since, at, "v" + version, version_colour(version)});
  serving_.erase(process);
}

}  // namespace hasim
