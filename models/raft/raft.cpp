// raft.go, part 1: construction, sending, ticking, role changes and campaigns. Step and the
// candidate/follower handlers are in raft_step.cpp, stepLeader in raft_leader.cpp.
#include "models/raft/raft.hpp"

#include <algorithm>
#include <utility>

#include "models/raft/confchange.hpp"
#include "models/raft/strcat.hpp"
#include "models/raft/util.hpp"
#include "sim/assert.hpp"

namespace hasim::raft {

using text::cat;
using text::hex;

namespace {

Config& validated(Config& c) {
  if (c.logger == nullptr) c.logger = &discard_logger();
  if (std::string err = c.validate(); !err.empty()) c.logger->panic(err);
  return c;
}

// splitmix64: a small deterministic generator. Upstream draws from crypto/rand; hasim must
// replay a run exactly, so each raft draws from its own seeded stream.
std::uint64_t next_random(std::uint64_t& state) {
  state += 0x9e3779b97f4a7c15ULL;
  std::uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::string join_hex(const std::vector<PeerId>& ids) {
  std::string out;
  for (PeerId id : ids) {
    if (!out.empty()) out += ',';
    out += hex(id);
  }
  return out;
}

}  // namespace

std::string Config::validate() {
  if (id == None) return "cannot use none as id";
  if (is_local_msg_target(id)) return "cannot use local target as id";
  if (heartbeatTick <= 0) return "heartbeat tick must be greater than 0";
  if (electionTick <= heartbeatTick) return "election tick must be greater than heartbeat tick";
  if (storage == nullptr) return "storage cannot be nil";
  if (maxUncommittedEntriesSize == 0) maxUncommittedEntriesSize = noLimit;
  // The default MaxCommittedSizePerReady is MaxSizePerMsg: they were one setting once.
  if (maxCommittedSizePerReady == 0) maxCommittedSizePerReady = maxSizePerMsg;
  if (maxInflightMsgs <= 0) return "max inflight messages must be greater than 0";
  if (maxInflightBytes == 0) {
    maxInflightBytes = noLimit;
  } else if (maxInflightBytes < maxSizePerMsg) {
    return "max inflight bytes must be >= max message size";
  }
  if (electionTickMax != 0 && electionTickMax < electionTick) {
    return "election tick max must be 0 or at least election tick";
  }
  if (readOnlyOption == ReadOnlyOption::ReadOnlyLeaseBased && !checkQuorum) {
    return "CheckQuorum must be enabled when ReadOnlyOption is ReadOnlyLeaseBased";
  }
  return {};
}

Raft::Raft(Config& c)
    : id(validated(c).id),
      raftLog(new_log_with_size(*c.storage, *c.logger, c.maxCommittedSizePerReady)),
      maxMsgSize(c.maxSizePerMsg),
      maxUncommittedSize(c.maxUncommittedEntriesSize),
      trk(c.maxInflightMsgs, c.maxInflightBytes),
      disableConfChangeValidation(c.disableConfChangeValidation),
      readOnly(c.readOnlyOption),
      checkQuorum(c.checkQuorum),
      preVote(c.preVote),
      heartbeatTimeout(c.heartbeatTick),
      electionTimeout(c.electionTick),
      electionTimeoutMax(c.electionTickMax),
      keepElectionTimerOnNewTerm(c.keepElectionTimerOnNewTerm),
      disableProposalForwarding(c.disableProposalForwarding),
      stepDownOnRemoval(c.stepDownOnRemoval),
      logger(c.logger),
      rand_state_(c.randomSeed ^ (c.id * 0x2545f4914f6cdd1dULL)) {
  Result<InitialState> initial = c.storage->initial_state();
  if (!initial.ok()) log().panic(std::string(error_text(initial.err)));
  const HardState& hs = initial.value.hardState;
  const ConfState& cs = initial.value.confState;
  const EntryID lastID = raftLog.last_entry_id();
  ChangeResult restored = ::hasim::raft::restore(Changer{trk, lastID.index}, cs);
  if (!restored.err.empty()) log().panic(restored.err);
  assert_conf_states_equivalent(log(), cs,
                                switch_to_config(std::move(restored.cfg), std::move(restored.progress)));
  if (!is_empty_hard_state(hs)) load_state(hs);
  if (c.applied > 0) raftLog.applied_to(c.applied, 0);
  become_follower(term, None);
  log().info(cat("newRaft ", hex(id), " [peers: [", join_hex(trk.voter_nodes()), "], term: ", term,
                 ", commit: ", raftLog.committed, ", applied: ", raftLog.applied,
                 ", lastindex: ", lastID.index, ", lastterm: ", lastID.term, "]"));
}

void Raft::assert_invariants() {
  HASIM_ASSERT(raftLog.applied <= raftLog.committed);
  HASIM_ASSERT(raftLog.committed <= raftLog.last_index());
  // The role and the leader agree: only a leader names itself, and a (pre-)candidate knows no
  // leader; a candidate has voted for itself in its term.
  HASIM_ASSERT((state == StateType::StateLeader) == (lead == id));
  HASIM_ASSERT(state == StateType::StateFollower || state == StateType::StateLeader || lead == None);
  HASIM_ASSERT(state != StateType::StateCandidate || vote == id);
  HASIM_ASSERT(leadTransferee == None || state == StateType::StateLeader);
  HASIM_ASSERT(randomizedElectionTimeout >= electionTimeout);
}

void Raft::send(Message&& m) {
  if (m.from == None) m.from = id;
  const MessageType t = m.type;
  if (t == MessageType::MsgVote || t == MessageType::MsgVoteResp ||
      t == MessageType::MsgPreVote || t == MessageType::MsgPreVoteResp) {
    // Vote messages carry the term they are for (a PreVote's is the next one), never ours.
    if (m.term == 0) log().panic(cat("term should be set when sending ", name(t)));
  } else {
    if (m.term != 0) {
      log().panic(cat("term should not be set when sending ", name(t), " (was ", m.term, ")"));
    }
    // Proposals and ReadIndex forwarded to the leader are local messages in disguise: they
    // carry no term, so a term change in between does not drop them.
    if (t != MessageType::MsgProp && t != MessageType::MsgReadIndex) m.term = term;
  }
  if (t == MessageType::MsgAppResp || t == MessageType::MsgVoteResp ||
      t == MessageType::MsgPreVoteResp) {
    // These acknowledge state that must be durable first (appended entries, a vote).
    msgsAfterAppend.push_back(std::move(m));
  } else {
    if (m.to == id) log().panic(cat("message should not be self-addressed when sending ", name(t)));
    msgs.push_back(std::move(m));
  }
}

void Raft::send_append(PeerId to) { maybe_send_append(to, true); }

bool Raft::maybe_send_append(PeerId to, bool sendIfEmpty) {
  HASIM_ASSERT(to != id && state == StateType::StateLeader);
  Progress& pr = trk.progress.at(to);
  if (pr.is_paused()) return false;
  const Index prevIndex = pr.next - 1;
  Result<Term> prevTerm = raftLog.term(prevIndex);
  // The entry before the ones to send is compacted away: only a snapshot can help.
  if (prevTerm.err != StorageError::Ok) return maybe_send_snapshot(to, pr);
  Result<std::vector<Entry>> ents;
  // In StateReplicate with a full window, send an empty MsgApp (commit index only).
  if (pr.state != ProgressStateType::StateReplicate || !pr.inflights.full()) {
    ents = raftLog.entries(pr.next, maxMsgSize);
  }
  if (ents.value.empty() && !sendIfEmpty) return false;
  if (ents.err != StorageError::Ok) return maybe_send_snapshot(to, pr);
  Message m;
  m.to = to;
  m.type = MessageType::MsgApp;
  m.index = prevIndex;
  m.logTerm = prevTerm.value;
  m.commit = raftLog.committed;
  const std::size_t count = ents.value.size();
  const std::uint64_t bytes = payloads_size(ents.value);
  m.entries = std::move(ents.value);
  send(std::move(m));
  pr.sent_entries(static_cast<int>(count), bytes);
  pr.sent_commit(raftLog.committed);
  return true;
}

bool Raft::maybe_send_snapshot(PeerId to, Progress& pr) {
  if (!pr.recentActive) {
    log().debug(cat("ignore sending snapshot to ", hex(to), " since it is not recently active"));
    return false;
  }
  Result<Snapshot> snapshot = raftLog.snapshot();
  if (snapshot.err != StorageError::Ok) {
    if (snapshot.err == StorageError::ErrSnapshotTemporarilyUnavailable) {
      log().debug(cat(hex(id), " failed to send snapshot to ", hex(to),
                      " because snapshot is temporarily unavailable"));
      return false;
    }
    log().panic(std::string(error_text(snapshot.err)));
  }
  if (is_empty_snap(snapshot.value)) log().panic("need non-empty snapshot");
  const Index sindex = snapshot.value.metadata.index;
  const Term sterm = snapshot.value.metadata.term;
  log().debug(cat(hex(id), " [firstindex: ", raftLog.first_index(), ", commit: ", raftLog.committed,
                  "] sent snapshot[index: ", sindex, ", term: ", sterm, "] to ", hex(to), " [",
                  pr.to_string(), "]"));
  pr.become_snapshot(sindex);
  log().debug(cat(hex(id), " paused sending replication messages to ", hex(to), " [",
                  pr.to_string(), "]"));
  Message m;
  m.to = to;
  m.type = MessageType::MsgSnap;
  m.snapshot = std::move(snapshot.value);
  send(std::move(m));
  return true;
}

void Raft::send_heartbeat(PeerId to, const std::string& ctx) {
  Progress& pr = trk.progress.at(to);
  // Never tell a follower to commit past what it is known to have: it could commit an entry
  // it does not have yet (it would be told again later anyway).
  const Index commit = std::min(pr.match, raftLog.committed);
  Message m;
  m.to = to;
  m.type = MessageType::MsgHeartbeat;
  m.commit = commit;
  m.context = ctx;
  send(std::move(m));
  pr.sent_commit(commit);
}

void Raft::bcast_append() {
  trk.visit([&](PeerId peer, Progress&) {
    if (peer != id) send_append(peer);
  });
}

void Raft::bcast_heartbeat() { bcast_heartbeat_with_ctx(readOnly.heartbeat_ctx()); }

void Raft::bcast_heartbeat_with_ctx(const std::string& ctx) {
  trk.visit([&](PeerId peer, Progress&) {
    if (peer != id) send_heartbeat(peer, ctx);
  });
}

void Raft::applied_to(Index index, std::uint64_t size) {
  const Index oldApplied = raftLog.applied;
  const Index newApplied = std::max(index, oldApplied);
  raftLog.applied_to(newApplied, size);
  // Auto-leave: once the joint configuration's entry is applied, the leader proposes the
  // empty V2 change that leaves it (confchange "auto_leave").
  if (trk.config.autoLeave && newApplied >= pendingConfIndex && state == StateType::StateLeader) {
    Message m = conf_change_to_msg(std::monostate{});
    const std::string config = trk.config.to_string();
    if (RaftError err = step(std::move(m)); err != RaftError::Ok) {
      log().debug(cat("not initiating automatic transition out of joint configuration ", config,
                      ": ", error_text(err)));
    } else {
      log().info(cat("initiating automatic transition out of joint configuration ", config));
    }
  }
}

void Raft::applied_snap(const Snapshot& snap) {
  const Index index = snap.metadata.index;
  raftLog.stable_snap_to(index);
  applied_to(index, 0);
}

bool Raft::maybe_commit() {
  // Only an entry of the current term commits by counting replicas (Raft §5.4.2, Figure 8);
  // maybe_commit checks the term.
  return raftLog.maybe_commit(EntryID{term, trk.committed()});
}

void Raft::reset(Term newTerm) {
  if (term != newTerm) {
    term = newTerm;
    vote = None;
  }
  lead = None;
  electionElapsed = 0;
  heartbeatElapsed = 0;
  reset_randomized_election_timeout();
  abort_leader_transfer();
  trk.reset_votes();
  const Index last = raftLog.last_index();
  trk.visit([&](PeerId peer, Progress& pr) {
    const bool learner = pr.isLearner;
    pr = Progress{};
    pr.match = peer == id ? last : 0;
    pr.next = last + 1;
    pr.inflights = Inflights(trk.maxInflight, trk.maxInflightBytes);
    pr.isLearner = learner;
  });
  pendingConfIndex = 0;
  uncommittedSize = 0;
  readOnly = ReadOnly(readOnly.option);
}

bool Raft::append_entry(std::vector<Entry> es) {
  Index li = raftLog.last_index();
  for (std::size_t i = 0; i < es.size(); ++i) {
    es[i].term = term;
    es[i].index = li + 1 + i;
  }
  // Guard against unbounded growth of the uncommitted tail while no quorum acknowledges.
  if (!increase_uncommitted_size(es)) {
    log().warning(cat(hex(id),
                      " appending new entries to log would exceed uncommitted entry size limit; "
                      "dropping proposal"));
    return false;
  }
  const Index expected = li + es.size();
  li = raftLog.append(std::move(es));
  HASIM_ASSERT(li == expected);  // a leader only appends (Leader Append-Only)
  // The leader acknowledges its own append like a follower, once it is durable.
  Message m;
  m.to = id;
  m.type = MessageType::MsgAppResp;
  m.index = li;
  send(std::move(m));
  return true;
}

void Raft::tick() {
  const Term before = term;
  if (state == StateType::StateLeader) {
    tick_heartbeat();
  } else {
    tick_election();
  }
  HASIM_ASSERT(term >= before);
  assert_invariants();
}

void Raft::tick_election() {
  ++electionElapsed;
  if (promotable() && past_election_timeout()) {
    electionElapsed = 0;
    Message m;
    m.from = id;
    m.type = MessageType::MsgHup;
    if (RaftError err = step(std::move(m)); err != RaftError::Ok) {
      log().debug(cat("error occurred during election: ", error_text(err)));
    }
  }
}

void Raft::tick_heartbeat() {
  ++heartbeatElapsed;
  ++electionElapsed;
  if (electionElapsed >= electionTimeout) {
    electionElapsed = 0;
    if (checkQuorum) {
      Message m;
      m.from = id;
      m.type = MessageType::MsgCheckQuorum;
      if (RaftError err = step(std::move(m)); err != RaftError::Ok) {
        log().debug(cat("error occurred during checking sending heartbeat: ", error_text(err)));
      }
    }
    // A transfer that has not finished within an election timeout is abandoned.
    if (state == StateType::StateLeader && leadTransferee != None) abort_leader_transfer();
  }
  if (state != StateType::StateLeader) return;
  if (heartbeatElapsed >= heartbeatTimeout) {
    heartbeatElapsed = 0;
    Message m;
    m.from = id;
    m.type = MessageType::MsgBeat;
    if (RaftError err = step(std::move(m)); err != RaftError::Ok) {
      log().debug(cat("error occurred during checking sending heartbeat: ", error_text(err)));
    }
  }
}

void Raft::become_follower(Term newTerm, PeerId newLead) {
  reset(newTerm);
  lead = newLead;
  state = StateType::StateFollower;
  log().info(cat(hex(id), " became follower at term ", term));
}

void Raft::become_candidate() {
  if (state == StateType::StateLeader) log().panic("invalid transition [leader -> candidate]");
  const Term before = term;
  reset(term + 1);
  vote = id;
  state = StateType::StateCandidate;
  HASIM_ASSERT(term == before + 1);
  log().info(cat(hex(id), " became candidate at term ", term));
}

void Raft::become_pre_candidate() {
  if (state == StateType::StateLeader) log().panic("invalid transition [leader -> pre-candidate]");
  // A pre-candidate changes neither its term nor its vote (raft thesis §9.6): it only asks
  // whether it could win.
  trk.reset_votes();
  lead = None;
  state = StateType::StatePreCandidate;
  log().info(cat(hex(id), " became pre-candidate at term ", term));
}

void Raft::become_leader() {
  if (state == StateType::StateFollower) log().panic("invalid transition [follower -> leader]");
  reset(term);
  lead = id;
  state = StateType::StateLeader;
  Progress& pr = trk.progress.at(id);
  pr.become_replicate();
  pr.recentActive = true;
  // Conservatively treat every entry up to the last as a possible unapplied conf change:
  // no new conf change until the leader has applied its whole log.
  pendingConfIndex = raftLog.last_index();
  // The empty entry of the new term: committing it commits everything before it (§5.4.2).
  if (!append_entry({Entry{}})) log().panic("empty entry was dropped");
  // Its own progress acknowledges everything but the new empty entry, which it will
  // acknowledge (MsgAppResp to itself) once the entry is durable.
  HASIM_ASSERT(trk.progress.at(id).match + 1 == raftLog.last_index());
  log().info(cat(hex(id), " became leader at term ", term));
}

void Raft::hup(CampaignType t) {
  if (state == StateType::StateLeader) {
    log().debug(cat(hex(id), " ignoring MsgHup because already leader"));
    return;
  }
  if (!promotable()) {
    log().warning(cat(hex(id), " is unpromotable and can not campaign"));
    return;
  }
  // A member that has not applied a committed conf change might campaign under a stale
  // configuration.
  if (has_unapplied_conf_changes()) {
    log().warning(cat(hex(id), " cannot campaign at term ", term,
                      " since there are still pending configuration changes to apply"));
    return;
  }
  log().info(cat(hex(id), " is starting a new election at term ", term));
  campaign(t);
}

bool Raft::has_unapplied_conf_changes() {
  if (raftLog.applied >= raftLog.committed) return false;
  bool found = false;
  const Index lo = raftLog.applied + 1;
  const Index hi = raftLog.committed + 1;
  static const std::string errBreak = "break";
  const std::string err = raftLog.scan(lo, hi, raftLog.maxApplyingEntsSize,
                                       [&](const std::vector<Entry>& ents) -> std::string {
                                         for (const Entry& e : ents) {
                                           if (e.type != EntryType::EntryNormal) {
                                             found = true;
                                             return errBreak;
                                           }
                                         }
                                         return {};
                                       });
  if (!err.empty() && err != errBreak) {
    log().panic(cat("error scanning unapplied entries [", lo, ", ", hi, "): ", err));
  }
  return found;
}

void Raft::campaign(CampaignType t) {
  if (!promotable()) {
    log().warning(cat(hex(id), " is unpromotable; campaign() should have been called"));
  }
  Term voteTerm = 0;
  MessageType voteMsg = MessageType::MsgVote;
  if (t == CampaignType::campaignPreElection) {
    become_pre_candidate();
    voteMsg = MessageType::MsgPreVote;
    voteTerm = term + 1;  // the term it would campaign at; its own term stays
  } else {
    become_candidate();
    voteTerm = term;
  }
  for (PeerId peer : trk.config.voters.ids()) {  // sorted: a deterministic message order
    if (peer == id) {
      // Its own vote arrives as a response once its hard state is durable.
      Message self;
      self.to = peer;
      self.term = voteTerm;
      self.type = vote_resp_msg_type(voteMsg);
      send(std::move(self));
      continue;
    }
    const EntryID last = raftLog.last_entry_id();
    log().info(cat(hex(id), " [logterm: ", last.term, ", index: ", last.index, "] sent ",
                   name(voteMsg), " request to ", hex(peer), " at term ", term));
    Message m;
    m.to = peer;
    m.term = voteTerm;
    m.type = voteMsg;
    m.index = last.index;
    m.logTerm = last.term;
    if (t == CampaignType::campaignTransfer) m.context = std::string(kCampaignTransfer);
    send(std::move(m));
  }
}

TallyResult Raft::poll(PeerId from, MessageType t, bool v) {
  if (v) {
    log().info(cat(hex(id), " received ", name(t), " from ", hex(from), " at term ", term));
  } else {
    log().info(cat(hex(id), " received ", name(t), " rejection from ", hex(from), " at term ", term));
  }
  trk.record_vote(from, v);
  return trk.tally_votes();
}

bool Raft::promotable() const {
  auto it = trk.progress.find(id);
  return it != trk.progress.end() && !it->second.isLearner &&
         !raftLog.has_next_or_in_progress_snapshot();
}

void Raft::load_state(const HardState& hs) {
  if (hs.commit < raftLog.committed || hs.commit > raftLog.last_index()) {
    log().panic(cat(hex(id), " state.commit ", hs.commit, " is out of range [", raftLog.committed,
                    ", ", raftLog.last_index(), "]"));
  }
  raftLog.committed = hs.commit;
  term = hs.term;
  vote = hs.vote;
}

void Raft::reset_randomized_election_timeout() {
  HASIM_ASSERT(electionTimeout > 0);
  // [electiontimeout, 2 * electiontimeout - 1]: spreads candidates so that one usually
  // wins before another times out (Raft §5.2). Paper mode: [electionTimeout, max].
  const auto spread = electionTimeoutMax > 0
                          ? static_cast<std::uint64_t>(electionTimeoutMax - electionTimeout + 1)
                          : static_cast<std::uint64_t>(electionTimeout);
  randomizedElectionTimeout = electionTimeout + static_cast<int>(next_random(rand_state_) % spread);
  HASIM_ASSERT(randomizedElectionTimeout >= electionTimeout);
}

void Raft::send_timeout_now(PeerId to) {
  Message m;
  m.to = to;
  m.type = MessageType::MsgTimeoutNow;
  send(std::move(m));
}

bool Raft::committed_entry_in_current_term() {
  // A new leader does not know the commit index of the cluster until it commits an entry of
  // its own term; ReadIndex waits for that (raft thesis §6.4).
  return raftLog.zero_term_on_out_of_bounds(raftLog.term(raftLog.committed)) == term;
}

bool Raft::increase_uncommitted_size(const std::vector<Entry>& ents) {
  const std::uint64_t s = payloads_size(ents);
  // Always accept when nothing is uncommitted, so that one large entry cannot wedge the
  // leader; an empty entry (e.g. the leader's first) is always accepted too.
  if (uncommittedSize > 0 && s > 0 && uncommittedSize + s > maxUncommittedSize) return false;
  uncommittedSize += s;
  return true;
}

void Raft::reduce_uncommitted_size(std::uint64_t s) {
  // The size may not have been counted (entries from an earlier term), hence the clamp.
  uncommittedSize = s > uncommittedSize ? 0 : uncommittedSize - s;
}

}  // namespace hasim::raft
