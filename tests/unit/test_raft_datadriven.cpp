// models/raft/rafttest/datadriven: the transcript format of cockroachdb/datadriven, which
// etcd-io/raft's tests are written in: directive parsing, both output forms, the rewrite,
// the diff, and every upstream transcript parsed and reproduced byte for byte.
#include <catch2/catch.hpp>

#include "models/raft/rafttest/datadriven.hpp"
#include "models/raft/rafttest/suite.hpp"
#include "raft_conformance_files.hpp"

using namespace hasim::raft::rafttest;

namespace {

// Answers every directive with a fixed text (or, if empty, with the expected output).
class Fixed final : public TranscriptHandler {
 public:
  explicit Fixed(std::string answer) : answer_(std::move(answer)) {}
  std::string handle(const TestData& d) override {
    seen.push_back(d);
    return answer_.empty() ? d.expected : answer_;
  }
  std::vector<TestData> seen;

 private:
  std::string answer_;
};

std::vector<std::string> expected_outputs(const ParsedTranscript& t) {
  std::vector<std::string> outputs;
  for (const TranscriptCase& c : t.cases) outputs.push_back(c.data.expected);
  return outputs;
}

}  // namespace

TEST_CASE("parse_line splits a directive into command and arguments", "[raft]") {
  const ParsedLine p = parse_line("  cmd pos key=val list=(1, 2,3) nested=(a + (b, c), d) empty=  ");
  REQUIRE(p.error == "");
  CHECK(p.cmd == "cmd");
  REQUIRE(p.cmdArgs.size() == 5);
  CHECK((p.cmdArgs[0].key == "pos" && p.cmdArgs[0].vals.empty()));
  CHECK(p.cmdArgs[1].vals == std::vector<std::string>{"val"});
  CHECK(p.cmdArgs[2].vals == std::vector<std::string>{"1", "2", "3"});
  CHECK(p.cmdArgs[3].vals == std::vector<std::string>{"a + (b, c)", "d"});
  CHECK(p.cmdArgs[4].vals == std::vector<std::string>{""});
  CHECK(p.cmdArgs[2].to_string() == "list=(1, 2, 3)");
  CHECK(parse_line("cmd a=(1,2").error == "cannot parse directive at column 7: cmd a=(1,2");
  CHECK(parse_line("cmd =x").error == "cannot parse directive at column 5: cmd =x");
  CHECK(parse_line("   ").cmd.empty());
}

TEST_CASE("scan_uint64 and scan_bool convert as Go's strconv does", "[raft]") {
  CHECK(scan_uint64("18446744073709551615") == ~std::uint64_t{0});
  CHECK_FALSE(scan_uint64("18446744073709551616"));
  CHECK_FALSE(scan_uint64("+1"));
  CHECK_FALSE(scan_uint64(""));
  CHECK(scan_bool("True") == true);
  CHECK(scan_bool("0") == false);
  CHECK_FALSE(scan_bool("yes"));
}

TEST_CASE("a transcript's comments, input, continuations and outputs", "[raft]") {
  const std::string text =
      "# a comment\n\ncmd a=1 \\\n  b=2\nline one\n\nline two\n----\nout 1\nout 2\n\n"
      "other\n----\n----\nwith\n\nblank\n----\n----\n\n# the end\n";
  const ParsedTranscript t = parse_transcript("f.txt", text);
  REQUIRE(t.error == "");
  REQUIRE(t.cases.size() == 2);
  const TestData& first = t.cases[0].data;
  CHECK(first.pos == "f.txt:3");
  CHECK((first.cmd == "cmd" && first.cmdArgs.size() == 2 && first.cmdArgs[1].key == "b"));
  CHECK(first.input == "line one\n\nline two");
  CHECK(first.expected == "out 1\nout 2\n");
  CHECK(t.cases[1].data.expected == "with\n\nblank\n");
  CHECK(t.trailing == "# the end\n");
  CHECK(render_transcript(t, expected_outputs(t)) == text);
}

