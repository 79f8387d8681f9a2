#pragma once
// The inverse of the loader for what `hasim check` generates: a FaultSpec written back as scenario
// JSON, so a replay file embeds the concrete schedule a run used as an ordinary, readable scenario
// that `hasim run` and `hasim validate` accept. Round trip: load_scenario_text(write(x)) gives back
// x exactly (tests/unit/test_fault_json).
#include "scenarios/json_reader.hpp"
#include "scenarios/scenario.hpp"

namespace hasim {

Json fault_to_json(const FaultSpec& fault);
// "node", "nodes" or "process" as the loader reads them: for a kind's `write`.
void write_fault_targets(const FaultSpec& fault, Json& out);
// Whom a fault hits, for sentences: "cp-1, cp-2", or "the leader of kube-system/kube-scheduler".
std::string fault_target_text(const FaultSpec& fault);
Json faults_to_json(const std::vector<FaultSpec>& faults);
// The loader's "process" form: a fault on one process names it "node/process".
bool is_process_target(const std::string& target);

// "1.5s", "2m3.25s", "0s": exact to the nanosecond and accepted by parse_duration.
std::string duration_text(Duration d);
// "+150000ppm": a clock rate on the loader's whole-ppm grid (rates in (0, 2)).
std::string drift_text(std::int64_t rate_ppb);

}  // namespace hasim
