#include "reports/check_output.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "hasim_version.hpp"
#include "models/cluster/acting_leaders.hpp"
#include "reports/html.hpp"
#include "reports/svg.hpp"
#include "reports/timeline_recorder.hpp"
#include "scenarios/fault_json.hpp"
#include "properties/replay.hpp"
#include "properties/check_system.hpp"
#include "sim/assert.hpp"
#include "sim/clock.hpp"
#include "sim/text.hpp"

namespace hasim {
namespace {

std::string per_second(double count, double seconds) {
  std::ostringstream out;
  out.precision(3);
  out << (seconds > 0 ? count / seconds : 0.0);
  return out.str();
}

std::string fixed(double value, int digits) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(digits);
  out << value;
  return out.str();
}

std::string envelope_text(const FaultSpace& space) {
  return space.within_assumptions
             ? "faults drawn within the properties' assumptions (pauses up to " +
                   format_duration(space.max_pause) + ", apiserver latency up to " +
                   format_duration(space.max_api_latency) + ", clock rates " +
                   fixed(static_cast<double>(space.min_rate_ppb) / 1e9, 3) + ".." +
                   fixed(static_cast<double>(space.max_rate_ppb) / 1e9, 3) + ")"
             : "faults drawn beyond the properties' assumptions (--break-assumptions)";
}

const Violation& violation_of(const CheckFailure& failure) {
  for (std::size_t i = 0; i < failure.rerun.property_specs.size(); ++i) {
    if (failure.rerun.property_specs[i] == failure.property && failure.rerun.violations[i]) {
      return *failure.rerun.violations[i];
    }
  }
  HASIM_ASSERT(false);  // run_check re-ran the minimal schedule and saw this violation
  return *failure.rerun.violations.front();
}

std::string schedule_lines(const Schedule& schedule, const std::string& prefix) {
  std::string out;
  int n = 0;
  for (const std::string& line : describe_redraws(schedule)) {
    out += prefix + std::to_string(++n) + ". " + line + "\n";
  }
  for (const FaultSpec& f : schedule.faults) {
    out += prefix + std::to_string(++n) + ". " + describe_fault(f) + "\n";
  }
  if (n == 0) out += prefix + "(no fault: the scenario alone violates the property)\n";
  return out;
}

std::size_t schedule_size(const Schedule& s) { return s.faults.size() + s.redraws.size(); }

}  // namespace

std::string check_summary_text(const CheckResult& r, const CheckOptions& options) {
  std::ostringstream out;
  out << "check       " << r.runs << " runs in " << fixed(r.run_seconds, 1) << "s ("
      << per_second(static_cast<double>(r.runs), r.run_seconds) << " runs/s, "
      << per_second(static_cast<double>(r.events), r.run_seconds) << " events/s), seed "
      << options.seed << ", " << options.jobs << " jobs\n";
  out << "envelope    " << envelope_text(r.space) << "\n";
  std::vector<std::string> kinds;
  std::size_t covered = 0;
  for (const FaultChoice& c : r.menu) {
    const std::size_t i = fault_choice_index(c);
    if (r.faults_by_kind[i] > 0) ++covered;
    kinds.push_back(c + " " + std::to_string(r.faults_by_kind[i]));
  }
  out << "faults      " << covered << " of " << r.menu.size()
      << " kinds covered (faults drawn): " << join_words(kinds, ", ") << "\n";
  if (options.guided) {
    out << "guided      " << r.mutated_runs << " runs mutated a kept run's schedule; "
        << r.kept_runs << " runs kept for new coverage (" << r.features << " features)\n";
  }
  out << "violations  " << r.violating_runs << " of " << r.runs << " runs";
  for (const auto& [property, count] : r.violations_by_property) {
    out << "; " << property << " " << count;
  }
  out << "\n";
  if (r.incomplete_runs > 0) {
    out << "incomplete  " << r.incomplete_runs << " runs stopped at the budget of "
        << r.event_budget << " events a run (--max-events) or the livelock guard\n";
  }
  if (!r.failure) return out.str();
  const CheckFailure& f = *r.failure;
  out << "shrink      run " << f.run << " (seed " << f.seed << "): " << schedule_size(f.original)
      << " faults -> " << schedule_size(f.shrunk.minimal) << " in " << f.shrunk.steps << " steps ("
      << f.shrunk.accepted << " kept" << (f.shrunk.exhausted ? ", step limit hit" : "") << "), "
      << fixed(r.shrink_seconds, 1) << "s\n";
  out << "minimal\n" << schedule_lines(f.shrunk.minimal, "  ");
  const Violation& v = violation_of(f);
  out << "violated    " << f.property << " at t=" << format_seconds(v.at.ns) << "s: " << v.detail
      << "\n";
  if (f.broken_assumptions.empty()) {
    out << "assumptions none broken: this is a finding, not a documented limitation\n";
  } else {
    for (const std::string& a : f.broken_assumptions) out << "assumption  broken: " << a << "\n";
  }
  return out.str();
}

