#pragma once
// Shared by the subcommands: reading input files, refusing to overwrite output, and the
// run summary.
#include <iosfwd>
#include <optional>
#include <string>

#include "scenarios/run.hpp"

namespace hasim {

std::optional<std::string> read_text_file(const std::string& path);
// False (with a message on err) if `path` exists and overwriting was not asked for.
bool may_write(const std::string& path, bool force, std::ostream& err);
// "12,345"
std::string with_thousands(std::uint64_t value);
void print_summary(const Scenario& scenario, const RunResult& result, std::ostream& out);
// Exit code for a finished run: 0 all held, 1 violated (or the run stopped early).
int verdict_exit_code(const RunResult& result);

}  // namespace hasim
