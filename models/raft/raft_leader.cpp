// raft.go, part 3: stepLeader — what only a leader does with a message: heartbeats and
// CheckQuorum, proposals (with the one-conf-change-at-a-time rule), ReadIndex, and the
// per-follower progress (MsgAppResp, MsgHeartbeatResp, snapshots, transfer).
#include <algorithm>
#include <utility>

#include "models/raft/raft.hpp"
#include "models/raft/raftpb_util.hpp"
#include "models/raft/strcat.hpp"
#include "models/raft/util.hpp"
#include "sim/assert.hpp"

namespace hasim::raft {

using text::cat;
using text::hex;

namespace {

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

}  // namespace

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
  readOnly.recv_ack(m.from, m.context.str());
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
