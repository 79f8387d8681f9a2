#pragma once
// Shared by the subcommands: reading input files, refusing to overwrite output, and the
// run summary.
#include <iosfwd>
#include <optional>
#include <string>

#include "properties/run.hpp"

namespace hasim {

std::optional<std::string> read_text_file(const std::string& path);

// A scenario named on the command line, or the built-in one when `path` is empty: its source
// name, its text as written (for replay files) and the loaded scenario. Prints the loader's
// notes on `err`; if it cannot be read or loaded, prints the errors there and returns nullopt.
struct ScenarioArg {
  std::string source;
  std::string text;
  Scenario scenario;
};
std::optional<ScenarioArg> load_scenario_arg(const std::string& path, const char* builtin_name,
                                             const char* builtin_text, std::ostream& err);
// False (with a message on err) if `path` exists and overwriting was not asked for.
bool may_write(const std::string& path, bool force, std::ostream& err);
// "12,345"
std::string with_thousands(std::uint64_t value);
void print_summary(const Scenario& scenario, const RunResult& result, std::ostream& out);
// Exit code for a finished run: 0 all held, 1 violated (or the run stopped early).
int verdict_exit_code(const RunResult& result);

}  // namespace hasim
