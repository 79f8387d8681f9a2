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

struct ReportArgs {
  std::string name;
  std::uint64_t trials = 1000;
  std::uint64_t seed = 1;
  unsigned jobs = 0;  // 0: one per hardware thread
  std::string out;    // default reports/out/<name>
  bool force = false;
  std::string lease_duration = "15s";
  std::string renew_deadline = "10s";
  std::string retry_period = "2s";
  std::string pause = "20s";
  std::string partition = "60s";
};

int command_report(const ReportArgs& args, std::ostream& out, std::ostream& err);

}  // namespace hasim
