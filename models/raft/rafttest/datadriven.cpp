// The datadriven transcript format; the rules are cockroachdb/datadriven v1.0.2's
// (test_data_reader.go, line_parser.go, datadriven.go), written anew.
#include "models/raft/rafttest/datadriven.hpp"

#include <algorithm>

#include "models/raft/rafttest/lines.hpp"
#include "sim/assert.hpp"

namespace hasim::raft::rafttest {
namespace {

constexpr std::string_view kSpace = " \t\n\r\v\f";

std::string_view trim(std::string_view s) {
  const std::size_t first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  const std::size_t last = s.find_last_not_of(kSpace);
  return s.substr(first, last - first + 1);
}

// datadriven's hasBlankLine: some line of s (each ending in "\n") is empty or only spaces and
// tabs. Such an output needs the `----` `----` form.
bool has_blank_line(std::string_view s) {
  std::size_t at = 0;
  while (at < s.size()) {
    const std::size_t end = s.find('\n', at);
    if (end == std::string_view::npos) return false;
    if (s.substr(at, end - at).find_first_not_of(" \t") == std::string_view::npos) return true;
    at = end + 1;
  }
  return false;
}

// Reads a directive's `(v1, v2, ...)` list from rest (which starts at its "("), honouring
// nested parentheses; a top-level comma ends a value and the spaces after it are skipped.
// Returns the bytes consumed, or 0 if the list never closes.
std::size_t parse_paren_values(std::string_view rest, std::vector<std::string>& vals) {
  HASIM_ASSERT(!rest.empty() && rest.front() == '(');
  std::size_t pos = 1;
  std::size_t valueStart = pos;
  int depth = 1;
  while (depth > 0) {
    if (pos == rest.size()) return 0;
    const char c = rest[pos++];
    if (c == ',' && depth == 1) {
      vals.emplace_back(rest.substr(valueStart, pos - 1 - valueStart));
      while (pos < rest.size() && rest[pos] == ' ') ++pos;
      valueStart = pos;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      --depth;
    }
  }
  vals.emplace_back(rest.substr(valueStart, pos - 1 - valueStart));
  return pos;
}

// Removes and returns the prefix of `line` up to the first of `chars` (or all of it).
std::string_view take_until(std::string_view& line, std::string_view chars) {
  const std::size_t end = std::min(line.find_first_of(chars), line.size());
  const std::string_view taken = line.substr(0, end);
  line.remove_prefix(end);
  return taken;
}

}  // namespace

std::string CmdArg::to_string() const {
  if (vals.empty()) return key;
  if (vals.size() == 1) return key + "=" + vals[0];
  std::string out = key + "=(";
  for (std::size_t i = 0; i < vals.size(); ++i) out += (i > 0 ? ", " : "") + vals[i];
  return out + ")";
}

bool TestData::has_arg(std::string_view key) const { return arg(key) != nullptr; }

const CmdArg* TestData::arg(std::string_view key) const {
  for (const CmdArg& a : cmdArgs) {
    if (a.key == key) return &a;
  }
  return nullptr;
}

std::optional<std::uint64_t> scan_uint64(std::string_view val) {
  if (val.empty() || val.size() > 20) return std::nullopt;
  std::uint64_t n = 0;
  for (const char c : val) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (n > (~std::uint64_t{0} - digit) / 10) return std::nullopt;  // past 2^64-1
    n = n * 10 + digit;
  }
  return n;
}

std::optional<bool> scan_bool(std::string_view val) {
  for (const std::string_view yes : {"1", "t", "T", "TRUE", "true", "True"}) {
    if (val == yes) return true;
  }
  for (const std::string_view no : {"0", "f", "F", "FALSE", "false", "False"}) {
    if (val == no) return false;
  }
  return std::nullopt;
}

ParsedLine parse_line(std::string_view text) {
  ParsedLine out;
  const std::string_view orig = trim(text);
  std::string_view line = orig;
  if (line.empty()) return out;
  const auto fail = [&out, &orig, &line] {
    const std::size_t column = orig.size() - line.size() + 1;
    out = ParsedLine{};
    out.error = "cannot parse directive at column " + std::to_string(column) + ": " +
                std::string(orig);
    return out;
  };
  out.cmd = take_until(line, " ");
  line = trim(line);
  // Bounded: every pass consumes at least the key's first character.
  while (!line.empty()) {
    CmdArg arg;
    arg.key = take_until(line, " =");
    if (arg.key.empty()) return fail();
    if (!line.empty() && line.front() == '=') {
      line.remove_prefix(1);
      if (line.empty() || line.front() == ' ') {
        arg.vals.emplace_back();  // key= with nothing after it: one empty value
      } else if (line.front() != '(') {
        arg.vals.emplace_back(take_until(line, " "));
      } else {
        const std::size_t used = parse_paren_values(line, arg.vals);
        if (used == 0) return fail();
        line.remove_prefix(used);
      }
    }
    out.cmdArgs.push_back(std::move(arg));
    line = trim(line);
  }
  return out;
}

