// The configuration and the progress of its peers; upstream: tracker/tracker.go.
#include "models/raft/tracker.hpp"

#include "sim/assert.hpp"

namespace hasim::raft {

std::string TrackerConfig::to_string() const {
  std::string out = "voters=" + voters.to_string();
  if (!learners.empty()) out += " learners=" + MajorityConfig(learners).to_string();
  if (!learnersNext.empty()) out += " learners_next=" + MajorityConfig(learnersNext).to_string();
  if (autoLeave) out += " autoleave";
  return out;
}

TrackerConfig TrackerConfig::clone() const {
  TrackerConfig copy;
  copy.voters = voters;
  copy.learners = learners;
  copy.learnersNext = learnersNext;
  return copy;
}

std::optional<Index> MatchAckIndexer::acked_index(PeerId id) const {
  const auto it = progress_.find(id);
  if (it == progress_.end()) return std::nullopt;
  return it->second.match;
}

ProgressTracker::ProgressTracker(int maxInflightMsgs, std::uint64_t maxBytes)
    : maxInflight(maxInflightMsgs), maxInflightBytes(maxBytes) {
  HASIM_ASSERT(maxInflightMsgs >= 0);
}

ConfState ProgressTracker::conf_state() const {
  ConfState cs;
  cs.voters = config.voters[0].slice();
  cs.votersOutgoing = config.voters[1].slice();
  cs.learners.assign(config.learners.begin(), config.learners.end());
  cs.learnersNext.assign(config.learnersNext.begin(), config.learnersNext.end());
  cs.autoLeave = config.autoLeave;
  return cs;
}

bool ProgressTracker::is_singleton() const {
  return config.voters[0].size() == 1 && config.voters[1].empty();
}

Index ProgressTracker::committed() const {
  return config.voters.committed_index(MatchAckIndexer(progress));
}

bool ProgressTracker::quorum_active() const {
  VoteMap active;
  visit([&active](PeerId id, const Progress& pr) {
    if (!pr.isLearner) active[id] = pr.recentActive;
  });
  return config.voters.vote_result(active) == VoteResult::VoteWon;
}

std::vector<PeerId> ProgressTracker::voter_nodes() const {
  const std::set<PeerId> ids = config.voters.ids();
  return {ids.begin(), ids.end()};
}

std::vector<PeerId> ProgressTracker::learner_nodes() const {
  return {config.learners.begin(), config.learners.end()};
}

void ProgressTracker::reset_votes() { votes.clear(); }

void ProgressTracker::record_vote(PeerId id, bool v) { votes.try_emplace(id, v); }

TallyResult ProgressTracker::tally_votes() const {
  // Count only tracked voters, even if votes holds peers since removed (the counts are
  // informational, but upstream gets them right all the same).
  TallyResult tally;
  for (const auto& [id, pr] : progress) {
    if (pr.isLearner) continue;
    const auto it = votes.find(id);
    if (it == votes.end()) continue;
    if (it->second) {
      ++tally.granted;
    } else {
      ++tally.rejected;
    }
  }
  tally.result = config.voters.vote_result(votes);
  return tally;
}

}  // namespace hasim::raft
