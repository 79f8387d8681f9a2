#pragma once
// tracker.Config and tracker.ProgressTracker (etcd-io/raft tracker/tracker.go): the active
// configuration (voters, possibly joint, and learners) and the leader's Progress for every
// peer in it, from which it derives the committed index, election results and whether a
// quorum is active.
//
// tracker.Config is TrackerConfig here, since hasim::raft::Config is raft.Config (config.hpp).
// Upstream embeds it in ProgressTracker (r.trk.Voters); here it is the member `config`
// (trk.config.voters). Go's nil learner sets are the empty set here: the changer never
// leaves an empty non-nil set behind (nilAwareDelete), so upstream prints " learners=..."
// exactly when the set has members, as to_string() does.
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "models/raft/progress.hpp"
#include "models/raft/quorum.hpp"
#include "models/raft/raftpb.hpp"

namespace hasim::raft {

struct TrackerConfig {
  JointConfig voters;
  // Joint, and raft should leave the joint state on its own as soon as it can.
  bool autoLeave = false;
  // Learners; never also voters (in either half).
  std::set<PeerId> learners;
  // Voters of the outgoing half that become learners when the joint state is left (a demoted
  // voter cannot be a learner while it still votes).
  std::set<PeerId> learnersNext;

  bool operator==(const TrackerConfig&) const = default;

  // "voters=(1 2)&&(1) learners=(3) learners_next=(4) autoleave".
  std::string to_string() const;
  // Upstream's Clone(): a copy of the voters and learner sets. Like upstream's, it does NOT
  // carry autoLeave over (the changer sets it itself; status.go's copy shows it false).
  TrackerConfig clone() const;
};

// ProgressTracker::tally_votes(): informational counts plus the outcome.
struct TallyResult {
  int granted = 0;
  int rejected = 0;
  VoteResult result = VoteResult::VotePending;
};

// quorum.AckedIndexer over a ProgressMap: a peer's acknowledged index is its match (Go:
// matchAckIndexer).
class MatchAckIndexer final : public AckedIndexer {
 public:
  explicit MatchAckIndexer(const ProgressMap& progress) : progress_(progress) {}
  std::optional<Index> acked_index(PeerId id) const override;

 private:
  const ProgressMap& progress_;
};

class ProgressTracker {
 public:
  // Go's zero ProgressTracker (no in-flight room), so that an owner can assign one later.
  ProgressTracker() = default;
  // MakeProgressTracker: an empty configuration (a non-joint, empty voter set).
  ProgressTracker(int maxInflight, std::uint64_t maxInflightBytes);

  TrackerConfig config;
  ProgressMap progress;
  VoteMap votes;
  int maxInflight = 0;
  std::uint64_t maxInflightBytes = 0;

  // The active configuration as a ConfState (sorted ID lists).
  ConfState conf_state() const;
  // Exactly one voter and not joint.
  bool is_singleton() const;
  // The largest index a quorum of voters has matched.
  Index committed() const;
  // Calls f(id, progress) for every tracked peer in ascending ID order.
  template <typename F>
  void visit(F&& f) {
    for (auto& [id, pr] : progress) f(id, pr);
  }
  template <typename F>
  void visit(F&& f) const {
    for (const auto& [id, pr] : progress) f(id, pr);
  }
  // Whether the voters heard from recently (recentActive) form a quorum.
  bool quorum_active() const;
  // The voters (both halves), ascending.
  std::vector<PeerId> voter_nodes() const;
  // The learners, ascending.
  std::vector<PeerId> learner_nodes() const;
  // Forgets the votes of the last election.
  void reset_votes();
  // Records id's vote (v: granted); a peer's first vote in an election is the one that counts.
  void record_vote(PeerId id, bool v);
  // Granted and rejected votes of tracked voters, and the election's outcome.
  TallyResult tally_votes() const;
};

// Go's MakeProgressTracker, for a mechanical translation of upstream's call sites.
inline ProgressTracker make_progress_tracker(int maxInflight, std::uint64_t maxInflightBytes) {
  return ProgressTracker(maxInflight, maxInflightBytes);
}

}  // namespace hasim::raft
