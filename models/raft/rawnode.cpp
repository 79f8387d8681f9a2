// rawnode.go: Ready/Advance around the raft state machine, and the storage messages of
// asynchronous storage writes.
#include "models/raft/rawnode.hpp"

#include <iterator>
#include <utility>

#include "models/raft/strcat.hpp"
#include "models/raft/raft.hpp"
#include "models/raft/raftpb_util.hpp"
#include "models/raft/util.hpp"
#include "sim/assert.hpp"

namespace hasim::raft {

using text::cat;
using text::hex;

std::string_view error_text(RaftError error) {
  switch (error) {
    case RaftError::Ok:
      return "";
    case RaftError::ErrProposalDropped:
      return "raft proposal dropped";
    case RaftError::ErrStepLocalMsg:
      return "raft: cannot step raft local message";
    case RaftError::ErrStepPeerNotFound:
      return "raft: cannot step as peer not found";
  }
  return "unknown raft error";
}

Message conf_change_to_msg(const ConfChangeI& c) {
  // nil unmarshals into the empty ConfChangeV2 (leave joint), and its size counts as zero,
  // so the uncommitted-size limit can never refuse it.
  const MarshalledConfChange marshalled = marshal_conf_change(c);
  Entry e;
  e.type = marshalled.type;
  e.typeSet = true;
  e.data = marshalled.data;
  e.dataSet = marshalled.dataSet;
  Message m;
  m.type = MessageType::MsgProp;
  m.entries.push_back(std::move(e));
  return m;
}

namespace {
// A message the application steps into its own raft (MsgHup, MsgUnreachable, ...), with
// `from` naming the peer it is about, if any.
Message local_msg(MessageType type, PeerId from = None) {
  Message m;
  m.type = type;
  m.from = from;
  return m;
}
}  // namespace

bool must_sync(const HardState& st, const HardState& prevst, std::size_t entsnum) {
  // Persistent state (currentTerm, votedFor, log[]) must be durable before answering RPCs
  // (Raft Figure 2); the commit index need not be.
  return entsnum != 0 || st.vote != prevst.vote || st.term != prevst.term;
}

RawNode::RawNode(Config config) : asyncStorageWrites_(config.asyncStorageWrites) {
  raft_ = std::make_unique<Raft>(config);
  prevSoftSt_ = raft_->soft_state();
  prevHardSt_ = raft_->hard_state();
}

RawNode::~RawNode() = default;

void RawNode::tick() { raft_->tick(); }

// TickQuiesced: time passes without heartbeats (an idle group), so elections still time out.
void RawNode::tick_quiesced() { ++raft_->electionElapsed; }

RaftError RawNode::campaign() {
  return raft_->step(local_msg(MessageType::MsgHup));
}

RaftError RawNode::propose(std::string data) {
  Message m = local_msg(MessageType::MsgProp, raft_->id);
  Entry e;
  e.data = std::move(data);
  e.dataSet = true;  // []byte(data): set even when empty (it counts in the entry's size)
  m.entries.push_back(std::move(e));
  return raft_->step_taken(m);
}

RaftError RawNode::propose_conf_change(const ConfChangeI& cc) {
  return raft_->step(conf_change_to_msg(cc));
}

ConfState RawNode::apply_conf_change(const ConfChangeI& cc) {
  return raft_->apply_conf_change(as_v2(cc));
}

RaftError RawNode::step(Message&& m) {
  // Local messages (MsgHup, MsgBeat, ...) come only from the node itself or its storage
  // threads; responses only from known peers.
  if (is_local_msg(m.type) && !is_local_msg_target(m.from)) return RaftError::ErrStepLocalMsg;
  if (is_response_msg(m.type) && !is_local_msg_target(m.from) &&
      raft_->trk.progress.find(m.from) == raft_->trk.progress.end()) {
    return RaftError::ErrStepPeerNotFound;
  }
  return raft_->step_taken(m);
}

Ready RawNode::ready() {
  Ready rd = take_ready();
  accept_ready(rd);
  HASIM_ASSERT(raft_->msgs.empty() && raft_->msgsAfterAppend.empty());
  return rd;
}

// Upstream's readyWithoutAccept, except that what accept_ready clears anyway (r.msgs, the
// messages after append) moves into the Ready instead of being copied; the Ready is the same,
// messages in the same order. r.msgs goes on with the spare buffer's capacity (recycle).
Ready RawNode::take_ready() {
  Raft& r = *raft_;
  Ready rd;
  rd.entries = r.raftLog.next_unstable_ents();
  rd.committedEntries = r.raftLog.next_committed_ents(apply_unstable_entries());
  rd.messages.swap(r.msgs);
  r.msgs.swap(spareMsgs_);
  HASIM_ASSERT(r.msgs.empty());
  if (SoftState softSt = r.soft_state(); softSt != prevSoftSt_) rd.softState = softSt;
  if (HardState hardSt = r.hard_state(); hardSt != prevHardSt_) rd.hardState = hardSt;
  if (r.raftLog.has_next_unstable_snapshot()) rd.snapshot = r.raftLog.next_unstable_snapshot();
  if (!r.readStates.empty()) rd.readStates = r.readStates;
  rd.mustSync = must_sync(r.hard_state(), prevHardSt_, rd.entries.size());
  if (asyncStorageWrites_) {
    if (need_storage_append_msg(rd)) rd.messages.push_back(new_storage_append_msg(rd));
    if (!rd.committedEntries.empty()) rd.messages.push_back(new_storage_apply_msg(rd));
  } else {
    // Synchronous storage: the application persists before sending, so the messages that
    // wait for durability go out with this Ready (those to ourselves are stepped on
    // Advance instead, by accept_ready, which skips the moved ones by their `to`).
    for (Message& m : r.msgsAfterAppend) {
      if (m.to != r.id) rd.messages.push_back(std::move(m));
    }
  }
  return rd;
}

void RawNode::recycle(std::vector<Message>&& messages) {
  messages.clear();
  if (messages.capacity() > spareMsgs_.capacity()) spareMsgs_.swap(messages);
}

bool RawNode::need_storage_append_msg(const Ready& rd) const {
  return !rd.entries.empty() || (rd.hardState && !is_empty_hard_state(*rd.hardState)) ||
         (rd.snapshot && !is_empty_snap(*rd.snapshot)) || !raft_->msgsAfterAppend.empty();
}

bool RawNode::need_storage_append_resp_msg(const Ready& rd) const {
  return raft_->raftLog.has_next_or_in_progress_unstable_ents() ||
         (rd.snapshot && !is_empty_snap(*rd.snapshot));
}

// MsgStorageAppend: the append thread persists the entries, hard state and snapshot, then
// delivers its responses (the messages that waited for durability, and the ack to us).
Message RawNode::new_storage_append_msg(const Ready& rd) const {
  Message m;
  m.type = MessageType::MsgStorageAppend;
  m.to = LocalAppendThread;
  m.from = raft_->id;
  m.entries = rd.entries;
  if (rd.hardState && !is_empty_hard_state(*rd.hardState)) {
    m.term = rd.hardState->term;
    m.vote = rd.hardState->vote;
    m.commit = rd.hardState->commit;
  }
  if (rd.snapshot && !is_empty_snap(*rd.snapshot)) m.snapshot = rd.snapshot;
  m.responses = raft_->msgsAfterAppend;
  if (need_storage_append_resp_msg(rd)) m.responses.push_back(new_storage_append_resp_msg(rd));
  return m;
}

Message RawNode::new_storage_append_resp_msg(const Ready& rd) const {
  Message m;
  m.type = MessageType::MsgStorageAppendResp;
  m.to = raft_->id;
  m.from = LocalAppendThread;
  // The term tells raft whether the entries it acknowledges may have been overwritten by a
  // leader of a later term in the meantime.
  m.term = raft_->term;
  if (raft_->raftLog.has_next_or_in_progress_unstable_ents()) {
    const EntryID last = raft_->raftLog.last_entry_id();
    m.index = last.index;
    m.logTerm = last.term;
  }
  if (rd.snapshot && !is_empty_snap(*rd.snapshot)) m.snapshot = rd.snapshot;
  return m;
}

Message RawNode::new_storage_apply_msg(const Ready& rd) const {
  Message m;
  m.type = MessageType::MsgStorageApply;
  m.to = LocalApplyThread;
  m.from = raft_->id;
  m.term = 0;  // committed entries apply under no particular term
  m.entries = rd.committedEntries;
  m.responses.push_back(new_storage_apply_resp_msg(rd.committedEntries));
  return m;
}

Message RawNode::new_storage_apply_resp_msg(const std::vector<Entry>& ents) const {
  Message m;
  m.type = MessageType::MsgStorageApplyResp;
  m.to = raft_->id;
  m.from = LocalApplyThread;
  m.term = 0;
  m.entries = ents;
  return m;
}

void RawNode::accept_ready(const Ready& rd) {
  Raft& r = *raft_;
  if (rd.softState) prevSoftSt_ = *rd.softState;
  if (rd.hardState && !is_empty_hard_state(*rd.hardState)) prevHardSt_ = *rd.hardState;
  if (!rd.readStates.empty()) r.readStates.clear();
  if (!asyncStorageWrites_) {
    if (!stepsOnAdvance_.empty()) r.logger->panic("two accepted Ready structs without call to Advance");
    // Cleared below: the messages to ourselves move (take_ready moved the others out).
    for (Message& m : r.msgsAfterAppend) {
      if (m.to == r.id) stepsOnAdvance_.push_back(std::move(m));
    }
    if (need_storage_append_resp_msg(rd)) stepsOnAdvance_.push_back(new_storage_append_resp_msg(rd));
    if (!rd.committedEntries.empty()) {
      stepsOnAdvance_.push_back(new_storage_apply_resp_msg(rd.committedEntries));
    }
  }
  r.msgs.clear();
  r.msgsAfterAppend.clear();
  r.raftLog.accept_unstable();
  // Every unstable entry handed out is now in progress; none is handed out twice.
  HASIM_ASSERT(!r.raftLog.has_next_unstable_ents());
  if (!rd.committedEntries.empty()) {
    r.raftLog.accept_applying(rd.committedEntries.back().index, ents_size(rd.committedEntries),
                              apply_unstable_entries());
  }
}

// With synchronous storage, committed entries may be applied before they are durable
// locally (they are durable on a quorum); with async writes the apply thread could overtake
// the append thread, so it may not.
bool RawNode::apply_unstable_entries() const { return !asyncStorageWrites_; }

bool RawNode::has_ready() const {
  const Raft& r = *raft_;
  if (r.soft_state() != prevSoftSt_) return true;
  if (HardState hs = r.hard_state(); !is_empty_hard_state(hs) && hs != prevHardSt_) return true;
  if (r.raftLog.has_next_unstable_snapshot()) return true;
  if (!r.msgs.empty() || !r.msgsAfterAppend.empty()) return true;
  if (r.raftLog.has_next_unstable_ents() ||
      r.raftLog.has_next_committed_ents(apply_unstable_entries())) {
    return true;
  }
  return !r.readStates.empty();
}

void RawNode::advance(const Ready&) {
  if (asyncStorageWrites_) {
    raft_->logger->panic("Advance must not be called when using AsyncStorageWrites");
  }
  // Stepped from a second buffer, so that both keep their capacity from Ready to Ready
  // (stepping never accepts a Ready, so nothing is added to stepsOnAdvance_ meanwhile).
  advancing_.clear();
  advancing_.swap(stepsOnAdvance_);
  for (Message& m : advancing_) (void)raft_->step_taken(m);
  advancing_.clear();
}

BasicStatus RawNode::basic_status() const {
  const Raft& r = *raft_;
  return BasicStatus{r.id, r.hard_state(), r.soft_state(), r.raftLog.applied, r.leadTransferee};
}

Status RawNode::status() const {
  Status s;
  s.basic = basic_status();
  if (s.basic.softState.raftState == StateType::StateLeader) s.progress = raft_->trk.progress;
  s.config = raft_->trk.config;
  return s;
}

void RawNode::with_progress(
    const std::function<void(PeerId, ProgressType, const Progress&)>& visitor) const {
  for (const auto& [id, pr] : raft_->trk.progress) {
    visitor(id, pr.isLearner ? ProgressType::ProgressTypeLearner : ProgressType::ProgressTypePeer, pr);
  }
}

void RawNode::report_unreachable(PeerId id) {
  (void)raft_->step(local_msg(MessageType::MsgUnreachable, id));
}

void RawNode::report_snapshot(PeerId id, SnapshotStatus status) {
  Message m = local_msg(MessageType::MsgSnapStatus, id);
  m.reject = status == SnapshotStatus::SnapshotFailure;
  (void)raft_->step(std::move(m));
}

void RawNode::transfer_leader(PeerId transferee) {
  (void)raft_->step(local_msg(MessageType::MsgTransferLeader, transferee));
}

RaftError RawNode::forget_leader() {
  return raft_->step(local_msg(MessageType::MsgForgetLeader));
}

void RawNode::read_index(std::string rctx) {
  Message m = local_msg(MessageType::MsgReadIndex);
  Entry e;
  e.data = std::move(rctx);
  m.entries.push_back(std::move(e));
  (void)raft_->step(std::move(m));
}

void RawNode::set_randomized_election_timeout(int timeout) {
  raft_->set_randomized_election_timeout(timeout);
}

std::string Status::to_string() const {
  std::string j = cat("{\"id\":\"", hex(basic.id), "\",\"term\":", basic.hardState.term,
                      ",\"vote\":\"", hex(basic.hardState.vote), "\",\"commit\":",
                      basic.hardState.commit, ",\"lead\":\"", hex(basic.softState.lead),
                      "\",\"raftState\":\"", name(basic.softState.raftState), "\",\"applied\":",
                      basic.applied, ",\"progress\":{");
  // Upstream walks a Go map (random order); hasim prints in ID order.
  bool first = true;
  for (const auto& [id, pr] : progress) {
    if (!first) j += ',';
    first = false;
    j += cat("\"", hex(id), "\":{\"match\":", pr.match, ",\"next\":", pr.next, ",\"state\":\"",
             name(pr.state), "\"}");
  }
  j += cat("},\"leadtransferee\":\"", hex(basic.leadTransferee), "\"}");
  return j;
}

}  // namespace hasim::raft
