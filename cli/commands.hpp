#pragma once
// One function per subcommand; cli/app.cpp parses arguments and dispatches.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

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
int command_list(std::ostream& out, std::ostream& err);

struct ReportArgs {
  std::string name;
  std::optional<std::uint64_t> trials;  // default per report
  std::uint64_t seed = 1;
  unsigned jobs = 0;  // 0: one per hardware thread
  std::string out;    // default reports/out/<name>
  bool force = false;
  std::string lease_duration = "15s";
  std::string renew_deadline = "10s";
  std::string retry_period = "2s";
  // failover only
  std::optional<std::string> pause;      // default 20s
  std::optional<std::string> partition;  // default 60s
  // upgrade-skew only
  std::optional<std::string> shard;  // "I/N"
  std::optional<std::string> nodes;  // "3,5"
  std::optional<std::string> modes;  // "lease,coordinated,mixed"
  std::optional<std::string> directions;
  std::optional<std::string> from;  // old version
  std::optional<std::string> to;    // new version
  std::optional<std::string> downtime;
  std::optional<std::string> gap;
};

int command_report(const ReportArgs& args, std::ostream& out, std::ostream& err);

struct CheckArgs {
  std::string scenario;  // "" = the built-in check scenario
  std::uint64_t runs = 100;
  std::uint64_t seed = 1;
  unsigned jobs = 0;  // 0: one per hardware thread
  std::string out;    // default: the first free reports/out/check/<scenario name>[-N]
  int max_faults = 6;
  std::optional<std::string> kinds;  // "crash,pause,..."; default every applicable kind
  bool break_assumptions = false;
  int max_shrink_steps = 1000;
  bool stop_at_first = false;
  bool force = false;
};

int command_check(const CheckArgs& args, std::ostream& out, std::ostream& err);

struct MergeArgs {
  std::vector<std::string> shards;
  std::string out;  // default reports/out/<report>
  bool force = false;
};

int command_merge(const MergeArgs& args, std::ostream& out, std::ostream& err);

}  // namespace hasim
