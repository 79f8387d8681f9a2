// Configuration changes; upstream: confchange/confchange.go and confchange/restore.go.
#include "models/raft/confchange.hpp"

#include <algorithm>
#include <iterator>

#include "sim/assert.hpp"

namespace hasim::raft {
namespace {

ChangeResult failure(std::string err) {
  HASIM_ASSERT(!err.empty());
  ChangeResult result;
  result.err = std::move(err);
  return result;
}

bool joint(const TrackerConfig& cfg) { return !cfg.voters[1].empty(); }
MajorityConfig& incoming(TrackerConfig& cfg) { return cfg.voters[0]; }
MajorityConfig& outgoing(TrackerConfig& cfg) { return cfg.voters[1]; }
const MajorityConfig& outgoing(const TrackerConfig& cfg) { return cfg.voters[1]; }

// The config and progress map must agree: every member has a Progress, staged learners are
// outgoing voters not yet marked learner, learners vote in neither half and are marked as
// learners, and a non-joint config has no outgoing half, no staged learners, no autoLeave.
// Upstream walks Go maps (random order); the ID order here picks which error is reported.
std::string check_invariants(const TrackerConfig& cfg, const ProgressMap& trk) {
  const std::set<PeerId> voters = cfg.voters.ids();
  for (const std::set<PeerId>* ids : {&voters, &cfg.learners, &cfg.learnersNext}) {
    for (const PeerId id : *ids) {
      if (!trk.contains(id)) return "no progress for " + std::to_string(id);
    }
  }
  for (const PeerId id : cfg.learnersNext) {
    if (!outgoing(cfg).contains(id)) return std::to_string(id) + " is in LearnersNext, but not Voters[1]";
    if (trk.at(id).isLearner) {
      return std::to_string(id) + " is in LearnersNext, but is already marked as learner";
    }
  }
  for (const PeerId id : cfg.learners) {
    if (outgoing(cfg).contains(id)) return std::to_string(id) + " is in Learners and Voters[1]";
    if (cfg.voters[0].contains(id)) return std::to_string(id) + " is in Learners and Voters[0]";
    if (!trk.at(id).isLearner) {
      return std::to_string(id) + " is in Learners, but is not marked as learner";
    }
  }
  if (!joint(cfg)) {
    // Upstream also demands a nil (not merely empty) outgoing half here; with sets, empty is
    // all there is, and !joint(cfg) already says it is empty.
    if (!cfg.learnersNext.empty()) return "cfg.LearnersNext must be nil when not joint";
    if (cfg.autoLeave) return "AutoLeave must be false when not joint";
  }
  return "";
}

ChangeResult check_and_return(TrackerConfig cfg, ProgressMap trk) {
  std::string err = check_invariants(cfg, trk);
  if (!err.empty()) return failure(std::move(err));
  return ChangeResult{std::move(cfg), std::move(trk), ""};
}

// The working copy every operation starts from (upstream's checkAndCopy). TrackerConfig::clone()
// drops autoLeave, as upstream's Clone does.
ChangeResult check_and_copy(const ProgressTracker& tracker) {
  return check_and_return(tracker.config.clone(), tracker.progress);
}

// |l - r| + |r - l|.
std::size_t symdiff(const MajorityConfig& l, const MajorityConfig& r) {
  std::vector<PeerId> diff;
  std::set_symmetric_difference(l.begin(), l.end(), r.begin(), r.end(), std::back_inserter(diff));
  return diff.size();
}

// Applies changes to a working copy; voters always change in the incoming half.
class Applier {
 public:
  Applier(const Changer& changer, TrackerConfig& cfg, ProgressMap& trk)
      : changer_(changer), cfg_(cfg), trk_(trk) {}

  std::string apply(const std::vector<ConfChangeSingle>& ccs);

 private:
  void make_voter(PeerId id);
  void make_learner(PeerId id);
  void remove(PeerId id);
  void init_progress(PeerId id, bool isLearner);

