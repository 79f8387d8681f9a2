#pragma once
// What `hasim check` writes: the summary (text and JSON), and for a violation the replay
// file, a readable explanation (Markdown) and a self-contained HTML timeline of the failing
// run with the minimal schedule.
#include <string>

#include "reports/check.hpp"
#include "scenarios/fault_text.hpp"
#include "scenarios/json_reader.hpp"

namespace hasim {

std::string check_summary_text(const CheckResult& result, const CheckOptions& options);
Json check_summary_json(const CheckResult& result, const CheckOptions& options,
                        const std::string& scenario_name);

// The replay file of the minimal failing run: `scenario_json` (the scenario as the user wrote
// it) with its "faults" (and generated upgrade timing) replaced by the minimal schedule.
// `trace_file` (relative to the replay's folder; may be empty) holds check_trace's lines, so a
// later divergence names the exact first differing event.
Json check_replay(const Json& scenario_json, const CheckFailure& failure,
                  const std::string& trace_file);
// The minimal run's JSON Lines trace.
std::string check_trace(const CheckFailure& failure);

// Markdown: the violated property and why, the minimal schedule, the assumptions it breaks,
// the events leading to the violation, and how to replay it. `replay_path` is shown as is.
std::string check_explanation(const CheckResult& result, const std::string& scenario_name,
                              const std::string& replay_path);

// One HTML file: one lane per process (who leads which lease, paused, down, versions), a
// lane of faults, the violation marked, and the trace events around the violation. Re-runs
// the minimal scenario to observe it (the same trace, byte for byte).
std::string check_timeline_html(const CheckResult& result, const std::string& scenario_name);

}  // namespace hasim
