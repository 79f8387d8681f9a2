#pragma once
// The datadriven transcript format (github.com/cockroachdb/datadriven v1.0.2, which
// etcd-io/raft's tests use): parse a transcript, run each directive through a handler, and
// compare or rewrite the expected outputs. A transcript is a sequence of
//
//   # comment lines and blank lines
//   cmd arg key=val key=(v1, v2)          <- a directive (a trailing \ continues it)
//   input lines (optional)
//   ----
//   expected output, up to the first blank line
//
// or, for an output that has blank lines itself, the output between `----` `----` and
// `----` `----` (followed by a blank line or the end of the file).
//
// The rules follow datadriven's reader and rewriter so that a rewrite reproduces upstream's
// files byte for byte. One deliberate difference: datadriven accepts a directive that reaches
// the end of the file without a `----` (its expected output is then empty); here that is a
// malformed transcript, since every upstream file has the separator and a missing one is
// almost always a damaged file.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hasim::raft::rafttest {

// datadriven.CmdArg: `key` (no vals), `key=val` (one), `key=(v1, v2)` (several).
struct CmdArg {
  std::string key;
  std::vector<std::string> vals;
  // Upstream's String(): "key", "key=val" or "key=(v1, v2)".
  std::string to_string() const;
};

// datadriven.TestData: one directive.
struct TestData {
  std::string pos;  // "file:line" of the directive's first line
  std::string cmd;
  std::vector<CmdArg> cmdArgs;
  std::string input;     // the lines between directive and ----, surrounding space trimmed
  std::string expected;  // the expected output, each line ending in "\n"

  bool has_arg(std::string_view key) const;
  // The first argument named key, or nullptr.
  const CmdArg* arg(std::string_view key) const;
};

// The handler of one suite of commands. A fresh handler runs each transcript (the handler
// may keep state from one directive to the next, as upstream's closures do).
class TranscriptHandler {
 public:
  virtual ~TranscriptHandler() = default;
  // The actual output of the directive (a missing final newline is added by the runner).
  virtual std::string handle(const TestData& data) = 0;
};

// The conversions of CmdArg.Scan: strconv.ParseUint(val, 10, 64) (decimal digits only, no
// sign, within 64 bits) and strconv.ParseBool (1 t T TRUE true True, 0 f F FALSE false
// False). nullopt if val does not convert.
std::optional<std::uint64_t> scan_uint64(std::string_view val);
std::optional<bool> scan_bool(std::string_view val);

// datadriven.ParseLine: the command and its arguments; error (non-empty) names the column,
// as upstream's does ("cannot parse directive at column N: LINE").
struct ParsedLine {
  std::string cmd;
  std::vector<CmdArg> cmdArgs;
  std::string error;
};
ParsedLine parse_line(std::string_view line);

// A parsed transcript: each directive with the text that precedes its `----` (comments,
// blank lines, the directive and its input, verbatim), and the text after the last one.
struct TranscriptCase {
  std::string leading;  // everything emitted before the case's output, each line + "\n"
  TestData data;
};
struct ParsedTranscript {
  std::vector<TranscriptCase> cases;
  std::string trailing;
  std::string error;  // non-empty: malformed ("file:line: what")
};
ParsedTranscript parse_transcript(std::string_view path, std::string_view contents);

// The transcript with each case's output replaced by outputs[i], formatted as datadriven's
// rewriter does (outputs must already end in "\n" unless empty).
std::string render_transcript(const ParsedTranscript& transcript,
                              const std::vector<std::string>& outputs);

// The unified diff (`diff -u` style, 3 lines of context) from `before` to `after`; empty if
// they are equal.
std::string unified_diff(std::string_view before, std::string_view after,
                         std::string_view beforeLabel, std::string_view afterLabel);

struct TranscriptResult {
  bool passed = false;
  std::string diff;       // unified diff, the file as written against the actual outputs
  std::string rewritten;  // the whole file with the actual outputs
  std::string error;      // non-empty: the transcript is malformed (nothing ran)
};
TranscriptResult run_transcript(std::string_view path, std::string_view contents,
                                TranscriptHandler& handler);

}  // namespace hasim::raft::rafttest
