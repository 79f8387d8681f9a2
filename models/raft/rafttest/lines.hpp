#pragma once
// Splitting a transcript into lines, shared by the reader (datadriven.cpp) and the diff
// (unified_diff.cpp).
#include <string_view>
#include <vector>

namespace hasim::raft::rafttest {

// The lines of text as Go's bufio.Scanner (ScanLines) yields them: split at "\n", a "\r"
// before it dropped, and no empty line after a final "\n".
inline std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t at = 0;
  // Bounded: each pass moves past one "\n" (or to the end).
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    at = end + 1;
  }
  return lines;
}

}  // namespace hasim::raft::rafttest
