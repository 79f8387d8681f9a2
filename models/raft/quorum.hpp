#pragma once
// Majority and joint quorums (etcd-io/raft quorum/): which log index a group of voters has
// committed, and how an election among them turns out. The raft core asks these questions
// through ProgressTracker (tracker.hpp); the quorum transcripts (quorum/testdata) ask them
// directly and print describe()'s table.
//
// A Go MajorityConfig is a map used as a set; here it is an ordered set, so every walk over
// its members is in ID order and nothing depends on hash order. Go's nil and empty maps are
// both "no members" here: upstream never tells them apart in what it computes or prints for
// a voter set (see Config in tracker.hpp for the learner sets).
#include <array>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "models/raft/raftpb.hpp"

namespace hasim::raft {

// quorum.VoteResult. The values are upstream's (1, 2, 3); 0 is not a result.
enum class VoteResult : std::uint8_t { VotePending = 1, VoteLost = 2, VoteWon = 3 };

// Upstream's stringer names: "VotePending", "VoteLost", "VoteWon".
std::string_view name(VoteResult result);

// quorum.Index.String(): the decimal index, or "∞" for the largest index (what an empty
// majority reports as committed, so that it never holds back the other half of a joint one).
std::string index_to_string(Index index);
inline constexpr Index kInfiniteIndex = ~Index{0};

// quorum.AckedIndexer: the index each voter has acknowledged; nullopt for a voter the
// indexer knows nothing about (different from an acknowledged index of 0).
class AckedIndexer {
 public:
  virtual ~AckedIndexer() = default;
  virtual std::optional<Index> acked_index(PeerId voterId) const = 0;
};

// quorum.mapAckIndexer: an AckedIndexer over a plain map (tests and transcripts).
class MapAckIndexer final : public AckedIndexer {
 public:
  MapAckIndexer() = default;
  explicit MapAckIndexer(std::map<PeerId, Index> acked) : acked_(std::move(acked)) {}
  MapAckIndexer(std::initializer_list<std::pair<const PeerId, Index>> acked) : acked_(acked) {}
  std::optional<Index> acked_index(PeerId voterId) const override;
  std::map<PeerId, Index>& map() { return acked_; }
  const std::map<PeerId, Index>& map() const { return acked_; }

 private:
  std::map<PeerId, Index> acked_;
};

// Yes (true) or no (false) votes by voter; a voter absent from the map has not voted.
using VoteMap = std::map<PeerId, bool>;

// quorum.MajorityConfig: a set of voters deciding by simple majority.
class MajorityConfig {
 public:
  MajorityConfig() = default;
  MajorityConfig(std::initializer_list<PeerId> ids) : ids_(ids) {}
  explicit MajorityConfig(std::set<PeerId> ids) : ids_(std::move(ids)) {}

  // Set operations (Go: c[id] = struct{}{}, delete(c, id), _, ok := c[id], len(c)).
  void insert(PeerId id) { ids_.insert(id); }
  void erase(PeerId id) { ids_.erase(id); }
  void clear() { ids_.clear(); }
  bool contains(PeerId id) const { return ids_.contains(id); }
  std::size_t size() const { return ids_.size(); }
  bool empty() const { return ids_.empty(); }
  std::set<PeerId>::const_iterator begin() const { return ids_.begin(); }
  std::set<PeerId>::const_iterator end() const { return ids_.end(); }
  const std::set<PeerId>& ids() const { return ids_; }
  bool operator==(const MajorityConfig&) const = default;

  // "(1 2 3)": the members in ascending order, in hexadecimal as upstream prints them.
  std::string to_string() const;
  // The multi-line table of acknowledged indexes upstream's Describe prints (one row per
  // voter in ID order, with a bar whose length ranks its index among the others).
  std::string describe(const AckedIndexer& l) const;
  // The members in ascending order.
  std::vector<PeerId> slice() const;
  // The largest index acknowledged by a majority; kInfiniteIndex for the empty config.
  Index committed_index(const AckedIndexer& l) const;
  // Won once a majority said yes, lost once a majority can no longer say yes, else pending.
  // The empty config wins (so that a joint config with an empty half acts as the other).
  VoteResult vote_result(const VoteMap& votes) const;

 private:
  std::set<PeerId> ids_;
};

// quorum.JointConfig: the incoming majority [0] and the outgoing one [1]; a decision needs
// both. Outside joint consensus the outgoing half is empty.
class JointConfig {
 public:
  JointConfig() = default;
  JointConfig(MajorityConfig incoming, MajorityConfig outgoing)
      : configs_{std::move(incoming), std::move(outgoing)} {}

  MajorityConfig& operator[](std::size_t i) { return configs_.at(i); }
  const MajorityConfig& operator[](std::size_t i) const { return configs_.at(i); }
  bool operator==(const JointConfig&) const = default;

  // "(1 2 3)" or, when the outgoing half has members, "(1 2 3)&&(1 2)".
  std::string to_string() const;
  // Every voter of either half.
  std::set<PeerId> ids() const;
  // describe() of the union of both halves.
  std::string describe(const AckedIndexer& l) const;
  // The smaller of the two halves' committed indexes.
  Index committed_index(const AckedIndexer& l) const;
  // Both halves must win; either losing loses.
  VoteResult vote_result(const VoteMap& votes) const;

 private:
  std::array<MajorityConfig, 2> configs_;
};

// A second, deliberately naive computation of MajorityConfig::committed_index (count, for
// each acknowledged index, the voters at or above it, and take the largest index a majority
// reaches). Upstream keeps it beside its quick test (quorum/quick_test.go); the quorum
// transcripts cross-check every case against it, and so does the RapidCheck property.
Index naive_committed_index(const MajorityConfig& c, const AckedIndexer& l);

}  // namespace hasim::raft
