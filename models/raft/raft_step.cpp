// raft.go, part 2: Step — the term rules every message passes first, the vote rule, and the
// per-role handlers (stepLeader, stepCandidate, stepFollower) with what they call.
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

// The conf change a proposed entry carries, as V2 (pb.ConfChangeI.AsV2); nullopt for a
// normal entry. A proposal that does not decode is a caller's bug, as upstream panics.
std::optional<ConfChangeV2> decode_conf_change(const Entry& e, Logger& logger) {
  if (e.type == EntryType::EntryConfChange) {
    std::optional<ConfChange> cc = unmarshal_conf_change(e.data);
    if (!cc) logger.panic("cannot unmarshal a proposed ConfChange");
    return cc->as_v2();
  }
  if (e.type == EntryType::EntryConfChangeV2) {
    std::optional<ConfChangeV2> cc = unmarshal_conf_change_v2(e.data);
    if (!cc) logger.panic("cannot unmarshal a proposed ConfChangeV2");
    return cc;
  }
  return std::nullopt;
}

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
      become_follower(m.term, fromLeader ? m.from : None);
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

RaftError Raft::step(Message m) {
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

RaftError Raft::step_leader(Message& m) {
  switch (m.type) {
    case MessageType::MsgBeat:
      bcast_heartbeat();
      return RaftError::Ok;
    case MessageType::MsgCheckQuorum:
      if (!trk.quorum_active()) {
        log().warning(cat(hex(id), " stepped down to follower since quorum is not active"));
        become_follower(term, None);
      }
      // Everyone must prove itself active again within the next election timeout.
      trk.visit([&](PeerId peer, Progress& pr) {
        if (peer != id) pr.recentActive = false;
      });
      return RaftError::Ok;
    case MessageType::MsgProp:
      return step_leader_propose(m);
    case MessageType::MsgReadIndex:
      step_leader_read_index(m);
      return RaftError::Ok;
    case MessageType::MsgForgetLeader:
      return RaftError::Ok;  // a leader does not forget itself
    default:
      break;
  }
  auto it = trk.progress.find(m.from);
  if (it == trk.progress.end()) {
    log().debug(cat(hex(id), " no progress available for ", hex(m.from)));
    return RaftError::Ok;
  }
  step_leader_progress(m, it->second);
  return RaftError::Ok;
}

RaftError Raft::step_leader_propose(Message& m) {
  if (m.entries.empty()) log().panic(cat(hex(id), " stepped empty MsgProp"));
  // A leader removed from the configuration stops accepting proposals.
  if (trk.progress.find(id) == trk.progress.end()) return RaftError::ErrProposalDropped;
  if (leadTransferee != None) {
    log().debug(cat(hex(id), " [term ", term, "] transfer leadership to ", hex(leadTransferee),
                    " is in progress; dropping proposal"));
    return RaftError::ErrProposalDropped;
  }
  for (std::size_t i = 0; i < m.entries.size(); ++i) {
    std::optional<ConfChangeV2> cc = decode_conf_change(m.entries[i], log());
    if (!cc) continue;
    // One conf change at a time: a second one proposed before the first is applied could
    // jump two steps of membership at once (raft thesis §4.1).
    const bool alreadyPending = pendingConfIndex > raftLog.applied;
    const bool alreadyJoint = !trk.config.voters[1].empty();
    const bool wantsLeaveJoint = cc->changes.empty();
    std::string failedCheck;
    if (alreadyPending) {
      failedCheck = cat("possible unapplied conf change at index ", pendingConfIndex,
                        " (applied to ", raftLog.applied, ")");
    } else if (alreadyJoint && !wantsLeaveJoint) {
      failedCheck = "must transition out of joint config first";
    } else if (!alreadyJoint && wantsLeaveJoint) {
      failedCheck = "not in joint state; refusing empty conf change";
    }
    if (!failedCheck.empty() && !disableConfChangeValidation) {
      log().info(cat(hex(id), " ignoring conf change ", describe_conf_change(*cc),
                     " at config ", trk.config.to_string(), ": ", failedCheck));
      // Replaced by an empty normal entry, so the proposal's indexes stay as they were.
      m.entries[i] = Entry{};
    } else {
      pendingConfIndex = raftLog.last_index() + i + 1;
    }
  }
  if (!append_entry(std::move(m.entries))) return RaftError::ErrProposalDropped;
  bcast_append();
  return RaftError::Ok;
}

void Raft::step_leader_read_index(const Message& m) {
  // A single voter needs no round trip to know it leads.
  if (trk.is_singleton()) {
    Message resp = response_to_read_index_req(m, raftLog.committed);
    if (resp.to != None) send(std::move(resp));
    return;
  }
  // Until it commits an entry of its term the leader does not know the cluster's commit
  // index; postpone the read (raft thesis §6.4).
  if (!committed_entry_in_current_term()) {
    pendingReadIndexMessages.push_back(m);
    return;
  }
  send_msg_read_index_response(m);
}

void Raft::step_leader_progress(const Message& m, Progress& pr) {
  switch (m.type) {
    case MessageType::MsgAppResp:
      step_leader_app_resp(m, pr);
      break;
    case MessageType::MsgHeartbeatResp:
      step_leader_heartbeat_resp(m, pr);
      break;
    case MessageType::MsgSnapStatus:
      if (pr.state != ProgressStateType::StateSnapshot) return;
      if (!m.reject) {
        pr.become_probe();
        log().debug(cat(hex(id), " snapshot succeeded, resumed sending replication messages to ",
                        hex(m.from), " [", pr.to_string(), "]"));
      } else {
        // The snapshot did not arrive: forget it, so the probe may pick a new one.
        pr.pendingSnapshot = 0;
        pr.become_probe();
        log().debug(cat(hex(id), " snapshot failed, resumed sending replication messages to ",
                        hex(m.from), " [", pr.to_string(), "]"));
      }
      // Wait for the next MsgHeartbeatResp before probing, rather than probing at once.
      pr.msgAppFlowPaused = true;
      break;
    case MessageType::MsgUnreachable:
      // Optimistic replication to an unreachable peer would lose messages: probe instead.
      if (pr.state == ProgressStateType::StateReplicate) pr.become_probe();
      log().debug(cat(hex(id), " failed to send message to ", hex(m.from),
                      " because it is unreachable [", pr.to_string(), "]"));
      break;
    case MessageType::MsgTransferLeader:
      step_leader_transfer(m, pr);
      break;
    default:
      break;
  }
}

void Raft::step_leader_app_resp(const Message& m, Progress& pr) {
  pr.recentActive = true;
  if (m.reject) {
    log().debug(cat(hex(id), " received MsgAppResp(rejected, hint: (index ", m.rejectHint, ", term ",
                    m.logTerm, ")) from ", hex(m.from), " for index ", m.index));
    // The follower's hint says where its log may match; with a term, skip every index of
    // ours whose term is above it (the "fast backtracking" of the paper's §5.3 note).
    Index nextProbeIdx = m.rejectHint;
    if (m.logTerm > 0) nextProbeIdx = raftLog.find_conflict_by_term(m.rejectHint, m.logTerm).first;
    if (pr.maybe_decr_to(m.index, nextProbeIdx)) {
      log().debug(cat(hex(id), " decreased progress of ", hex(m.from), " to [", pr.to_string(), "]"));
      if (pr.state == ProgressStateType::StateReplicate) pr.become_probe();
      send_append(m.from);
    }
    return;
  }
  // An acknowledgement of the index it already has, while probing, also ends the probe.
  if (!pr.maybe_update(m.index) &&
      !(pr.match == m.index && pr.state == ProgressStateType::StateProbe)) {
    return;
  }
  switch (pr.state) {
    case ProgressStateType::StateProbe:
      pr.become_replicate();
      break;
    case ProgressStateType::StateSnapshot:
      // The follower caught up by other means (e.g. the entries after the snapshot
      // arrived): replicate from where it stands.
      if (pr.match + 1 >= raftLog.first_index()) {
        log().debug(cat(hex(id), " recovered from needing snapshot, resumed sending replication ",
                        "messages to ", hex(m.from), " [", pr.to_string(), "]"));
        pr.become_probe();
        pr.become_replicate();
      }
      break;
    case ProgressStateType::StateReplicate:
      pr.inflights.free_le(m.index);
      break;
  }
  if (maybe_commit()) {
    release_pending_read_index_messages();
    bcast_append();
  } else if (id != m.from && pr.can_bump_commit(raftLog.committed)) {
    // The follower's commit index lags: tell it even with nothing new to append.
    send_append(m.from);
  }
  // The window may have opened: send as much as flow control now allows.
  if (id != m.from) {
    for (std::size_t guard = 0; maybe_send_append(m.from, false); ++guard) {
      HASIM_ASSERT(guard <= raftLog.last_index() + 1);
    }
  }
  if (m.from == leadTransferee && pr.match == raftLog.last_index()) {
    log().info(cat(hex(id), " sent MsgTimeoutNow to ", hex(m.from), " after received MsgAppResp"));
    send_timeout_now(m.from);
  }
}

void Raft::step_leader_heartbeat_resp(const Message& m, Progress& pr) {
  pr.recentActive = true;
  pr.msgAppFlowPaused = false;
  // A follower behind (or one we only probe) gets entries on every heartbeat response.
  if (pr.match < raftLog.last_index() || pr.state == ProgressStateType::StateProbe) {
    send_append(m.from);
  }
  if (readOnly.option != ReadOnlyOption::ReadOnlySafe || m.context.empty()) return;
  readOnly.recv_ack(m.from, m.context);
  for (ReadIndexRequest& rs : readOnly.maybe_advance(trk.config.voters)) {
    Message resp = response_to_read_index_req(rs.req, rs.index);
    if (resp.to != None) send(std::move(resp));
  }
}

void Raft::step_leader_transfer(const Message& m, Progress& pr) {
  if (pr.isLearner) {
    log().debug(cat(hex(id), " is learner. Ignored transferring leadership"));
    return;
  }
  const PeerId transferee = m.from;
  const PeerId lastLeadTransferee = leadTransferee;
  if (lastLeadTransferee != None) {
    if (lastLeadTransferee == transferee) {
      log().info(cat(hex(id), " [term ", term, "] transfer leadership to ", hex(transferee),
                     " is in progress, ignores request to same node ", hex(transferee)));
      return;
    }
    abort_leader_transfer();
    log().info(cat(hex(id), " [term ", term, "] abort previous transferring leadership to ",
                   hex(lastLeadTransferee)));
  }
  if (transferee == id) {
    log().debug(cat(hex(id), " is already leader. Ignored transferring leadership to self"));
    return;
  }
  log().info(cat(hex(id), " [term ", term, "] starts to transfer leadership to ", hex(transferee)));
  // The transfer must finish within one election timeout (tick_heartbeat aborts it).
  electionElapsed = 0;
  leadTransferee = transferee;
  if (pr.match == raftLog.last_index()) {
    send_timeout_now(transferee);
    log().info(cat(hex(id), " sends MsgTimeoutNow to ", hex(transferee), " immediately as ",
                   hex(transferee), " already has up-to-date log"));
  } else {
    send_append(transferee);
  }
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
      if (lead == None) {
        log().info(cat(hex(id), " no leader at term ", term, "; dropping leader transfer msg"));
        return RaftError::Ok;
      }
      m.to = lead;
      send(std::move(m));
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
      if (lead == None) {
        log().info(cat(hex(id), " no leader at term ", term, "; dropping index reading msg"));
        return RaftError::Ok;
      }
      m.to = lead;
      send(std::move(m));
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

void Raft::handle_append_entries(const Message& m) {
  // Entries at or below our commit index are known to match; say where we stand.
  if (m.index < raftLog.committed) {
    Message r = reply(m, MessageType::MsgAppResp);
    r.index = raftLog.committed;
    send(std::move(r));
    return;
  }
  // logSliceFromMsgApp: the entries with the one before them and the leader's term.
  const LogSlice a{m.term, EntryID{m.logTerm, m.index}, m.entries};
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

Message Raft::response_to_read_index_req(const Message& req, Index readIndex) {
  HASIM_ASSERT(!req.entries.empty());
  // Our own read (or a local one): a ReadState for our application; no message.
  if (req.from == None || req.from == id) {
    readStates.push_back(ReadState{readIndex, req.entries[0].data});
    return Message{};
  }
  Message m;
  m.type = MessageType::MsgReadIndexResp;
  m.to = req.from;
  m.index = readIndex;
  m.entries = req.entries;
  return m;
}

void Raft::release_pending_read_index_messages() {
  if (pendingReadIndexMessages.empty()) return;
  if (!committed_entry_in_current_term()) {
    log().error("pending MsgReadIndex should be released only after first commit in current term");
    return;
  }
  std::vector<Message> pending = std::move(pendingReadIndexMessages);
  pendingReadIndexMessages.clear();
  for (const Message& m : pending) send_msg_read_index_response(m);
}

void Raft::send_msg_read_index_response(const Message& m) {
  switch (readOnly.option) {
    case ReadOnlyOption::ReadOnlySafe:
      // Confirm leadership with a heartbeat round before answering (raft thesis §6.4).
      readOnly.add_request(raftLog.committed, m);
      readOnly.recv_ack(id, readOnly.heartbeat_ctx());
      bcast_heartbeat();
      break;
    case ReadOnlyOption::ReadOnlyLeaseBased: {
      // Trust the lease CheckQuorum maintains: answer at once.
      Message resp = response_to_read_index_req(m, raftLog.committed);
      if (resp.to != None) send(std::move(resp));
      break;
    }
  }
}

}  // namespace hasim::raft
