#pragma once
// Running a scenario (in properties/, as it attaches the property monitors; scenarios/ never
// includes properties/): build the world, attach the properties, run to the scenario's end,
// and collect what a user (or replay, or --determinism) needs: the verdicts, the trace hash
// and its checkpoints, and throughput figures.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "properties/linearizability/history.hpp"
#include "properties/property.hpp"
#include "scenarios/build.hpp"
#include "scenarios/scenario.hpp"

namespace hasim {

struct RunOptions {
  std::optional<std::uint64_t> seed;  // overrides the scenario's seed
  std::string trace_path;             // write the JSON Lines trace here ("" = don't)
  std::size_t capture_lines = 0;      // keep up to this many trace lines in memory
  WorldHook hook;                     // tests: add processes before the run
  // Collect the client history of the etcd store here (`hasim run --history`): every etcd
  // call of the kube-apiservers (properties/etcd_store/history_recorder.hpp).
  linearizability::History* history = nullptr;
  // Stop after this many events (RunStatus::event_limit) instead of the kernel's own bound.
  std::optional<std::uint64_t> max_events;
};

// A fault aimed at a role, and the process the role resolved to when it fired.
struct ResolvedRole {
  TrueTime at{};
  std::string fault;    // its kind
  std::string role;     // "leader:kube-system/kube-scheduler"
  std::string process;  // "cp-2/kube-scheduler"
};

struct RunResult {
  std::uint64_t seed = 0;
  std::optional<std::uint64_t> max_events;  // RunOptions::max_events, if the run had one
  RunStats stats;
  Duration simulated{};
  std::uint64_t trace_hash = 0;
  std::uint64_t trace_events = 0;
  std::vector<std::uint64_t> checkpoints;
  std::vector<std::string> captured;                  // if capture_lines > 0
  std::vector<std::string> property_specs;            // in scenario order
  std::vector<std::optional<Violation>> violations;   // parallel to property_specs
  std::vector<std::vector<ViolationWindow>> windows;  // parallel to property_specs
  std::vector<std::vector<std::string>> notes;        // parallel to property_specs
  std::vector<ResolvedRole> resolved_roles;           // in the order the faults fired
  double wall_seconds = 0.0;                          // measured, never part of the trace

  bool all_held() const;
  std::size_t violated_count() const;
};

// Fails (returns nullopt, with `error`) only if the trace file cannot be opened.
std::optional<RunResult> run_scenario(const Scenario& scenario, const RunOptions& options,
                                      std::string* error = nullptr);

// Where two traces first differ, by captured lines or else by checkpoints.
struct TraceDifference {
  std::uint64_t first_event = 0;  // 0-based index of the first differing event (or block start)
  bool exact = false;             // false: only known to lie in [first_event, first_event+1024)
  std::string expected_line;      // empty if unknown
  std::string actual_line;
};
TraceDifference first_difference(const std::vector<std::string>& expected_lines,
                                 const std::vector<std::uint64_t>& expected_checkpoints,
                                 const std::vector<std::string>& actual_lines,
                                 const std::vector<std::uint64_t>& actual_checkpoints);

struct DeterminismReport {
  bool deterministic = true;
  std::uint64_t first_hash = 0;
  std::uint64_t second_hash = 0;
  TraceDifference difference;
};
// Runs the scenario twice with the same seed and compares the traces.
DeterminismReport check_determinism(const Scenario& scenario, const RunOptions& options);

}  // namespace hasim
