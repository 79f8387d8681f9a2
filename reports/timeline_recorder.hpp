#pragma once
// Records a run's trace as timeline lanes for reports (reports/svg's svg_timeline), drawn
// two ways from the same observation of the trace:
//   process_lanes  one lane per process (hasim check's timeline.html): its versions, when
//                  it acted as leader of which lease, pauses, downtime, crashes, exits and
//                  lost leases;
//   upgrade_lanes  one lane per node's kube-apiserver version and one per lease's leader,
//                  coloured old/new version, with upgrade steps and skew violations (the
//                  upgrade-skew report's sample upgrade).
// and the events in a window of true time, as text (the trace around a violation).
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/cluster/acting_leaders.hpp"
#include "properties/no_skew.hpp"
#include "reports/svg.hpp"
#include "sim/trace.hpp"

namespace hasim {

class TimelineRecorder final : public TraceObserver {
 public:
  // Keeps the events in [window_from, window_to] (at most kWindowEvents); `newer_version`
  // colours upgrade_lanes (that version in the second palette colour, others in the first).
  TimelineRecorder(TrueTime window_from, TrueTime window_to, std::string newer_version = "");

  void on_event(const TraceEvent& event) override;

  // Lanes by process name, closing what is still open at `end`.
  std::vector<TimelineLane> process_lanes(TrueTime end);
  // Lanes by name ("cp-1 kube-apiserver", "kube-controller-manager leader"), closing what
  // is still open at `end` and marking each of `skew`'s violations. Call once.
  std::vector<TimelineLane> upgrade_lanes(TrueTime end, const NoSkew& skew);
  const std::vector<std::string>& window() const { return window_; }

  static constexpr std::size_t kWindowEvents = 400;

 private:
  struct ProcessLane {
    TimelineLane lane;
    std::vector<std::string> versions;
    std::map<std::string, TrueTime> leading;
    std::optional<TrueTime> down_since;
    std::optional<TrueTime> paused_since;
  };
  void observe_process(const TraceEvent& event, const std::string& process);
  void observe_upgrade(const TraceEvent& event, const std::string& process);
  void observe_leaders(const TraceEvent& event);
  std::string lease_colour(const std::string& lease);
  std::string version_colour(const std::string& version) const;
  TimelineLane& upgrade_lane(const std::string& name);
  void close_apiserver(const std::string& process, TrueTime at);

  TrueTime window_from_;
  TrueTime window_to_;
  std::string newer_;
  ActingLeaders leaders_;
  std::vector<std::string> window_;
  // process_lanes
  std::map<std::string, ProcessLane> processes_;
  std::map<std::string, std::size_t> lease_colours_;  // palette index by first use
  // upgrade_lanes
  std::map<std::string, std::pair<TrueTime, std::string>> serving_;  // apiserver: since, version
  std::map<std::string, std::pair<TrueTime, Actor>> leading_;        // by lease
  std::map<std::string, TimelineLane> upgrade_lanes_;                // ordered by name
};

}  // namespace hasim
