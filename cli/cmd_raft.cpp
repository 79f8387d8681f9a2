// hasim raft transcript [--rewrite] [--suite auto|interaction|confchange|quorum] FILE...:
// runs etcd-io/raft's datadriven transcripts against hasim's raft port
// (models/raft/rafttest). Each file prints PASS or FAIL with a unified diff of the file
// against the actual outputs; --rewrite writes the actual outputs back. Exit codes: 0 all
// passed (or, with --rewrite, all files now hold the actual outputs), 1 some failed, 2 a file
// cannot be read or written, or is not a well-formed transcript.
#include <fstream>
#include <ostream>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "models/raft/rafttest/datadriven.hpp"
#include "models/raft/rafttest/suite.hpp"

namespace hasim {
namespace {

using raft::rafttest::TranscriptResult;

struct Transcript {
  std::string path;
  std::string contents;
  std::string suite;
};

// Reads and parses every file before running any, so that a bad argument changes nothing.
std::optional<std::vector<Transcript>> load_transcripts(const RaftTranscriptArgs& args,
                                                        std::ostream& err) {
  std::vector<Transcript> transcripts;
  for (const std::string& path : args.files) {
    std::optional<std::string> contents = read_text_file(path);
    if (!contents) {
      err << "hasim raft transcript: cannot read " << path << "; check the path\n";
      return std::nullopt;
    }
    const auto parsed = raft::rafttest::parse_transcript(path, *contents);
    if (!parsed.error.empty()) {
      err << "hasim raft transcript: " << parsed.error
          << " (not a well-formed datadriven transcript)\n";
      return std::nullopt;
    }
    const std::string suite =
        args.suite == "auto" ? std::string(raft::rafttest::suite_for_path(path)) : args.suite;
    transcripts.push_back(Transcript{path, std::move(*contents), suite});
  }
  return transcripts;
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
  file.flush();
  return static_cast<bool>(file);
}

}  // namespace

int command_raft_transcript(const RaftTranscriptArgs& args, std::ostream& out, std::ostream& err) {
  const auto transcripts = load_transcripts(args, err);
  if (!transcripts) return kExitBadInput;
  std::size_t passed = 0;
  std::size_t rewritten = 0;
  for (const Transcript& t : *transcripts) {
    const auto handler = raft::rafttest::make_suite(t.suite);
    if (!handler) {
      err << "hasim raft transcript: unknown suite \"" << t.suite
          << "\"; use auto, interaction, confchange or quorum\n";
      return kExitBadInput;
    }
    const TranscriptResult result = raft::rafttest::run_transcript(t.path, t.contents, *handler);
    if (!result.error.empty()) {  // parsed above, so not expected; reported all the same
      err << "hasim raft transcript: " << result.error << "\n";
      return kExitBadInput;
    }
    if (result.passed) {
      ++passed;
      out << "PASS " << t.path << "\n";
    } else {
      out << "FAIL " << t.path << "\n" << result.diff;
    }
    if (args.rewrite && result.rewritten != t.contents) {
      if (!write_file(t.path, result.rewritten)) {
        err << "hasim raft transcript: cannot write " << t.path << "\n";
        return kExitBadInput;
      }
      ++rewritten;
      out << "rewrote " << t.path << "\n";
    }
  }
  out << passed << "/" << transcripts->size() << " transcripts passed\n";
  if (args.rewrite) {
    out << rewritten << " file(s) rewritten with the actual outputs\n";
    return kExitHeld;
  }
  return passed == transcripts->size() ? kExitHeld : kExitViolated;
}

}  // namespace hasim