TEST_CASE("the rewrite picks the output form as datadriven does", "[raft]") {
  const std::string text = "a\n----\nx\n\nb\n----\ny\n";
  Fixed blank("p\n \nq");  // a whitespace-only line: the double form
  const TranscriptResult r = run_transcript("f.txt", text, blank);
  CHECK_FALSE(r.passed);
  CHECK(r.rewritten == "a\n----\n----\np\n \nq\n----\n----\n\nb\n----\n----\np\n \nq\n----\n----\n");
  Fixed plain("z");  // a missing final newline is added
  CHECK(run_transcript("f.txt", text, plain).rewritten == "a\n----\nz\n\nb\n----\nz\n");
  Fixed newline("\n");  // one empty line is a blank line too
  CHECK(run_transcript("f.txt", "a\n----\n", newline).rewritten == "a\n----\n----\n\n----\n----\n");
  Fixed echo("");  // an empty output at the end of the file
  CHECK(run_transcript("f.txt", "a\n----\n", echo).rewritten == "a\n----\n");
  Fixed same("");
  const TranscriptResult ok = run_transcript("f.txt", text, same);
  CHECK((ok.passed && ok.diff.empty() && ok.rewritten == text));
}

TEST_CASE("a failing transcript comes with a unified diff", "[raft]") {
  Fixed wrong("w");
  const TranscriptResult r = run_transcript("f.txt", "a\n----\nx\n\nb\n----\ny\n", wrong);
  CHECK(r.diff ==
        "--- f.txt (expected)\n+++ f.txt (actual)\n@@ -1,7 +1,7 @@\n a\n ----\n-x\n+w\n \n b\n"
        " ----\n-y\n+w\n");
  CHECK(unified_diff("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nX\n6\n7\n8\n9\n", "a", "b") ==
        "--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+X\n 6\n 7\n 8\n");
  CHECK(unified_diff("1\n", "", "a", "b") == "--- a\n+++ b\n@@ -1 +0,0 @@\n-1\n");
}

TEST_CASE("malformed transcripts are errors, not crashes", "[raft]") {
  CHECK(parse_transcript("f.txt", "cmd\ninput\n").error == "f.txt:1: directive \"cmd\" has no ---- line");
  CHECK(parse_transcript("f.txt", "\ncmd x=(\n----\n").error ==
        "f.txt:2: cannot parse directive at column 7: cmd x=(");
  CHECK(parse_transcript("f.txt", "c\n----\n----\nx\n----\n----\ny\n").error ==
        "f.txt:1: non-blank line after end of double ---- separator section");
  CHECK(parse_transcript("f.txt", "subtest a\n").error == "f.txt:1: subtest directives are not supported");
  Fixed any("x");
  CHECK(run_transcript("f.txt", "cmd\n", any).error != "");
  CHECK(any.seen.empty());
}

TEST_CASE("suite_for_path and make_suite", "[raft]") {
  CHECK(suite_for_path("/x/etcd-io-raft/quorum/testdata/joint_vote.txt") == "quorum");
  CHECK(suite_for_path("confchange/testdata/zero.txt") == "confchange");
  CHECK(suite_for_path("/x/myquorum/testdata/a.txt") == "interaction");
  CHECK(suite_for_path("/x/testdata/campaign.txt") == "interaction");
  for (const char* name : {"quorum", "confchange", "interaction"}) CHECK(make_suite(name) != nullptr);
  CHECK(make_suite("other") == nullptr);
}

TEST_CASE("every upstream transcript parses and re-emits byte for byte", "[raft]") {
  std::size_t count = 0;
  for (const char* dir : {"quorum/testdata", "confchange/testdata", "testdata"}) {
    for (const auto& file : hasim::test::raft_transcripts(dir)) {
      INFO(file.string());
      const std::string text = hasim::test::read_transcript(file);
      const ParsedTranscript t = parse_transcript(file.string(), text);
      REQUIRE(t.error == "");
      CHECK_FALSE(t.cases.empty());
      CHECK(render_transcript(t, expected_outputs(t)) == text);
      ++count;
    }
  }
  CHECK(count == 41);
}
