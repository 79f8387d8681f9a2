// Majority and joint quorums; upstream: quorum/quorum.go, majority.go, joint.go.
#include "models/raft/quorum.hpp"

#include <algorithm>
#include <array>
#include <charconv>

#include "sim/assert.hpp"

namespace hasim::raft {
namespace {

std::string hex(PeerId id) {
  std::array<char, 20> buf{};
  const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), id, 16);
  HASIM_ASSERT(ec == std::errc{});
  return std::string(buf.data(), end);
}

// Go's "%5d": the decimal value right-aligned in five columns (wider values are not cut).
std::string pad5(Index value) {
  std::string digits = std::to_string(value);
  if (digits.size() < 5) digits.insert(0, 5 - digits.size(), ' ');
  return digits;
}

// One voter's row of the describe() table.
struct DescribeRow {
  PeerId id = 0;
  Index idx = 0;
  bool found = false;
  std::size_t bar = 0;  // the rank of idx among the voters' indexes (equal index, equal bar)
};

// Ranks the rows by index so that the i-th smallest distinct index gets the bar of its first
// holder's position (upstream sorts by (index, id) and lets equal indexes share a bar).
void assign_bars(std::vector<DescribeRow>& rows) {
  std::sort(rows.begin(), rows.end(), [](const DescribeRow& a, const DescribeRow& b) {
    return a.idx != b.idx ? a.idx < b.idx : a.id < b.id;
  });
  for (std::size_t i = 1; i < rows.size(); ++i) {
    rows[i].bar = rows[i - 1].idx < rows[i].idx ? i : rows[i - 1].bar;
  }
  std::sort(rows.begin(), rows.end(),
            [](const DescribeRow& a, const DescribeRow& b) { return a.id < b.id; });
}

}  // namespace

std::string_view name(VoteResult result) {
  switch (result) {
    case VoteResult::VotePending: return "VotePending";
    case VoteResult::VoteLost: return "VoteLost";
    case VoteResult::VoteWon: return "VoteWon";
  }
  HASIM_ASSERT(false && "VoteResult out of range");
  return "";
}

std::string index_to_string(Index index) {
  return index == kInfiniteIndex ? std::string("∞") : std::to_string(index);
}

std::optional<Index> MapAckIndexer::acked_index(PeerId voterId) const {
  const auto it = acked_.find(voterId);
  if (it == acked_.end()) return std::nullopt;
  return it->second;
}

std::string MajorityConfig::to_string() const {
  std::string out = "(";
  for (const PeerId id : ids_) {
    if (out.size() > 1) out += ' ';
    out += hex(id);
  }
  out += ')';
  return out;
}

std::string MajorityConfig::describe(const AckedIndexer& l) const {
  if (ids_.empty()) return "<empty majority quorum>";
  const std::size_t n = ids_.size();
  std::vector<DescribeRow> rows;
  rows.reserve(n);
  for (const PeerId id : ids_) {
    const std::optional<Index> idx = l.acked_index(id);
    rows.push_back(DescribeRow{id, idx.value_or(0), idx.has_value(), 0});
  }
  assign_bars(rows);
  std::string out = std::string(n, ' ') + "    idx\n";
  for (const DescribeRow& row : rows) {
    HASIM_ASSERT(row.bar < n);
    if (!row.found) {
      out += "?" + std::string(n, ' ');
    } else {
      out += std::string(row.bar, 'x') + ">" + std::string(n - row.bar, ' ');
    }
    out += " " + pad5(row.idx) + "    (id=" + hex(row.id) + ")\n";
  }
  return out;
}

std::vector<PeerId> MajorityConfig::slice() const { return {ids_.begin(), ids_.end()}; }

Index MajorityConfig::committed_index(const AckedIndexer& l) const {
  const std::size_t n = ids_.size();
  // An empty half must not hold back a joint quorum, so it reports the largest index.
  if (n == 0) return kInfiniteIndex;
  // Voters that have not reported count as 0; sorted ascending, the entry n/2+1 places from
  // the end is the largest index a majority has reached.
  // On the stack for the usual few voters, as upstream does (it is asked on every ack).
  constexpr std::size_t kOnStack = 7;
  std::array<Index, kOnStack> small{};
  std::vector<Index> large(n > kOnStack ? n : 0, 0);
  Index* const acked = n > kOnStack ? large.data() : small.data();
  std::size_t i = 0;
  for (const PeerId id : ids_) {
    if (const std::optional<Index> idx = l.acked_index(id)) acked[i++] = *idx;
  }
  std::sort(acked, acked + n);
  const std::size_t pos = n - (n / 2 + 1);
  HASIM_ASSERT(pos < n);
  return acked[pos];
}

VoteResult MajorityConfig::vote_result(const VoteMap& votes) const {
  // By upstream's convention an empty config wins, so a half-populated joint config behaves
  // like its populated half.
  if (ids_.empty()) return VoteResult::VoteWon;
  std::size_t yes = 0;
  std::size_t missing = 0;
  for (const PeerId id : ids_) {
    const auto it = votes.find(id);
    if (it == votes.end()) {
      ++missing;
    } else if (it->second) {
      ++yes;
    }
  }
  const std::size_t quorum = ids_.size() / 2 + 1;
  if (yes >= quorum) return VoteResult::VoteWon;
  if (yes + missing >= quorum) return VoteResult::VotePending;
  return VoteResult::VoteLost;
}

std::string JointConfig::to_string() const {
  if (!configs_[1].empty()) return configs_[0].to_string() + "&&" + configs_[1].to_string();
  return configs_[0].to_string();
}

std::set<PeerId> JointConfig::ids() const {
  std::set<PeerId> all = configs_[0].ids();
  all.insert(configs_[1].begin(), configs_[1].end());
  return all;
}

std::string JointConfig::describe(const AckedIndexer& l) const {
  return MajorityConfig(ids()).describe(l);
}

Index JointConfig::committed_index(const AckedIndexer& l) const {
  return std::min(configs_[0].committed_index(l), configs_[1].committed_index(l));
}

VoteResult JointConfig::vote_result(const VoteMap& votes) const {
  const VoteResult r0 = configs_[0].vote_result(votes);
  const VoteResult r1 = configs_[1].vote_result(votes);
  if (r0 == r1) return r0;
  // Disagreeing halves: a loss on either side is final; otherwise one side still waits.
  if (r0 == VoteResult::VoteLost || r1 == VoteResult::VoteLost) return VoteResult::VoteLost;
  return VoteResult::VotePending;
}

Index naive_committed_index(const MajorityConfig& c, const AckedIndexer& l) {
  if (c.empty()) return kInfiniteIndex;
  std::vector<Index> acked;
  for (const PeerId id : c) {
    if (const std::optional<Index> idx = l.acked_index(id)) acked.push_back(*idx);
  }
  // For every acknowledged index, how many voters are at or above it.
  const std::size_t quorum = c.size() / 2 + 1;
  Index best = 0;
  for (const Index candidate : acked) {
    const auto at_or_above = static_cast<std::size_t>(std::count_if(
        acked.begin(), acked.end(), [candidate](Index idx) { return idx >= candidate; }));
    if (at_or_above >= quorum) best = std::max(best, candidate);
  }
  return best;
}

}  // namespace hasim::raft