namespace {

// A cursor over the transcript's lines that keeps the 1-based number of the last line read.
struct LineReader {
  std::vector<std::string_view> lines;
  std::size_t next = 0;
  bool more() const { return next < lines.size(); }
  std::string_view read() {
    HASIM_ASSERT(more());
    return lines[next++];
  }
  std::size_t line_number() const { return next; }
};

// The expected output after a `----` (upstream's readExpected). Returns an error text or "".
std::string read_expected(LineReader& in, std::string& expected) {
  std::string_view line;
  if (in.more()) line = in.read();
  if (line != "----") {
    // The single form: up to the first blank line (or the end of the file).
    while (!trim(line).empty()) {
      expected += std::string(line) + "\n";
      if (!in.more()) break;
      line = in.read();
    }
    return "";
  }
  // The double form: up to two successive `----` lines, then a blank line or the end.
  while (in.more()) {
    line = in.read();
    if (line == "----" && in.more()) {
      const std::string_view second = in.read();
      if (second == "----") {
        if (in.more() && !in.read().empty()) {
          return "non-blank line after end of double ---- separator section";
        }
        return "";
      }
      expected += std::string(line) + "\n" + std::string(second) + "\n";
      continue;
    }
    expected += std::string(line) + "\n";
  }
  return "";
}

// Reads one directive line (with its \ continuations) into `line`, echoing it to leading.
std::string read_directive_line(LineReader& in, std::string_view first, std::string& leading) {
  std::string line(trim(first));
  while (!line.empty() && line.back() == '\\' && in.more()) {
    const std::string_view continued = in.read();
    leading += std::string(continued) + "\n";
    line.pop_back();
    line += " " + std::string(trim(continued));
  }
  return line;
}

}  // namespace

ParsedTranscript parse_transcript(std::string_view path, std::string_view contents) {
  ParsedTranscript out;
  LineReader in{split_lines(contents)};
  std::string leading;
  const auto fail = [&out](const std::string& pos, const std::string& what) {
    out = ParsedTranscript{};
    out.error = pos + ": " + what;
    return out;
  };
  // Bounded: every pass reads at least one line.
  while (in.more()) {
    const std::string_view first = in.read();
    leading += std::string(first) + "\n";
    const std::string pos = std::string(path) + ":" + std::to_string(in.line_number());
    if (trim(first).starts_with('#')) continue;
    ParsedLine parsed = parse_line(read_directive_line(in, first, leading));
    if (!parsed.error.empty()) return fail(pos, parsed.error);
    if (parsed.cmd.empty()) continue;
    if (parsed.cmd == "subtest") return fail(pos, "subtest directives are not supported");
    TestData data{pos, std::move(parsed.cmd), std::move(parsed.cmdArgs), "", ""};
    std::string input;
    bool separated = false;
    while (in.more() && !separated) {
      const std::string_view line = in.read();
      separated = line == "----";
      if (!separated) {
        leading += std::string(line) + "\n";
        input += std::string(line) + "\n";
      }
    }
    if (!separated) return fail(pos, "directive \"" + data.cmd + "\" has no ---- line");
    data.input = trim(input);
    if (std::string err = read_expected(in, data.expected); !err.empty()) return fail(pos, err);
    out.cases.push_back(TranscriptCase{std::move(leading), std::move(data)});
    leading.clear();
  }
  out.trailing = std::move(leading);
  return out;
}

std::string render_transcript(const ParsedTranscript& transcript,
                              const std::vector<std::string>& outputs) {
  HASIM_ASSERT(transcript.error.empty());
  HASIM_ASSERT(outputs.size() == transcript.cases.size());
  std::string out;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const std::string& actual = outputs[i];
    HASIM_ASSERT(actual.empty() || actual.back() == '\n');
    out += transcript.cases[i].leading;
    out += "----\n";
    if (has_blank_line(actual)) {
      out += "----\n" + actual + "----\n----\n\n";
    } else {
      out += actual + "\n";
    }
  }
  out += transcript.trailing;
  // datadriven drops one trailing blank line (the one after the last output).
  if (out.size() > 2 && out.ends_with("\n\n")) out.pop_back();
  return out;
}

TranscriptResult run_transcript(std::string_view path, std::string_view contents,
                                TranscriptHandler& handler) {
  TranscriptResult result;
  const ParsedTranscript transcript = parse_transcript(path, contents);
  if (!transcript.error.empty()) {
    result.error = transcript.error;
    return result;
  }
  std::vector<std::string> outputs;
  outputs.reserve(transcript.cases.size());
  result.passed = true;
  for (const TranscriptCase& c : transcript.cases) {
    std::string actual = handler.handle(c.data);
    if (!actual.empty() && actual.back() != '\n') actual += '\n';
    if (actual != c.data.expected) result.passed = false;
    outputs.push_back(std::move(actual));
  }
  result.rewritten = render_transcript(transcript, outputs);
  if (!result.passed) {
    result.diff = unified_diff(contents, result.rewritten, std::string(path) + " (expected)",
                               std::string(path) + " (actual)");
  }
  return result;
}

}  // namespace hasim::raft::rafttest
