// hasim replay REPLAY: re-run a recorded run and check it reproduces exactly.
#include <filesystem>
#include <ostream>
#include <sstream>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "hasim_version.hpp"
#include "properties/replay.hpp"

namespace hasim {
namespace {

std::vector<std::string> read_lines(const std::string& path) {
  std::vector<std::string> lines;
  const auto text = read_text_file(path);
  if (!text) return lines;
  std::istringstream in(*text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string resolve(const std::string& replay_path, const std::string& trace_file) {
  if (trace_file.empty() || std::filesystem::path(trace_file).is_absolute()) return trace_file;
  return (std::filesystem::path(replay_path).parent_path() / trace_file).string();
}

void explain_divergence(const Replay& replay, const RunResult& result,
                        const std::vector<std::string>& expected_lines, std::ostream& out) {
  out << "REPLAY DIVERGED: expected trace hash " << format_hash(replay.trace_hash) << " ("
      << with_thousands(replay.trace_events) << " events), got " << format_hash(result.trace_hash)
      << " (" << with_thousands(result.trace_events) << " events)\n";
  if (replay.hasim_version != kVersion) {
    out << "  the replay was written by hasim " << replay.hasim_version << "; this is hasim "
        << kVersion << ": a model or the kernel changed\n";
  }
  const TraceDifference d =
      first_difference(expected_lines, replay.checkpoints, result.captured, result.checkpoints);
  if (d.exact) {
    out << "  first differing event: #" << d.first_event << "\n"
        << "    expected: " << d.expected_line << "\n"
        << "    actual:   " << d.actual_line << "\n";
    return;
  }
  out << "  first difference lies in events #" << d.first_event << "..#"
      << d.first_event + TraceHash::kCheckpointEvery - 1
      << " (record the run with --trace to name the exact event); this run's events there:\n";
  for (std::size_t i = d.first_event; i < result.captured.size() && i < d.first_event + 5; ++i) {
    out << "    #" << i << " " << result.captured[i] << "\n";
  }
}

}  // namespace

int command_replay(const std::string& path, std::ostream& out, std::ostream& err) {
  ReplayLoad load = load_replay_file(path);
  err << format_notes(load.notes, path);
  if (!load.replay) {
    err << format_errors(load.errors, path);
    return kExitBadInput;
  }
  const Replay& replay = *load.replay;
  const std::string trace_file = resolve(path, replay.trace_file);
  const std::vector<std::string> expected_lines =
      trace_file.empty() ? std::vector<std::string>{} : read_lines(trace_file);
  RunOptions options;
  options.seed = replay.seed;
  options.max_events = replay.max_events;
  options.capture_lines = 5'000'000;
  const auto result = run_scenario(replay.scenario, options);
  print_summary(replay.scenario, *result, out);
  if (result->trace_hash != replay.trace_hash || result->trace_events != replay.trace_events) {
    explain_divergence(replay, *result, expected_lines, out);
    return kExitNotReproducible;
  }
  out << "replay      reproduced: trace hash " << format_hash(result->trace_hash) << " matches\n";
  return verdict_exit_code(*result);
}

}  // namespace hasim
