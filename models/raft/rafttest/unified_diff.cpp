// unified_diff (declared in datadriven.hpp): a line diff in `diff -u` form, for showing how
// a transcript's actual outputs differ from the file. Longest common subsequence over the
// lines between the common prefix and suffix; transcripts are at most a few thousand lines.
#include <algorithm>
#include <cstdint>

#include "models/raft/rafttest/datadriven.hpp"
#include "models/raft/rafttest/lines.hpp"
#include "sim/assert.hpp"

namespace hasim::raft::rafttest {
namespace {

constexpr std::size_t kContext = 3;
// Above this many LCS cells the middle is shown as all removed, then all added (still a valid
// diff, just not a minimal one).
constexpr std::size_t kMaxCells = 16'000'000;

enum class Op : std::uint8_t { Keep, Remove, Add };
struct Edit {
  Op op;
  std::size_t a;  // line index in before (Keep, Remove)
  std::size_t b;  // line index in after (Keep, Add)
};

// The edits turning a[lo, a.size()-hi) into b[lo, b.size()-hi), by LCS.
void diff_middle(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b,
                 std::size_t lo, std::size_t hi, std::vector<Edit>& edits) {
  const std::size_t n = a.size() - lo - hi;
  const std::size_t m = b.size() - lo - hi;
  if (n * m > kMaxCells) {
    for (std::size_t i = 0; i < n; ++i) edits.push_back({Op::Remove, lo + i, lo});
    for (std::size_t j = 0; j < m; ++j) edits.push_back({Op::Add, lo + n, lo + j});
    return;
  }
  // lcs[i][j]: the LCS length of a's middle from i and b's middle from j.
  std::vector<std::uint32_t> lcs((n + 1) * (m + 1), 0);
  const auto at = [&lcs, m](std::size_t i, std::size_t j) -> std::uint32_t& {
    return lcs[i * (m + 1) + j];
  };
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t j = m; j-- > 0;) {
      at(i, j) = a[lo + i] == b[lo + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    }
  }
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[lo + i] == b[lo + j]) {
      edits.push_back({Op::Keep, lo + i++, lo + j++});
    } else if (j == m || (i < n && at(i + 1, j) >= at(i, j + 1))) {
      edits.push_back({Op::Remove, lo + i++, lo + j});
    } else {
      edits.push_back({Op::Add, lo + i, lo + j++});
    }
  }
}

std::string range(std::size_t start, std::size_t count) {
  // GNU diff: an empty range names the line before it; a one-line range has no count.
  if (count == 0) return std::to_string(start) + ",0";
  if (count == 1) return std::to_string(start + 1);
  return std::to_string(start + 1) + "," + std::to_string(count);
}

// One hunk: edits[first, last) plus their context.
std::string hunk(const std::vector<Edit>& edits, const std::vector<std::string_view>& a,
                 const std::vector<std::string_view>& b, std::size_t first, std::size_t last) {
  std::size_t aCount = 0;
  std::size_t bCount = 0;
  std::string body;
  for (std::size_t k = first; k < last; ++k) {
    const Edit& e = edits[k];
    if (e.op == Op::Keep) {
      body += " " + std::string(a[e.a]) + "\n";
      ++aCount;
      ++bCount;
    } else if (e.op == Op::Remove) {
      body += "-" + std::string(a[e.a]) + "\n";
      ++aCount;
    } else {
      body += "+" + std::string(b[e.b]) + "\n";
      ++bCount;
    }
  }
  return "@@ -" + range(edits[first].a, aCount) + " +" + range(edits[first].b, bCount) + " @@\n" +
         body;
}

}  // namespace

std::string unified_diff(std::string_view before, std::string_view after,
                         std::string_view beforeLabel, std::string_view afterLabel) {
  if (before == after) return "";
  const std::vector<std::string_view> a = split_lines(before);
  const std::vector<std::string_view> b = split_lines(after);
  std::size_t lo = 0;
  while (lo < a.size() && lo < b.size() && a[lo] == b[lo]) ++lo;
  std::size_t hi = 0;
  while (hi < a.size() - lo && hi < b.size() - lo && a[a.size() - 1 - hi] == b[b.size() - 1 - hi]) ++hi;
  std::vector<Edit> edits;
  for (std::size_t i = 0; i < lo; ++i) edits.push_back({Op::Keep, i, i});
  diff_middle(a, b, lo, hi, edits);
  for (std::size_t k = hi; k-- > 0;) edits.push_back({Op::Keep, a.size() - 1 - k, b.size() - 1 - k});
  std::string out = "--- " + std::string(beforeLabel) + "\n+++ " + std::string(afterLabel) + "\n";
  // Group changes whose separating unchanged run is short enough to share context.
  std::size_t k = 0;
  while (k < edits.size()) {
    while (k < edits.size() && edits[k].op == Op::Keep) ++k;
    if (k == edits.size()) break;
    const std::size_t first = k >= kContext ? k - kContext : 0;
    std::size_t end = k;  // one past the last change of this hunk
    std::size_t scan = k;
    while (scan < edits.size()) {
      if (edits[scan].op != Op::Keep) {
        end = ++scan;
        continue;
      }
      std::size_t run = scan;
      while (run < edits.size() && edits[run].op == Op::Keep) ++run;
      if (run == edits.size() || run - scan > 2 * kContext) break;
      scan = run;
    }
    const std::size_t last = std::min(end + kContext, edits.size());
    out += hunk(edits, a, b, first, last);
    k = end;
  }
  // Only a difference in the final newline: the lines are equal, say so.
  if (out.find("\n@@") == std::string::npos) out += "(the files differ only in the final newline)\n";
  return out;
}

}  // namespace hasim::raft::rafttest
