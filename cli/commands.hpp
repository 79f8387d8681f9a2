#pragma once
// One function per subcommand; cli/app.cpp parses arguments and dispatches.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "reports/study_runner.hpp"

namespace hasim {

struct RunArgs {
  std::string scenario;
  std::optional<std::uint64_t> seed;
  std::string trace;
  std::string replay_out;
  std::string history;  // --history FILE: the etcd store's client history (history_json.hpp)
  bool determinism = false;
  bool force = false;
};

int command_run(const RunArgs& args, std::ostream& out, std::ostream& err);
int command_replay(const std::string& replay, std::ostream& out, std::ostream& err);
int command_validate(const std::string& scenario, std::ostream& out, std::ostream& err);
int command_list(std::ostream& out, std::ostream& err);
// libFuzzer dictionary lines for every word of the registered systems' scenario format
// (scripts/fuzz.sh appends them to fuzz/scenario.dict), so a new system is fuzzed with its
// own keys without editing the dictionary.
int command_fuzz_dictionary(std::ostream& out);

// `hasim report STUDY ...`: the study's name and the options every study takes (the
// study's own flags are in options.args.flags). Empty `study`: list the studies.
struct ReportArgs {
  std::string study;
  StudyRunOptions options;
  bool list = false;  // --list
};

int command_report(const ReportArgs& args, std::ostream& out, std::ostream& err);

// `hasim report diff A B`: two reports of one study compared (reports/diff). Exit 0 when
// nothing changed, 1 when something did, 2 on bad input.
struct ReportDiffArgs {
  std::string a;
  std::string b;
  double alpha = 0.05;
  std::string out;            // "": print only; else write diff.md and diff.json there
  bool force = false;         // overwrite them
  std::string format = "md";  // what is printed: md or json
};

int command_report_diff(const ReportDiffArgs& args, std::ostream& out, std::ostream& err);

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
  std::optional<std::uint64_t> max_events;  // per run; unset: 20 x the scenario's own run
  bool stop_at_first = false;
  bool guided = false;  // coverage-guided schedules (properties/guided.hpp)
  bool force = false;
  bool quiet = false;  // no progress on stderr
};

int command_check(const CheckArgs& args, std::ostream& out, std::ostream& err);

struct MergeArgs {
  std::vector<std::string> shards;
  std::string out;  // default reports/out/<study>
  bool force = false;
  bool quiet = false;  // no progress on stderr
};

int command_merge(const MergeArgs& args, std::ostream& out, std::ostream& err);

// `hasim raft transcript`: etcd-io/raft's datadriven transcripts against the raft port.
struct RaftTranscriptArgs {
  std::vector<std::string> files;
  bool rewrite = false;        // write the actual outputs back into the files
  std::string suite = "auto";  // auto (by path), interaction, confchange or quorum
};

int command_raft_transcript(const RaftTranscriptArgs& args, std::ostream& out, std::ostream& err);

}  // namespace hasim