Json check_summary_json(const CheckResult& r, const CheckOptions& options,
                        const std::string& scenario_name) {
  Json kinds = Json::object();
  for (const FaultChoice& c : r.menu) {
    const std::size_t i = fault_choice_index(c);
    kinds[c] = Json{{"faults", r.faults_by_kind[i]}, {"runsEnabled", r.runs_by_kind[i]}};
  }
  Json out{{"check", 1},
           {"hasimVersion", kVersion},
           {"scenario", scenario_name},
           {"seed", options.seed},
           {"runs", r.runs},
           {"maxFaults", options.generate.max_faults},
           {"withinAssumptions", r.space.within_assumptions},
           {"faultKinds", kinds},
           {"violatingRuns", r.violating_runs},
           {"violationsByProperty", r.violations_by_property},
           {"incompleteRuns", r.incomplete_runs},
           {"eventBudget", r.event_budget},
           {"events", r.events}};
  if (options.guided) {
    out["guided"] =
        Json{{"mutatedRuns", r.mutated_runs}, {"keptRuns", r.kept_runs}, {"features", r.features}};
  }
  if (r.failure) {
    const CheckFailure& f = *r.failure;
    const Violation& v = violation_of(f);
    out["failure"] = Json{{"run", f.run},
                          {"seed", f.seed},
                          {"property", f.property},
                          {"at", format_duration(v.at - TrueTime{})},
                          {"detail", v.detail},
                          {"originalFaults", schedule_size(f.original)},
                          {"minimalFaults", faults_to_json(f.shrunk.minimal.faults)},
                          {"shrinkSteps", f.shrunk.steps},
                          {"shrinkKept", f.shrunk.accepted},
                          {"brokenAssumptions", f.broken_assumptions},
                          {"traceHash", format_hash(f.rerun.trace_hash)}};
  }
  return out;
}

Json check_replay(const Json& scenario_json, const CheckFailure& failure,
                  const std::string& trace_file) {
  Json scenario = scenario_json;
  scenario.erase("$schema");  // the replay file lives elsewhere; the path would dangle
  scenario["seed"] = failure.seed;
  write_schedule(failure.shrunk.minimal, scenario);
  return make_replay(scenario, failure.rerun, trace_file);
}

std::string check_trace(const CheckFailure& failure) {
  std::string out;
  for (const std::string& line : failure.rerun.captured) out += line + "\n";
  return out;
}

std::string check_explanation(const CheckResult& r, const std::string& scenario_name,
                              const std::string& replay_path) {
  HASIM_ASSERT(r.failure.has_value());
  const CheckFailure& f = *r.failure;
  const Violation& v = violation_of(f);
  std::ostringstream out;
  out << "# hasim check: " << scenario_name << " violates " << f.property << "\n\n";
  out << "**What went wrong** (t=" << format_seconds(v.at.ns) << "s): " << v.detail << "\n\n";
  out << "## The minimal fault schedule\n\n";
  out << "Run " << f.run << " of " << r.runs << " (seed " << f.seed << ") drew "
      << schedule_size(f.original) << " faults and violated " << f.property
      << ". Shrinking (fewest faults, then shortest, then earliest; " << f.shrunk.steps
      << " candidate runs, " << f.shrunk.accepted << " kept) left "
      << schedule_size(f.shrunk.minimal) << ":\n\n"
      << schedule_lines(f.shrunk.minimal, "") << "\n";
  out << "## Assumptions\n\n";
  if (f.broken_assumptions.empty()) {
    out << "No documented assumption of the violated property is broken by this schedule or "
           "the scenario's configuration: this is a finding about the model, not a known "
           "limitation.\n\n";
  } else {
    out << "This schedule or the scenario's configuration breaks what the property assumes "
           "(`hasim list` names each property's assumptions), so the violation is the "
           "documented limitation showing itself:\n\n";
    for (const std::string& a : f.broken_assumptions) out << "- " << a << "\n";
    out << "\n";
  }
  out << "## The events leading to it\n\n";
  for (const std::string& cause : v.causes) out << "- " << cause << "\n";
  out << "\n## Reproduce\n\n```\nhasim replay " << replay_path << "\n```\n\n"
      << "It re-runs the scenario with this schedule and seed and checks the trace hash ("
      << format_hash(f.rerun.trace_hash) << ", " << f.rerun.trace_events
      << " events); `hasim run` on the replay's embedded scenario shows the same verdict.\n";
  return out.str();
}

