#include "properties/run.hpp"

#include <chrono>

#include "properties/etcd_store/history_recorder.hpp"
#include "sim/assert.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {

bool RunResult::all_held() const {
  return violated_count() == 0 && stats.status == RunStatus::completed;
}

std::size_t RunResult::violated_count() const {
  std::size_t count = 0;
  for (const auto& violation : violations) count += violation.has_value() ? 1 : 0;
  return count;
}

namespace {

// Collects the trace's "role-resolved" events: whom each role-aimed fault hit.
class RoleLog final : public TraceObserver {
 public:
  void on_event(const TraceEvent& event) override {
    if (event.kind != trace_kind::kRoleResolved) return;
    ResolvedRole r{event.t, "", "", ""};
    for (const TraceField& field : event.fields) {
      const auto* text = std::get_if<std::string>(&field.value);
      if (text == nullptr) continue;
      if (field.key == "fault") r.fault = *text;
      if (field.key == "role") r.role = *text;
      if (field.key == "process") r.process = *text;
    }
    resolved.push_back(std::move(r));
  }
  std::vector<ResolvedRole> resolved;
};

bool aims_at_roles(const Scenario& scenario) {
  for (const FaultSpec& fault : scenario.faults) {
    if (!fault.role.empty()) return true;
  }
  return false;
}

}  // namespace

std::optional<RunResult> run_scenario(const Scenario& scenario, const RunOptions& options,
                                      std::string* error) {
  // Wall time is measured for the summary only; nothing in the run depends on it.
  const auto wall_start = std::chrono::steady_clock::now();
  RunResult result;
  result.seed = options.seed.value_or(scenario.seed);
  std::unique_ptr<World> world = build_world(scenario, result.seed, options.hook);
  if (!options.trace_path.empty() && !world->trace().open_file(options.trace_path)) {
    if (error) *error = "cannot write the trace to " + options.trace_path;
    return std::nullopt;
  }
  world->trace().capture_all(options.capture_lines);
  if (options.max_events) world->limit_events(*options.max_events);
  result.max_events = options.max_events;
  std::vector<std::unique_ptr<Property>> properties;
  for (const std::string& spec : scenario.properties) {
    properties.push_back(make_property(spec));
    world->trace().add_observer(properties.back().get());
  }
  RoleLog roles;
  if (aims_at_roles(scenario)) world->trace().add_observer(&roles);
  HistoryRecorder history;
  if (options.history != nullptr) world->trace().add_observer(&history);
  result.stats = world->run_until(TrueTime{scenario.duration.ns});
  if (options.history != nullptr) *options.history = history.finish();
  result.resolved_roles = std::move(roles.resolved);
  result.simulated = result.stats.end - TrueTime{};
  for (const auto& property : properties) {
    property->finish(result.stats.end);
    result.property_specs.push_back(property->spec());
    result.violations.push_back(property->violation());
    result.windows.push_back(property->windows());
    result.notes.push_back(property->notes());
  }
  const TraceHash& hash = world->trace().hash();
  result.trace_hash = hash.value();
  result.trace_events = hash.events();
  result.checkpoints = hash.checkpoints();
  result.captured = world->trace().captured();
  world.reset();  // flushes and closes the trace file
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

TraceDifference first_difference(const std::vector<std::string>& expected_lines,
                                 const std::vector<std::uint64_t>& expected_checkpoints,
                                 const std::vector<std::string>& actual_lines,
                                 const std::vector<std::uint64_t>& actual_checkpoints) {
  TraceDifference difference;
  const std::size_t common = std::min(expected_lines.size(), actual_lines.size());
  for (std::size_t i = 0; i < common; ++i) {
    if (expected_lines[i] == actual_lines[i]) continue;
    return TraceDifference{i, true, expected_lines[i], actual_lines[i]};
  }
  if (common > 0 && expected_lines.size() != actual_lines.size()) {
    // One trace is a prefix of the other (or capture stopped in one of them).
    const bool expected_longer = expected_lines.size() > actual_lines.size();
    return TraceDifference{common, true,
                           expected_longer ? expected_lines[common] : "(end of trace)",
                           expected_longer ? "(end of trace)" : actual_lines[common]};
  }
  // No lines to compare: narrow down by checkpoints (one per TraceHash::kCheckpointEvery).
  std::size_t block = 0;
  while (block < expected_checkpoints.size() && block < actual_checkpoints.size() &&
         expected_checkpoints[block] == actual_checkpoints[block]) {
    ++block;
  }
  difference.first_event = block * TraceHash::kCheckpointEvery;
  difference.exact = false;
  return difference;
}

DeterminismReport check_determinism(const Scenario& scenario, const RunOptions& options) {
  RunOptions capture = options;
  capture.trace_path.clear();
  capture.capture_lines = 5'000'000;
  const auto first = run_scenario(scenario, capture);
  const auto second = run_scenario(scenario, capture);
  HASIM_ASSERT(first && second);
  DeterminismReport report;
  report.first_hash = first->trace_hash;
  report.second_hash = second->trace_hash;
  report.deterministic =
      first->trace_hash == second->trace_hash && first->trace_events == second->trace_events;
  if (!report.deterministic) {
    report.difference = first_difference(first->captured, first->checkpoints, second->captured,
                                         second->checkpoints);
  }
  return report;
}

}  // namespace hasim
