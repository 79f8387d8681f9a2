#pragma once
// One function per subcommand; cli/app.cpp parses arguments and dispatches.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

namespace hasim {

struct RunArgs {
  std::string scenario;
  std::optional<std::uint64_t> seed;
  std::string trace;
  std::string replay_out;
  bool determinism = false;
  bool force = false;
};

int command_run(const RunArgs& args, std::ostream& out, std::ostream& err);
int command_replay(const std::string& replay, std::ostream& out, std::ostream& err);
int command_validate(const std::string& scenario, std::ostream& out, std::ostream& err);
int command_list(std::ostream& out);

}  // namespace hasim
