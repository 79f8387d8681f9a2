// raft.go, part 2: Step — the term rules every message passes first, the vote rule, the
// candidate and follower handlers, and what they call (appends, snapshots, conf changes).
#include <algorithm>
#include <utility>

#include "models/raft/confchange.hpp"
#include "models/raft/strcat.hpp"
#include "models/raft/raft.hpp"
#include "models/raft/raftpb_util.hpp"
#include "models/raft/util.hpp"
#include "sim/assert.hpp"

namespace hasim::raft {

using text::cat;
using text::hex;

namespace {

bool is_vote_request(MessageType t) { return t == MessageType::MsgVote || t == MessageType::MsgPreVote; }

Message reply(const Message& to, MessageType type) {
  Message m;
  m.to = to.from;
  m.type = type;
  return m;
}

// "[logterm: 1, index: 2, vote: 0] cast MsgVote for 1 [...]": verb "cast" takes "for",
// "rejected" and "ignored" take "from".
std::string vote_line(PeerId id, const EntryID& last, PeerId vote, std::string_view verb,
                      const Message& m, Term term) {
  const std::string_view preposition = verb == "cast" ? " for " : " from ";
  return cat(hex(id), " [logterm: ", last.term, ", index: ", last.index, ", vote: ", hex(vote),
             "] ", verb, " ", name(m.type), preposition, hex(m.from), " [logterm: ", m.logTerm,
             ", index: ", m.index, "] at term ", term);
}

}  // namespace

// The term rules (raft.go Step, before the switch on the type). Returns false when the
// message is finished with (dropped or answered), true when Step goes on with it.
bool Raft::step_term_check(const Message& m) {
  if (m.term == 0) return true;  // local message
  if (m.term > term) {
    if (is_vote_request(m.type)) {
      const bool force = m.context == kCampaignTransfer;
      // CheckQuorum's vote lease: a member that heard from a leader within the election
      // timeout ignores vote requests, so a partitioned member rejoining with a higher term
      // cannot depose a healthy leader (raft thesis §4.2.3).
      const bool inLease = checkQuorum && lead != None && electionElapsed < electionTimeout;
      if (!force && inLease) {
        const EntryID last = raftLog.last_entry_id();
        log().info(cat(vote_line(id, last, vote, "ignored", m, term),
                       ": lease is not expired (remaining ticks: ", electionTimeout - electionElapsed,
                       ")"));
        return false;
      }
    }
    if (m.type == MessageType::MsgPreVote) {
      // A PreVote never changes our term.
    } else if (m.type == MessageType::MsgPreVoteResp && !m.reject) {
      // A granted PreVote answers with the future term; we adopt it only once the vote wins.
    } else {
      log().info(cat(hex(id), " [term: ", term, "] received a ", name(m.type),
                     " message with higher term from ", hex(m.from), " [term: ", m.term, "]"));
      const bool fromLeader = m.type == MessageType::MsgApp ||
                              m.type == MessageType::MsgHeartbeat || m.type == MessageType::MsgSnap;
      // Paper mode: a follower or candidate that only learns of a newer term keeps its timer
      // (Config::keepElectionTimerOnNewTerm); a leader had none running and starts one.
      const bool keepTimer =
          keepElectionTimerOnNewTerm && !fromLeader && state != StateType::StateLeader;
      const int elapsed = electionElapsed;
      const int randomized = randomizedElectionTimeout;
      become_follower(m.term, fromLeader ? m.from : None);
      if (keepTimer) {
        electionElapsed = elapsed;
        randomizedElectionTimeout = randomized;
      }
    }
    return true;
  }
  if (m.term < term) {
    if ((checkQuorum || preVote) &&
        (m.type == MessageType::MsgHeartbeat || m.type == MessageType::MsgApp)) {
      // A stale leader (e.g. after a partition) would never learn of the new term if we
      // dropped its messages: with CheckQuorum or PreVote nobody else bumps its term. Answer
      // so that it steps down.
      send(reply(m, MessageType::MsgAppResp));
    } else if (m.type == MessageType::MsgPreVote) {
      // Reject explicitly so the pre-candidate learns of the newer term.
      const EntryID last = raftLog.last_entry_id();
      log().info(vote_line(id, last, vote, "rejected", m, term));
      Message r = reply(m, MessageType::MsgPreVoteResp);
      r.term = term;
      r.reject = true;
      send(std::move(r));
    } else if (m.type == MessageType::MsgStorageAppendResp) {
      // The append was stable even though the term moved on; a snapshot in it still counts.
      if (m.index != 0) {
        log().info(cat(hex(id), " [term: ", term, "] ignored entry appends from a ", name(m.type),
                       " message with lower term [term: ", m.term, "]"));
      }
      if (m.snapshot) applied_snap(*m.snapshot);
    } else {
      log().info(cat(hex(id), " [term: ", term, "] ignored a ", name(m.type),
                     " message with lower term from ", hex(m.from), " [term: ", m.term, "]"));
    }
    return false;
  }
  return true;
}

RaftError Raft::step(Message m) { return step_taken(m); }

RaftError Raft::step_taken(Message& m) {
  const Term before = term;
  const RaftError err = step_message(m);
  HASIM_ASSERT(term >= before);  // terms only grow
  assert_invariants();
  return err;
}

RaftError Raft::step_message(Message& m) {
  if (!step_term_check(m)) return RaftError::Ok;
  switch (m.type) {
    case MessageType::MsgHup:
      hup(preVote ? CampaignType::campaignPreElection : CampaignType::campaignElection);
      break;
    case MessageType::MsgStorageAppendResp:
      if (m.index != 0) raftLog.stable_to(EntryID{m.logTerm, m.index});
      if (m.snapshot) applied_snap(*m.snapshot);
      break;
    case MessageType::MsgStorageApplyResp:
      if (!m.entries.empty()) {
        applied_to(m.entries.back().index, ents_size(m.entries));
        reduce_uncommitted_size(payloads_size(m.entries));
      }
      break;
    case MessageType::MsgVote:
    case MessageType::MsgPreVote:
      step_vote(m);
      break;
    default:
      return step_by_role(m);
  }
  return RaftError::Ok;
}

// The vote rule (raft.go Step, case MsgVote/MsgPreVote).
void Raft::step_vote(const Message& m) {
  // We can vote if this is a repeat of a vote we cast, if we have not voted and know of no
  // leader in this term, or if this is a PreVote for a future term.
  const bool canVote = vote == m.from || (vote == None && lead == None) ||
                       (m.type == MessageType::MsgPreVote && m.term > term);
  const EntryID lastID = raftLog.last_entry_id();
  const EntryID candLastID{m.logTerm, m.index};
  // ... and the candidate's log is at least as up to date as ours (Raft §5.4.1).
  if (canVote && raftLog.is_up_to_date(candLastID)) {
    log().info(vote_line(id, lastID, vote, "cast", m, term));
    // The response carries the message's term, not ours: for a PreVote that is the future
    // term the candidate will campaign at.
    Message r = reply(m, vote_resp_msg_type(m.type));
    r.term = m.term;
    send(std::move(r));
    if (m.type == MessageType::MsgVote) {
      electionElapsed = 0;  // only a real vote resets the timer
      vote = m.from;
    }
  } else {
    log().info(vote_line(id, lastID, vote, "rejected", m, term));
    Message r = reply(m, vote_resp_msg_type(m.type));
    r.term = term;
    r.reject = true;
    send(std::move(r));
  }
}

RaftError Raft::step_by_role(Message& m) {
  switch (state) {
    case StateType::StateLeader:
      return step_leader(m);
    case StateType::StateCandidate:
    case StateType::StatePreCandidate:
      return step_candidate(m);
    case StateType::StateFollower:
      return step_follower(m);
  }
  HASIM_ASSERT(false);
  return RaftError::Ok;
}

RaftError Raft::step_candidate(Message& m) {
  // A pre-candidate counts PreVote responses, a candidate Vote responses; stale responses
  // of the other kind are ignored.
  const MessageType myVoteRespType = state == StateType::StatePreCandidate
                                         ? MessageType::MsgPreVoteResp
                                         : MessageType::MsgVoteResp;
  switch (m.type) {
    case MessageType::MsgProp:
      log().info(cat(hex(id), " no leader at term ", term, "; dropping proposal"));
      return RaftError::ErrProposalDropped;
    case MessageType::MsgApp:
      become_follower(m.term, m.from);  // always m.term == term here
      handle_append_entries(m);
      break;
    case MessageType::MsgHeartbeat:
      become_follower(m.term, m.from);
      handle_heartbeat(m);
      break;
    case MessageType::MsgSnap:
      become_follower(m.term, m.from);
      handle_snapshot(m);
      break;
    case MessageType::MsgTimeoutNow:
      log().debug(cat(hex(id), " [term ", term, " state ", name(state), "] ignored MsgTimeoutNow from ",
                      hex(m.from)));
      break;
    default:
      if (m.type != myVoteRespType) break;
      {
        const TallyResult tally = poll(m.from, m.type, !m.reject);
        log().info(cat(hex(id), " has received ", tally.granted, " ", name(m.type), " votes and ",
                       tally.rejected, " vote rejections"));
        if (tally.result == VoteResult::VoteWon) {
          if (state == StateType::StatePreCandidate) {
            campaign(CampaignType::campaignElection);
          } else {
            become_leader();
            bcast_append();
          }
        } else if (tally.result == VoteResult::VoteLost) {
          // A PreVote loss leaves the term unchanged; a real loss keeps the new term.
          become_follower(term, None);
        }
      }
      break;
  }
  return RaftError::Ok;
}

RaftError Raft::step_follower(Message& m) {
  switch (m.type) {
    case MessageType::MsgProp:
      if (lead == None) {
        log().info(cat(hex(id), " no leader at term ", term, "; dropping proposal"));
        return RaftError::ErrProposalDropped;
      }
      if (disableProposalForwarding) {
        log().info(cat(hex(id), " not forwarding to leader ", hex(lead), " at term ", term,
                       "; dropping proposal"));
        return RaftError::ErrProposalDropped;
      }
      m.to = lead;
      send(std::move(m));
      break;
    case MessageType::MsgApp:
      electionElapsed = 0;
      lead = m.from;
      handle_append_entries(m);
      break;
    case MessageType::MsgHeartbeat:
      electionElapsed = 0;
      lead = m.from;
      handle_heartbeat(m);
      break;
    case MessageType::MsgSnap:
      electionElapsed = 0;
      lead = m.from;
      handle_snapshot(m);
      break;
    case MessageType::MsgTransferLeader:
      forward_to_leader(m, "leader transfer msg");
      break;
    case MessageType::MsgForgetLeader:
      // Forgetting the leader would break the lease that lease-based reads rely on.
      if (readOnly.option == ReadOnlyOption::ReadOnlyLeaseBased) {
        log().error("ignoring MsgForgetLeader due to ReadOnlyLeaseBased");
        return RaftError::Ok;
      }
      if (lead != None) {
        log().info(cat(hex(id), " forgetting leader ", hex(lead), " at term ", term));
        lead = None;
      }
      break;
    case MessageType::MsgTimeoutNow:
      log().info(cat(hex(id), " [term ", term, "] received MsgTimeoutNow from ", hex(m.from),
                     " and starts an election to get leadership."));
      // Leader transfer: campaign at once, bypassing PreVote (the old leader asked for it).
      hup(CampaignType::campaignTransfer);
      break;
    case MessageType::MsgReadIndex:
      forward_to_leader(m, "index reading msg");
      break;
    case MessageType::MsgReadIndexResp:
      if (m.entries.size() != 1) {
        log().error(cat(hex(id), " invalid format of MsgReadIndexResp from ", hex(m.from),
                        ", entries count: ", m.entries.size()));
        return RaftError::Ok;
      }
      readStates.push_back(ReadState{m.index, m.entries[0].data});
      break;
    default:
      break;
  }
  return RaftError::Ok;
}

// A follower passes what only the leader can do on to it; without a leader it is dropped.
void Raft::forward_to_leader(Message& m, std::string_view what) {
  if (lead == None) {
    log().info(cat(hex(id), " no leader at term ", term, "; dropping ", what));
    return;
  }
  m.to = lead;
  send(std::move(m));
}

// Takes m's entries (into the log slice, which the log copies from): the message is Step's
// own and nothing reads its entries after.
void Raft::handle_append_entries(Message& m) {
  // Entries at or below our commit index are known to match; say where we stand.
  if (m.index < raftLog.committed) {
    Message r = reply(m, MessageType::MsgAppResp);
    r.index = raftLog.committed;
    send(std::move(r));
    return;
  }
  // logSliceFromMsgApp: the entries with the one before them and the leader's term.
  const LogSlice a{m.term, EntryID{m.logTerm, m.index}, std::move(m.entries)};
  if (std::optional<Index> mlastIndex = raftLog.maybe_append(a, m.commit)) {
    Message r = reply(m, MessageType::MsgAppResp);
    r.index = *mlastIndex;
    send(std::move(r));
    return;
  }
  log().debug(cat(hex(id), " [logterm: ", raftLog.zero_term_on_out_of_bounds(raftLog.term(m.index)),
                  ", index: ", m.index, "] rejected MsgApp [logterm: ", m.logTerm, ", index: ",
                  m.index, "] from ", hex(m.from)));
  // Hint the leader at the last index of ours that might match: the largest index at most
  // m.index whose term is at most m.logTerm, so the leader can skip a whole term at once.
  const Index hint = std::min(m.index, raftLog.last_index());
  const auto [hintIndex, hintTerm] = raftLog.find_conflict_by_term(hint, m.logTerm);
  Message r = reply(m, MessageType::MsgAppResp);
  r.index = m.index;
  r.reject = true;
  r.rejectHint = hintIndex;
  r.logTerm = hintTerm;
  send(std::move(r));
}

void Raft::handle_heartbeat(const Message& m) {
  raftLog.commit_to(m.commit);
  Message r = reply(m, MessageType::MsgHeartbeatResp);
  r.context = m.context;
  send(std::move(r));
}

void Raft::handle_snapshot(const Message& m) {
  const Snapshot s = m.snapshot.value_or(Snapshot{});
  const Index sindex = s.metadata.index;
  const Term sterm = s.metadata.term;
  Message r = reply(m, MessageType::MsgAppResp);
  if (restore(s)) {
    log().info(cat(hex(id), " [commit: ", raftLog.committed, "] restored snapshot [index: ", sindex,
                   ", term: ", sterm, "]"));
    r.index = raftLog.last_index();
  } else {
    log().info(cat(hex(id), " [commit: ", raftLog.committed, "] ignored snapshot [index: ", sindex,
                   ", term: ", sterm, "]"));
    r.index = raftLog.committed;
  }
  send(std::move(r));
}

ConfState Raft::apply_conf_change(const ConfChangeV2& cc) {
  Changer changer{trk, raftLog.last_index()};
  ChangeResult result;
  if (cc.leave_joint()) {
    result = changer.leave_joint();
  } else if (std::optional<bool> autoLeave = cc.enter_joint()) {
    result = changer.enter_joint(*autoLeave, cc.changes);
  } else {
    result = changer.simple(cc.changes);
  }
  // The application applies only committed conf changes, which were validated when
  // proposed; a failure here is a bug.
  if (!result.err.empty()) log().panic(result.err);
  return switch_to_config(std::move(result.cfg), std::move(result.progress));
}

ConfState Raft::switch_to_config(TrackerConfig cfg, ProgressMap progress) {
  trk.config = std::move(cfg);
  trk.progress = std::move(progress);
  log().info(cat(hex(id), " switched to configuration ", trk.config.to_string()));
  ConfState cs = trk.conf_state();
  auto self = trk.progress.find(id);
  const bool ok = self != trk.progress.end();
  isLearner = ok && self->second.isLearner;
  // A leader removed or demoted keeps leading until the change commits and it steps down
  // (if configured); it must not count itself towards quorums meanwhile.
  if ((!ok || isLearner) && state == StateType::StateLeader) {
    if (stepDownOnRemoval) become_follower(term, None);
    return cs;
  }
  if (state != StateType::StateLeader || cs.voters.empty()) return cs;
  // The quorum changed: the commit index may move, and new members need entries.
  if (maybe_commit()) {
    bcast_append();
  } else {
    trk.visit([&](PeerId peer, Progress&) {
      if (peer != id) maybe_send_append(peer, false);
    });
  }
  if (leadTransferee != None && trk.config.voters.ids().count(leadTransferee) == 0) {
    abort_leader_transfer();
  }
  return cs;
}

bool Raft::restore(const Snapshot& s) {
  if (s.metadata.index <= raftLog.committed) return false;
  if (state != StateType::StateFollower) {
    // Defence in depth: a leader or candidate never receives a snapshot of its own term.
    log().warning(cat(hex(id), " attempted to restore snapshot as leader; should never happen"));
    become_follower(term + 1, None);
    return false;
  }
  const ConfState& cs = s.metadata.confState;
  auto contains = [&](const std::vector<PeerId>& ids) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  };
  // A snapshot whose configuration does not include us would leave us without a voice;
  // learnersNext is not checked: such a member is a voter (outgoing) too.
  if (!contains(cs.voters) && !contains(cs.learners) && !contains(cs.votersOutgoing)) {
    log().warning(cat(hex(id), " attempted to restore snapshot but it is not in the ConfState ",
                      describe_conf_state(cs), "; should never happen"));
    return false;
  }
  const EntryID snapID{s.metadata.term, s.metadata.index};
  // Our log already has the snapshot's last entry: fast-forward the commit index instead of
  // throwing away the entries after it.
  if (raftLog.match_term(snapID)) {
    const EntryID last = raftLog.last_entry_id();
    log().info(cat(hex(id), " [commit: ", raftLog.committed, ", lastindex: ", last.index,
                   ", lastterm: ", last.term, "] fast-forwarded commit to snapshot [index: ",
                   snapID.index, ", term: ", snapID.term, "]"));
    raftLog.commit_to(s.metadata.index);
    return false;
  }
  raftLog.restore(s);
  trk = ProgressTracker(trk.maxInflight, trk.maxInflightBytes);
  ChangeResult restored = ::hasim::raft::restore(Changer{trk, raftLog.last_index()}, cs);
  if (!restored.err.empty()) {
    log().panic(cat("unable to restore config ", describe_conf_state(cs), ": ", restored.err));
  }
  assert_conf_states_equivalent(log(), cs,
                                switch_to_config(std::move(restored.cfg), std::move(restored.progress)));
  const EntryID last = raftLog.last_entry_id();
  log().info(cat(hex(id), " [commit: ", raftLog.committed, ", lastindex: ", last.index,
                 ", lastterm: ", last.term, "] restored snapshot [index: ", snapID.index,
                 ", term: ", snapID.term, "]"));
  return true;
}

}  // namespace hasim::raft