  const Changer& changer_;
  TrackerConfig& cfg_;
  ProgressMap& trk_;
};

std::string Applier::apply(const std::vector<ConfChangeSingle>& ccs) {
  for (const ConfChangeSingle& cc : ccs) {
    // etcd zeroes the node ID of a change it decided (above raft) not to apply.
    if (cc.nodeId == None) continue;
    switch (cc.type) {
      case ConfChangeType::ConfChangeAddNode: make_voter(cc.nodeId); break;
      case ConfChangeType::ConfChangeAddLearnerNode: make_learner(cc.nodeId); break;
      case ConfChangeType::ConfChangeRemoveNode: remove(cc.nodeId); break;
      case ConfChangeType::ConfChangeUpdateNode: break;
      default:
        return "unexpected conf type " + std::to_string(static_cast<int>(cc.type));
    }
  }
  if (incoming(cfg_).empty()) return "removed all voters";
  return "";
}

// Adds id as a voter of the incoming half, or promotes it if it is tracked already.
void Applier::make_voter(PeerId id) {
  const auto it = trk_.find(id);
  if (it == trk_.end()) {
    init_progress(id, /*isLearner=*/false);
    return;
  }
  it->second.isLearner = false;
  cfg_.learners.erase(id);
  cfg_.learnersNext.erase(id);
  incoming(cfg_).insert(id);
}

// Makes id a learner, or, while it still votes in the outgoing half, stages it in
// learnersNext so that it never counts as voter and learner at once; leave_joint turns it
// into a learner.
void Applier::make_learner(PeerId id) {
  const auto it = trk_.find(id);
  if (it == trk_.end()) {
    init_progress(id, /*isLearner=*/true);
    return;
  }
  if (it->second.isLearner) return;
  // Drop it as a voter of the incoming half but keep its Progress (remove() may erase it).
  Progress kept = it->second;
  remove(id);
  Progress& pr = trk_.insert_or_assign(id, std::move(kept)).first->second;
  if (outgoing(cfg_).contains(id)) {
    cfg_.learnersNext.insert(id);
  } else {
    pr.isLearner = true;
    cfg_.learners.insert(id);
  }
}

// Removes id as voter or learner of the incoming half; its Progress stays while it still
// votes in the outgoing half.
void Applier::remove(PeerId id) {
  if (!trk_.contains(id)) return;
  incoming(cfg_).erase(id);
  cfg_.learners.erase(id);
  cfg_.learnersNext.erase(id);
  if (!outgoing(cfg_).contains(id)) trk_.erase(id);
}

void Applier::init_progress(PeerId id, bool isLearner) {
  HASIM_ASSERT(!trk_.contains(id));
  if (!isLearner) {
    incoming(cfg_).insert(id);
  } else {
    cfg_.learners.insert(id);
  }
  Progress pr;
  // Probing from the last index assumes the new peer can take the leader's log from there
  // (upstream's TODO calls this optimistic; a snapshot follows if not). match < next.
  pr.match = 0;
  pr.next = std::max<Index>(changer_.lastIndex, 1);
  pr.inflights = Inflights(changer_.tracker.maxInflight, changer_.tracker.maxInflightBytes);
  pr.isLearner = isLearner;
  // A newly added peer counts as recently active, or CheckQuorum could depose the leader
  // before the peer had a chance to answer.
  pr.recentActive = true;
  trk_.emplace(id, std::move(pr));
}

}  // namespace

ChangeResult Changer::enter_joint(bool autoLeave, const std::vector<ConfChangeSingle>& ccs) const {
  ChangeResult work = check_and_copy(tracker);
  if (!work.ok()) return work;
  if (joint(work.cfg)) return failure("config is already joint");
  // An empty config may grow by simple changes (bootstrap, tests) but cannot go joint.
  if (incoming(work.cfg).empty()) return failure("can't make a zero-voter config joint");
  outgoing(work.cfg) = incoming(work.cfg);
  std::string err = Applier(*this, work.cfg, work.progress).apply(ccs);
  if (!err.empty()) return failure(std::move(err));
  work.cfg.autoLeave = autoLeave;
  return check_and_return(std::move(work.cfg), std::move(work.progress));
}

ChangeResult Changer::leave_joint() const {
  ChangeResult work = check_and_copy(tracker);
  if (!work.ok()) return work;
  TrackerConfig& cfg = work.cfg;
  if (!joint(cfg)) return failure("can't leave a non-joint config");
  for (const PeerId id : cfg.learnersNext) {
    cfg.learners.insert(id);
    work.progress.at(id).isLearner = true;
  }
  cfg.learnersNext.clear();
  // Outgoing voters that are neither incoming voters nor learners now are gone.
  for (const PeerId id : outgoing(cfg)) {
    if (!incoming(cfg).contains(id) && !cfg.learners.contains(id)) work.progress.erase(id);
  }
  outgoing(cfg).clear();
  cfg.autoLeave = false;
  return check_and_return(std::move(cfg), std::move(work.progress));
}

ChangeResult Changer::simple(const std::vector<ConfChangeSingle>& ccs) const {
  ChangeResult work = check_and_copy(tracker);
  if (!work.ok()) return work;
  if (joint(work.cfg)) return failure("can't apply simple config change in joint config");
  std::string err = Applier(*this, work.cfg, work.progress).apply(ccs);
  if (!err.empty()) return failure(std::move(err));
  if (symdiff(tracker.config.voters[0], incoming(work.cfg)) > 1) {
    return failure("more than one voter changed without entering joint config");
  }
  return check_and_return(std::move(work.cfg), std::move(work.progress));
}

namespace {

// A ConfState as two lists of changes (upstream's toConfChangeSingle): `out` builds, from an
// empty config, the voters that will be the outgoing half; `in`, applied on top while
// entering the joint state, removes those again and adds the incoming voters, the learners
// and the staged learners. For a non-joint ConfState `out` is empty and `in` is the config.
void to_conf_change_single(const ConfState& cs, std::vector<ConfChangeSingle>& out,
                           std::vector<ConfChangeSingle>& in) {
  using enum ConfChangeType;
  for (const PeerId id : cs.votersOutgoing) out.push_back({ConfChangeAddNode, id});
  for (const PeerId id : cs.votersOutgoing) in.push_back({ConfChangeRemoveNode, id});
  for (const PeerId id : cs.voters) in.push_back({ConfChangeAddNode, id});
  for (const PeerId id : cs.learners) in.push_back({ConfChangeAddLearnerNode, id});
  for (const PeerId id : cs.learnersNext) in.push_back({ConfChangeAddLearnerNode, id});
}

}  // namespace

ChangeResult restore(const Changer& chg, const ConfState& cs) {
  std::vector<ConfChangeSingle> outgoingOps;
  std::vector<ConfChangeSingle> incomingOps;
  to_conf_change_single(cs, outgoingOps, incomingOps);
  // Each step runs against the result of the one before (upstream's chain()).
  ProgressTracker tracker = chg.tracker;
  const auto step = [&tracker](const ChangeResult& result) {
    if (result.ok()) {
      tracker.config = result.cfg;
      tracker.progress = result.progress;
    }
    return result.ok();
  };
  // Non-joint: the changes one at a time. Joint: first the outgoing voters one at a time
  // (they are the active config for a moment), then enter the joint state with the rest.
  const std::vector<ConfChangeSingle>& singles = outgoingOps.empty() ? incomingOps : outgoingOps;
  for (const ConfChangeSingle& cc : singles) {
    ChangeResult result = Changer{tracker, chg.lastIndex}.simple({cc});
    if (!step(result)) return failure(std::move(result.err));
  }
  if (!outgoingOps.empty()) {
    ChangeResult result = Changer{tracker, chg.lastIndex}.enter_joint(cs.autoLeave, incomingOps);
    if (!step(result)) return failure(std::move(result.err));
  }
  return ChangeResult{tracker.config, tracker.progress, ""};
}

}  // namespace hasim::raft
