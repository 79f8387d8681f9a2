#pragma once
// Configuration changes (etcd-io/raft confchange/confchange.go, restore.go): validate a
// change against the active configuration and compute the configuration and progress map it
// leads to, without touching the tracker. The caller installs the result (raft's
// switchToConfig), so a refused change leaves nothing half-applied.
//
// Each operation works on a copy of the tracker's config and progress map (upstream's
// checkAndCopy) and returns the new pair, or the error text upstream returns (transcripts
// print it, so the words are upstream's).
#include <string>
#include <vector>

#include "models/raft/raftpb.hpp"
#include "models/raft/tracker.hpp"

namespace hasim::raft {

// What a change yields: the new configuration and progress map, or err (non-empty) and
// empty values.
struct ChangeResult {
  TrackerConfig cfg;
  ProgressMap progress;
  std::string err;
  bool ok() const { return err.empty(); }
};

// confchange.Changer: changes against `tracker`'s active configuration. lastIndex is the
// leader's last log index; a peer added by the change is probed from there.
struct Changer {
  const ProgressTracker& tracker;
  Index lastIndex = 0;

  // Enters a joint configuration: the outgoing half becomes a copy of the incoming one, then
  // the changes apply to the incoming half (C_{new,old} in the Raft thesis, section 4.3).
  // With autoLeave, raft leaves the joint state on its own once it can.
  ChangeResult enter_joint(bool autoLeave, const std::vector<ConfChangeSingle>& ccs) const;
  // Leaves the joint configuration: the outgoing half is dropped and the staged learners
  // (learnersNext) become learners.
  ChangeResult leave_joint() const;
  // Changes that, together, add or remove at most one voter, outside joint consensus.
  ChangeResult simple(const std::vector<ConfChangeSingle>& ccs) const;
};

// confchange.Restore: rebuilds the configuration a ConfState describes, starting from the
// changer's (empty) configuration: simple changes one by one, then a joint entry if the
// ConfState is joint.
ChangeResult restore(const Changer& chg, const ConfState& cs);

}  // namespace hasim::raft