std::string check_timeline_html(const CheckResult& r, const std::string& scenario_name) {
  HASIM_ASSERT(r.failure.has_value());
  const CheckFailure& f = *r.failure;
  const Violation& v = violation_of(f);
  TimelineRecorder recorder(v.at - seconds(3), v.at + seconds(1));
  RunOptions options;
  options.seed = f.seed;
  options.max_events = r.event_budget;
  options.hook = [&recorder](World& world) { world.trace().add_observer(&recorder); };
  const auto rerun = run_scenario(f.minimal, options);
  HASIM_ASSERT(rerun && rerun->trace_hash == f.rerun.trace_hash);  // deterministic
  const TrueTime end = rerun->stats.end;

  // The chart covers the faults and the violation, with some context either side.
  TrueTime first = v.at;
  TrueTime last = v.at;
  TimelineLane faults{"faults", {}, {}};
  for (const FaultSpec& fault : f.shrunk.minimal.faults) {
    const TrueTime at = TrueTime{} + fault.at;
    first = std::min(first, at);
    last = std::max(last, at + fault.for_duration.value_or(Duration{}));
    if (fault.for_duration) {
      faults.segments.push_back({at, at + *fault.for_duration, describe_fault(fault), "#cc79a7"});
    } else {
      faults.markers.push_back({at, describe_fault(fault), "#cc79a7"});
    }
  }
  faults.markers.push_back({v.at, "violation: " + f.property, "#d55e00"});
  const TrueTime start = first - TrueTime{} > seconds(20) ? first - seconds(20) : TrueTime{};
  const TrueTime stop = std::min(end, last + seconds(20));
  std::vector<TimelineLane> lanes{faults};
  for (TimelineLane& lane : recorder.process_lanes(end)) lanes.push_back(std::move(lane));

  HtmlReport html("hasim check: " + scenario_name + " violates " + f.property);
  html.add_paragraph("At t=" + format_seconds(v.at.ns) + "s: " + v.detail);
  html.add_heading(2, "Minimal fault schedule");
  html.add_raw("<pre>" + html_escape(schedule_lines(f.shrunk.minimal, "")) + "</pre>");
  if (!f.broken_assumptions.empty()) {
    html.add_note("Broken assumptions (a documented limitation, not a finding): " +
                  join_words(f.broken_assumptions, "; "));
  } else {
    html.add_note("No documented assumption is broken: this is a finding.");
  }
  html.add_heading(2, "Timeline");
  PlotOptions plot;
  plot.title = "Processes, leaders and faults from " + format_duration(start - TrueTime{}) +
               " to " + format_duration(stop - TrueTime{});
  plot.width = 1100;
  html.add_raw(svg_timeline(lanes, start, stop > start ? stop : start + seconds(1), plot));
  html.add_note(
      "One lane per process, labelled with its versions; coloured bars: acting as leader of "
      "a lease; orange: paused; grey: down; ticks: crashes, exits and lost leases. The top "
      "lane shows the faults and the violation. Hover for details.");
  html.add_heading(2, "Causes");
  std::vector<std::vector<std::string>> causes;
  for (const std::string& c : v.causes) causes.push_back({c});
  html.add_table({"event"}, causes);
  html.add_heading(2, "Trace around the violation (3 s before to 1 s after)");
  std::vector<std::vector<std::string>> rows;
  for (const std::string& line : recorder.window()) rows.push_back({line});
  html.add_table({"event"}, rows);
  html.add_paragraph("Replay: hasim replay replay.json (trace hash " +
                     format_hash(f.rerun.trace_hash) + ").");
  return html.str();
}

}  // namespace hasim
