// hasim run [SCENARIO or NAME] [--seed N] [--trace FILE] [--replay-out FILE] [--history FILE]
// [--determinism] [--force]
#include <filesystem>
#include <fstream>
#include <ostream>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/data_paths.hpp"
#include "cli/output.hpp"
#include "hasim_builtin.hpp"
#include "scenarios/loader.hpp"
#include "properties/linearizability/history_json.hpp"
#include "properties/replay.hpp"

namespace hasim {
namespace {

int report_determinism(const Scenario& scenario, const RunOptions& options, std::ostream& out) {
  const DeterminismReport report = check_determinism(scenario, options);
  out << "determinism " << (report.deterministic ? "ok" : "FAILED") << ": two runs gave "
      << format_hash(report.first_hash) << " and " << format_hash(report.second_hash) << "\n";
  if (report.deterministic) return kExitHeld;
  const TraceDifference& d = report.difference;
  out << "first differing event: #" << d.first_event << (d.exact ? "" : " (within 1024 events)")
      << "\n";
  if (d.exact) out << "  run 1: " << d.expected_line << "\n  run 2: " << d.actual_line << "\n";
  return kExitNotReproducible;
}

// The trace path as the replay file should record it: relative to the replay's folder.
std::string trace_path_for_replay(const std::string& trace, const std::string& replay_out) {
  if (trace.empty()) return "";
  std::error_code code;
  const auto base = std::filesystem::absolute(replay_out, code).parent_path();
  const auto relative = std::filesystem::absolute(trace, code).lexically_relative(base);
  return relative.empty() ? trace : relative.string();
}

// Opens the history file before the run, so a path that cannot be written is refused at
// once (exit 2) rather than after a long run.
bool open_history(const std::string& path, std::ofstream& file, std::ostream& err) {
  std::error_code code;
  if (std::filesystem::is_directory(path, code)) {
    err << "hasim: cannot write the history to " << path << ": it is a directory\n";
    return false;
  }
  file.open(path, std::ios::binary | std::ios::trunc);
  if (file) return true;
  const auto parent = std::filesystem::absolute(path, code).parent_path();
  err << "hasim: cannot write the history to " << path
      << (std::filesystem::is_directory(parent, code) ? "" : ": its folder does not exist")
      << "\n";
  return false;
}

// Writes the history (properties/linearizability/history_json.hpp) and says where.
bool write_history(const std::string& path, std::ofstream& file,
                   const linearizability::History& history, std::ostream& out,
                   std::ostream& err) {
  file << linearizability::write_history_json(history);
  file.close();
  if (!file) {
    err << "hasim: cannot write the history to " << path << "\n";
    return false;
  }
  out << "history     " << with_thousands(history.operations.size())
      << " etcd client operations written to " << path << " (hasim-history JSON)\n";
  return true;
}

}  // namespace

int command_run(const RunArgs& args, std::ostream& out, std::ostream& err) {
  const ScenarioFile resolved = resolve_scenario_arg(args.scenario);  // path or built-in name
  if (!resolved.error.empty()) {
    err << "hasim: " << resolved.error << "\n";
    return kExitBadInput;
  }
  const auto arg = load_scenario_arg(resolved.path, kBuiltinScenarioName, kBuiltinScenario, err);
  if (!arg) return kExitBadInput;
  if (!args.trace.empty() && !may_write(args.trace, args.force, err)) return kExitBadInput;
  if (!args.replay_out.empty() && !may_write(args.replay_out, args.force, err))
    return kExitBadInput;
  if (!args.history.empty() && !may_write(args.history, args.force, err)) return kExitBadInput;
  RunOptions options;
  options.seed = args.seed;
  if (args.determinism) return report_determinism(arg->scenario, options, out);
  options.trace_path = args.trace;
  std::ofstream history_file;
  linearizability::History history;
  if (!args.history.empty()) {
    if (!open_history(args.history, history_file, err)) return kExitBadInput;
    options.history = &history;
  }
  std::string error;
  const auto result = run_scenario(arg->scenario, options, &error);
  if (!result) {
    err << "hasim: " << error << "\n";
    return kExitBadInput;
  }
  print_summary(arg->scenario, *result, out);
  if (!args.history.empty() && !write_history(args.history, history_file, history, out, err)) {
    return kExitBadInput;
  }
  if (!args.replay_out.empty()) {
    const Json scenario_json = Json::parse(arg->text);  // valid: the loader accepted it
    const Json replay =
        make_replay(scenario_json, *result, trace_path_for_replay(args.trace, args.replay_out));
    std::ofstream file(args.replay_out);
    file << replay.dump(2) << "\n";
    if (!file) {
      err << "hasim: cannot write the replay file " << args.replay_out << "\n";
      return kExitBadInput;
    }
    out << "replay      written to " << args.replay_out << " (hasim replay " << args.replay_out
        << ")\n";
  }
  return verdict_exit_code(*result);
}

}  // namespace hasim
