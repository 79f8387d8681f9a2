// A follower's progress as the leader sees it; upstream: tracker/progress.go, state.go.
#include "models/raft/progress.hpp"

#include <algorithm>

#include "sim/assert.hpp"

namespace hasim::raft {

std::string_view name(ProgressStateType state) {
  switch (state) {
    case ProgressStateType::StateProbe: return "StateProbe";
    case ProgressStateType::StateReplicate: return "StateReplicate";
    case ProgressStateType::StateSnapshot: return "StateSnapshot";
  }
  HASIM_ASSERT(false && "ProgressStateType out of range");
  return "";
}

void Progress::reset_state(ProgressStateType newState) {
  msgAppFlowPaused = false;
  pendingSnapshot = 0;
  state = newState;
  inflights.reset();
}

void Progress::become_probe() {
  // Leaving StateSnapshot means the snapshot went out, so probing starts just past it (or
  // past match, if that is further).
  if (state == ProgressStateType::StateSnapshot) {
    const Index snapshot = pendingSnapshot;
    reset_state(ProgressStateType::StateProbe);
    next = std::max(match + 1, snapshot + 1);
  } else {
    reset_state(ProgressStateType::StateProbe);
    next = match + 1;
  }
  sentCommit = std::min(sentCommit, next - 1);
  HASIM_ASSERT(match < next);
}

void Progress::become_replicate() {
  reset_state(ProgressStateType::StateReplicate);
  next = match + 1;
}

void Progress::become_snapshot(Index snapshoti) {
  reset_state(ProgressStateType::StateSnapshot);
  pendingSnapshot = snapshoti;
  next = snapshoti + 1;
  sentCommit = snapshoti;
}

void Progress::sent_entries(int entries, std::uint64_t bytes) {
  HASIM_ASSERT(entries >= 0);
  switch (state) {
    case ProgressStateType::StateReplicate:
      if (entries > 0) {
        next += static_cast<Index>(entries);
        inflights.add(next - 1, bytes);
      }
      // A message that fills the window (or went out with it already full) counts as a
      // probe: the flow pauses until an ack frees room.
      msgAppFlowPaused = inflights.full();
      return;
    case ProgressStateType::StateProbe:
      // Upstream pauses only on a non-empty probe (kept as is; see its TODO).
      if (entries > 0) msgAppFlowPaused = true;
      return;
    case ProgressStateType::StateSnapshot: break;
  }
  HASIM_ASSERT(false && "sending append in StateSnapshot");
}

bool Progress::can_bump_commit(Index index) const {
  // A commit index can lift the follower's up to next-1 at most in normal operation; send one
  // eagerly only if the last one sent did not already get it there.
  HASIM_ASSERT(next >= 1);
  return index > sentCommit && sentCommit < next - 1;
}

void Progress::sent_commit(Index commit) { sentCommit = commit; }

bool Progress::maybe_update(Index n) {
  if (n <= match) return false;
  match = n;
  next = std::max(next, n + 1);
  msgAppFlowPaused = false;
  HASIM_ASSERT(match < next);
  return true;
}

bool Progress::maybe_decr_to(Index rejected, Index matchHint) {
  if (state == ProgressStateType::StateReplicate) {
    // Stale if it refuses something already matched.
    if (rejected <= match) return false;
    next = match + 1;
    sentCommit = std::min(sentCommit, next - 1);
    return true;
  }
  // Outside StateReplicate one entry is probed at a time, so a genuine rejection is of
  // next-1; anything else is a reordered or duplicated message.
  if (next - 1 != rejected) return false;
  next = std::max(std::min(rejected, matchHint + 1), match + 1);
  sentCommit = std::min(sentCommit, next - 1);
  msgAppFlowPaused = false;
  HASIM_ASSERT(match < next);
  return true;
}

bool Progress::is_paused() const {
  switch (state) {
    case ProgressStateType::StateProbe:
    case ProgressStateType::StateReplicate: return msgAppFlowPaused;
    case ProgressStateType::StateSnapshot: return true;
  }
  HASIM_ASSERT(false && "ProgressStateType out of range");
  return true;
}

std::string Progress::to_string() const {
  std::string out = std::string(name(state)) + " match=" + std::to_string(match) +
                    " next=" + std::to_string(next);
  if (isLearner) out += " learner";
  if (is_paused()) out += " paused";
  if (pendingSnapshot > 0) out += " pendingSnap=" + std::to_string(pendingSnapshot);
  if (!recentActive) out += " inactive";
  if (const int n = inflights.count(); n > 0) {
    out += " inflight=" + std::to_string(n);
    if (inflights.full()) out += "[full]";
  }
  return out;
}

std::string ProgressMap::to_string() const {
  std::string out;
  for (const auto& [id, pr] : *this) out += std::to_string(id) + ": " + pr.to_string() + "\n";
  return out;
}

}  // namespace hasim::raft
