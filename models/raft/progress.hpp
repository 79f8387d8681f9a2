#pragma once
// tracker.Progress and tracker.StateType (etcd-io/raft tracker/progress.go, state.go): a
// leader's view of one follower's log, and the flow-control state that decides what it sends
// that follower next.
//
// Ownership: upstream's ProgressMap holds *Progress and each Progress an *Inflights; here a
// ProgressMap holds Progress values and each Progress its Inflights by value. The raft core
// mutates a follower's progress through a reference (`Progress& pr = trk.progress.at(id)`;
// std::map references stay valid while other entries come and go). confchange works on a
// copy of the map and the caller installs the copy, which is upstream's copy-on-write; the
// one difference, that upstream's shallow copy shares the Inflights with the original,
// cannot be observed because the original is dropped as soon as the copy is installed.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "models/raft/inflights.hpp"
#include "models/raft/raftpb.hpp"

namespace hasim::raft {

// tracker.StateType.
enum class ProgressStateType : std::uint8_t { StateProbe = 0, StateReplicate = 1, StateSnapshot = 2 };

// "StateProbe", "StateReplicate", "StateSnapshot".
std::string_view name(ProgressStateType state);

struct Progress {
  // The follower's log matches the leader's up to here.
  Index match = 0;
  // The next index to send. Invariant: match < next (so next >= 1); entries in (match, next)
  // are in flight. In StateSnapshot, next == pendingSnapshot + 1.
  Index next = 0;
  // The highest commit index sent to the follower. Mostly monotonic; regresses on probing or
  // a rejection. In StateSnapshot it equals pendingSnapshot. (Unexported upstream: the raft
  // core sets it through sent_commit().)
  Index sentCommit = 0;
  ProgressStateType state = ProgressStateType::StateProbe;
  // In StateSnapshot: the leader's last index when it decided a snapshot was needed.
  Index pendingSnapshot = 0;
  // Heard from recently (reset each election timeout by CheckQuorum); always true on the
  // leader itself.
  bool recentActive = false;
  // MsgApp flow to this follower is throttled (StateProbe after a probe, or StateReplicate
  // with a full window) until a heartbeat response or an ack arrives.
  bool msgAppFlowPaused = false;
  // The in-flight MsgApp window.
  Inflights inflights;
  bool isLearner = false;

  // Enters `state` with a clean slate: not paused, no pending snapshot, nothing in flight.
  void reset_state(ProgressStateType newState);
  // Probe from match+1, or from just past a pending snapshot if that is further along.
  void become_probe();
  // Replicate optimistically from match+1.
  void become_replicate();
  // Wait for the snapshot at snapshoti.
  void become_snapshot(Index snapshoti);
  // A MsgApp carrying `entries` entries (`bytes` in total) was sent from next on. Only in
  // StateProbe or StateReplicate.
  void sent_entries(int entries, std::uint64_t bytes);
  // Whether sending commit index `index` could move the follower's commit index forward.
  bool can_bump_commit(Index index) const;
  // Records the commit index just sent (Go: SentCommit).
  void sent_commit(Index commit);
  // An MsgAppResp acknowledged n: false if it is stale, else match (and next) move up.
  bool maybe_update(Index n);
  // An MsgApp at `rejected` was refused with hint matchHint: false if the rejection is stale,
  // else next moves back sensibly and sending resumes.
  bool maybe_decr_to(Index rejected, Index matchHint);
  // Whether sending entries to this follower is throttled now.
  bool is_paused() const;
  // "StateReplicate match=5 next=6 learner paused pendingSnap=3 inactive inflight=2[full]":
  // upstream's String(), the optional words only when they apply.
  std::string to_string() const;
};

// tracker.ProgressMap: every tracked peer's Progress, by ID (ordered, so walks are in ID
// order). A std::map with upstream's String().
class ProgressMap : public std::map<PeerId, Progress> {
 public:
  using std::map<PeerId, Progress>::map;
  // One "ID: progress" line per peer, in ID order (IDs in decimal).
  std::string to_string() const;
};

}  // namespace hasim::raft
