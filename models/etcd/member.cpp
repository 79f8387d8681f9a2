#include "models/etcd/member.hpp"

#include <algorithm>
#include <charconv>
#include <typeinfo>

#include "models/etcd/trace_entries.hpp"
#include "models/etcd/trace_kinds.hpp"
#include "models/etcd/wal.hpp"
#include "models/raft/raftpb_util.hpp"
#include "sim/assert.hpp"
#include "sim/fnv.hpp"

namespace hasim::etcd {
namespace {

// Timer values in the tick space.
constexpr std::uint64_t kTick = 0;
constexpr std::uint64_t kAdvanceTicks = 1;
// IO values in the WAL space: whose operation completed.
constexpr std::uint64_t kReadyIo = 0;
constexpr std::uint64_t kSnapshotIo = 1;

// etcd's raft limits (etcdserver/raft.go): 1 MiB per append message, 4096/8 in flight.
constexpr std::uint64_t kMaxSizePerMsg = 1024 * 1024;
constexpr int kMaxInflightMsgs = 4096 / 8;
// adjustTicks polls the peer connections every 50 ms (server.go).
constexpr Duration kPeerPoll = milliseconds(50);
// Readys taken in one go at most (each is small; a loop must be bounded).
constexpr int kMaxReadysPerPump = 1'000;

std::int64_t i64(std::uint64_t value) { return static_cast<std::int64_t>(value); }

}  // namespace

raft::Snapshot bootstrap_snapshot(std::size_t members) {
  raft::Snapshot snap;
  snap.metadata.index = 1;
  snap.metadata.term = 1;
  for (std::size_t i = 0; i < members; ++i) snap.metadata.confState.voters.push_back(i + 1);
  return snap;
}

EtcdMember::EtcdMember(EtcdConfig config, raft::PeerId id)
    : config_(std::move(config)),
      id_(id),
      kv_(KvServerConfig{id, config_.electionTimeout, config_.quotaBackendBytes,
                         config_.defragBytesPerSecond}) {
  // An ID beyond members and standby is one a client added at runtime: only the address
  // book knows where it is.
  HASIM_ASSERT(id_ >= 1 &&
               (id_ <= config_.members.size() + config_.standby.size() ||
                (config_.directory != nullptr && config_.directory->address(id_).has_value())));
  HASIM_ASSERT(config_.heartbeatInterval.ns > 0);
  HASIM_ASSERT(config_.tick_interval().ns > 0);
  HASIM_ASSERT(config_.election_ticks() > 1);
  HASIM_ASSERT(!config_.paper() ||
               (config_.election_ticks_max() >= config_.election_ticks() &&
                config_.heartbeat_ticks() >= 1 && !config_.preVote && !config_.checkQuorum));
}

EtcdMember::~EtcdMember() = default;

// raft panics (RaftPanic) kill the etcd process, as a Go panic exits it with status 2; the
// kubelet or systemd starts it again, and it panics again if its data is still inconsistent.
template <typename F>
void EtcdMember::guarded(Env& env, F&& body) {
  if (dead_) return;
  try {
    body();
  } catch (const raft::RaftPanic& panic) {
    dead_ = true;
    env.trace(trace_kind::kFatal, {{"member", i64(id_)}, {"error", std::string(panic.what())}});
    env.exit(2);
  }
}

void EtcdMember::on_start(Env& env) {
  guarded(env, [&] { start_member(env); });
}
void EtcdMember::on_timer(Env& env, TimerId, std::uint64_t tag) {
  guarded(env, [&] { handle_timer(env, tag); });
}
void EtcdMember::on_message(Env& env, ProcessId from, const Message& message) {
  guarded(env, [&] { handle_message(env, from, message); });
}
void EtcdMember::on_io(Env& env, const IoCompletion& io) {
  guarded(env, [&] { handle_io(env, io); });
}
void EtcdMember::on_terminate(Env& env) {
  guarded(env, [&] { start_shutdown(env); });
}

void EtcdMember::start_member(Env& env) {
  ticks_ = env.tag_space("raft-tick");
  io_ = env.tag_space("wal");
  client_ = env.tag_space("client");
  removal_ = env.tag_space("member-removal");
  kvTimers_ = env.tag_space("kv");
  if (config_.directory == nullptr) config_.directory = std::make_shared<MemberDirectory>();
  resolve_peers(env);
  api_ = std::make_unique<MemberApi>(id_, config_.directory);
  if (refuses_to_start(env)) return;
  recover(env);
  node_ = std::make_unique<raft::RawNode>(raft_config(env));
  kv_.set_node(node_.get());
  kv_.seed_ids(env.now());  // etcdserver's reqIDGen: idutil.NewGenerator(id, time.Now())
  env.set_timer(first_tick(env), ticks_.tag(kTick));
  // The paper's servers start with a plain election timeout (no etcd adjustTicks).
  if (!config_.paper()) env.set_timer(kPeerPoll, ticks_.tag(kAdvanceTicks));
  if (config_.rate > 0 && !standby()) {
    // Members take turns: member k proposes at k/rate, then every members/rate.
    env.set_timer(Duration{i64(id_) * 1'000'000'000 / config_.rate}, client_.tag());
  }
  pump(env);
}

void EtcdMember::recover(Env& env) {
  const Replayed replayed =
      // A standby member joins an existing cluster: no initial configuration, no log.
      replay(standby() ? raft::Snapshot{} : bootstrap_snapshot(config_.members.size()),
             [&env](const std::string& file) -> const std::vector<std::string>& {
               return env.read(kVolume, file);
             });
  load(replayed, storage_);
  hardState_ = replayed.state;
  recover_cluster(replayed);
  install(replayed.snapshot);
  firstSegment_ = replayed.firstSegment;
  segmentStarts_ = replayed.segmentStarts;
  if (segmentStarts_.empty()) segmentStarts_.push_back(0);
  // Segment 0 has no marker: it starts after the bootstrap snapshot.
  if (segmentStarts_.front() == 0) segmentStarts_.front() = replayed.snapshot.metadata.index + 1;
  const raft::SnapshotMetadata& m = replayed.snapshot.metadata;
  env.trace(trace_kind::kRecovered, {{"member", i64(id_)},
                                     {"snap-index", i64(m.index)},
                                     {"snap-term", i64(m.term)},
                                     {"first", i64(m.index + 1)},
                                     {"ents", encode_trace_entries(replayed.entries)},
                                     {"term", i64(replayed.state.term)},
                                     {"vote", i64(replayed.state.vote)},
                                     {"commit", i64(replayed.state.commit)}});
}

raft::Config EtcdMember::raft_config(Env& env) {
  // etcdserver/bootstrap.go raftConfig.
  raft::Config c;
  c.id = id_;
  c.electionTick = config_.election_ticks();
  c.electionTickMax = config_.election_ticks_max();
  c.keepElectionTimerOnNewTerm = config_.paper() && config_.paperTimerRule;
  c.heartbeatTick = config_.heartbeat_ticks();
  c.storage = &storage_;
  c.maxSizePerMsg = kMaxSizePerMsg;
  c.maxInflightMsgs = kMaxInflightMsgs;
  c.checkQuorum = config_.checkQuorum;
  c.preVote = config_.preVote;
  c.randomSeed = env.rng().next_u64();
  return c;
}

Duration EtcdMember::first_tick(Env& env) const {
  if (!config_.paper()) return config_.heartbeatInterval;
  // A random phase in (0, tick]. The paper's servers run continuous timers that nothing
  // aligns; members that all started ticking at one instant would share one tick grid, so
  // two timeouts a fraction of a tick apart would fire at the very same instant and split
  // the vote more often than real servers do (most visibly in the 150-150 and 150-151 ms
  // lines). With its own phase, a member's timeout after a heartbeat that arrives at a
  // random instant is (R - 1) ticks plus a uniform fraction of one: uniform over
  // [A - tick, B) rather than on a grid.
  const std::uint64_t tick = static_cast<std::uint64_t>(config_.tick.ns);
  return Duration{static_cast<std::int64_t>(1 + env.rng().below(tick))};
}

void EtcdMember::handle_timer(Env& env, std::uint64_t tag) {
  if (shutdown_.owns(tag)) return shutdown_poll(env);
  if (removal_.owns(tag)) {
    // stopWithDelay: "the member has been permanently removed from the cluster".
    env.trace(trace_kind::kRemoved, {{"member", i64(id_)}});
    env.exit(0);
    return;
  }
  if (kvTimers_.owns(tag)) {
    on_kv_timer(env, tag);
  } else if (client_.owns(tag)) {
    propose(env);
    env.set_timer(Duration{i64(config_.members.size()) * 1'000'000'000 / config_.rate},
                  client_.tag());
  } else if (ticks_.local(tag) == kTick) {
    node_->tick();
    env.set_timer(config_.tick_interval(), ticks_.tag(kTick));
  } else {
    // adjustTicks: "in case slow leader message receive", start closer to an election.
    const int ticks = config_.election_ticks() - (config_.members.size() == 1 ? 1 : 2);
    for (int i = 0; i < ticks; ++i) node_->tick();
  }
  pump(env);
}

void EtcdMember::handle_message(Env& env, ProcessId from, const Message& message) {
  // Peer messages first: nearly every message is one.
  const auto* raft = message_as<RaftMessage>(*message);
  if (raft == nullptr) {
    if (const auto* kv = message_as<KvRequest>(*message)) {
      on_kv_request(env, from, *kv);
      pump(env);
      return;
    }
    if (on_kv_message(from, *message)) {
      pump(env);
      return;
    }
    const auto* request = message_as<MemberRequest>(*message);
    // connection-closed: rafthttp redials; raft needs nothing.
    if (request == nullptr) return;
    on_member_request(env, from, *request);
    pump(env);
    return;
  }
  // Cluster 0: posted in-process (a study's harness stepping a member), not by a peer's
  // transport, which always names its cluster.
  if (raft->cluster != 0 && raft->cluster != wireCluster_ && refuse_cluster(env, *raft)) return;
  api_->heard(raft->message.from, env.monotonic_now());
  // A message of a peer not (or no longer) in the configuration is refused by raft
  // (ErrStepPeerNotFound), as etcd's Process drops it. The delivered flight is usually the
  // body's sole owner (a duplicated datagram's copies share it): then nobody else can read
  // it, and raft takes its entries without a copy. The body was made non-const
  // (std::make_shared in send), so moving out of it is defined.
  if (message.use_count() == 1) {
    (void)node_->step(std::move(const_cast<RaftMessage*>(raft)->message));
  } else {
    (void)node_->step(raft->message);
  }
  pump(env);
}

void EtcdMember::propose(Env& env) {
  const std::uint64_t seq = ++proposals_;
  // "m<id>-<seq>", built on the stack (std::to_string's digits, without its temporaries).
  char digits[20];  // any 64-bit value
  std::string data(1, 'm');
  data.append(digits, std::to_chars(digits, digits + sizeof digits, id_).ptr);
  data.push_back('-');
  data.append(digits, std::to_chars(digits, digits + sizeof digits, seq).ptr);
  const raft::RaftError err = node_->propose(std::move(data));
  if (!env.tracing(trace_kind::kPropose)) return;
  env.trace(trace_kind::kPropose,
            {{"member", i64(id_)},
             {"seq", i64(seq)},
             {"result", err == raft::RaftError::Ok ? std::string("ok")
                                                   : std::string(raft::error_text(err))}});
}

// --- the Ready loop (etcdserver/raft.go raftNode.start) ----------------------------------

void EtcdMember::pump(Env& env) {
  // Between Readys: entries held by a finished defragmentation are applied first.
  if (phase_ == Phase::idle && !stalled_.empty() && !kv_.defragmenting()) resume_applies(env);
  for (int i = 0; i < kMaxReadysPerPump && phase_ == Phase::idle && node_->has_ready(); ++i) {
    start_ready(env);
  }
  if (phase_ == Phase::idle) maybe_snapshot(env);
  flush_kv(env);
}

void EtcdMember::start_ready(Env& env) {
  HASIM_ASSERT(phase_ == Phase::idle && !ready_);
  ready_ = node_->ready();
  raft::Ready& rd = *ready_;
  if (rd.softState) {
    leader_ = rd.softState->raftState == raft::StateType::StateLeader;
    trace_state(env, *rd.softState);
    api_->lead_changed(env, rd.softState->lead);
  }
  kv_ready(env, rd);
  // "the leader can write to its disk in parallel with replicating to the followers and
  // then writing to their disks" (raft thesis 10.2.1): the leader sends first.
  if (leader_ || config_.unsafeAckBeforeFsync) send(env, rd.messages);
  if (config_.paper() && !leader_) send_vote_requests(env, rd.messages);
  write_ready(env, rd);
  if (pending_ready_ == 0 || config_.unsafeAckBeforeFsync)
    finish_ready(env);
  else
    phase_ = Phase::writing;
}

void EtcdMember::write_ready(Env& env, const raft::Ready& rd) {
  bool sync = rd.mustSync;
  if (rd.snapshot && !raft::is_empty_snap(*rd.snapshot)) {
    // SaveSnap: the snapshot file first (synced even by the mutation: it is not a Ready's
    // acknowledgement), then its marker in the WAL, synced (wal.go SaveSnapshot).
    const std::string_view snap = take_snap_file(env, kVolume);
    append(env, snap, encode(SnapRecord{*rd.snapshot, current_segment()}), kReadyIo);
    fsync(env, snap, kReadyIo);
    const raft::SnapshotMetadata& m = rd.snapshot->metadata;
    encoder_.encode(marker_record({m.index, m.term, true, 0}));
    sync = true;
  }
  // wal.go Save: the entries, then the HardState, into the encoder; then, if raft.MustSync,
  // wal.sync: flush and fdatasync. A commit-only HardState waits in the buffer.
  for (const raft::Entry& e : rd.entries) encoder_.encode(e);
  if (rd.hardState) encoder_.encode(*rd.hardState);
  if (encoder_.empty() || !(sync || config_.unsafeAckBeforeFsync)) return;
  const std::string& segment = current_segment_name();
  append(env, segment, encoder_.flush(), kReadyIo);
  // The mutation flushes every Save to the page cache and never fsyncs it.
  if (!config_.unsafeAckBeforeFsync) fsync(env, segment, kReadyIo);
}

void EtcdMember::finish_ready(Env& env) {
  HASIM_ASSERT(ready_.has_value());
  raft::Ready& rd = *ready_;
  if (rd.snapshot && !raft::is_empty_snap(*rd.snapshot)) {
    const raft::StorageError err = storage_.apply_snapshot(*rd.snapshot);
    HASIM_ASSERT(err == raft::StorageError::Ok);
    // applySnapshot runs in applyAll, behind a defragmentation like the entries.
    if (applies_stalled()) {
      stalled_.push_back(StalledApply{*rd.snapshot, {}});
    } else {
      install(*rd.snapshot);
      // A learner of an idle cluster applies nothing after the leader's snapshot but its
      // own published attributes (publishV3's entry): it has started.
      if (!published_) publish();
    }
    const raft::SnapshotMetadata& m = rd.snapshot->metadata;
    env.trace(trace_kind::kInstall,
              {{"member", i64(id_)}, {"index", i64(m.index)}, {"term", i64(m.term)}});
  }
  if (rd.hardState) hardState_ = *rd.hardState;
  // Traced before the entries move into the storage (MemoryStorage keeps them).
  trace_persist(env, rd);
  if (!rd.entries.empty()) {
    const raft::StorageError err = storage_.append(std::move(rd.entries));
    HASIM_ASSERT(err == raft::StorageError::Ok);
  }
  if (rd.hardState) storage_.set_hard_state(*rd.hardState);
  if (!leader_ && !config_.unsafeAckBeforeFsync) send(env, rd.messages);
  if (!applies_stalled()) {
    apply(env, rd.committedEntries);
  } else if (!rd.committedEntries.empty()) {
    stalledEntries_ += rd.committedEntries.size();
    HASIM_ASSERT(stalledEntries_ <= kMaxStalledEntries);
    stalled_.push_back(StalledApply{std::nullopt, std::move(rd.committedEntries)});
  }
  node_->advance(rd);
  node_->recycle(std::move(rd.messages));  // sent (by start_ready or above): empty
  ready_.reset();
  phase_ = Phase::idle;
}

// Paper mode: a candidate's RequestVotes go out while its own vote is being written, as the
// Raft paper's servers evidently did (their 150-155 ms line needs RequestVote to reach the
// others within about a millisecond of the timeout, while a broadcast took 15 ms), and as
// raft allows: the candidate counts its own vote only once it is durable (raft.go campaign:
// the self-vote is a response after the append). etcd itself sends a non-leader's messages
// after the WAL write (raft.go raftNode.start).
void EtcdMember::send_vote_requests(Env& env, std::vector<raft::Message>& messages) {
  std::vector<raft::Message> votes;
  std::vector<raft::Message> rest;
  for (raft::Message& m : messages) {
    const bool vote =
        m.type == raft::MessageType::MsgVote || m.type == raft::MessageType::MsgPreVote;
    (vote ? votes : rest).push_back(std::move(m));
  }
  messages = std::move(rest);
  send(env, votes);
}

// Sends the messages and empties the vector (its capacity goes back to raft: recycle).
void EtcdMember::send(Env& env, std::vector<raft::Message>& messages) {
  for (raft::Message& m : messages) {
    const raft::PeerId to = m.to;
    const bool snapshot = m.type == raft::MessageType::MsgSnap;
    HASIM_ASSERT(to >= 1);
    // The cached address: two compares per message; only an ID added later asks further.
    if ((to > peers_.size() || peers_[to - 1] == kUnresolved) && !resolve_peer(to)) [[unlikely]] {
      // rafthttp Transport.Send: "ignored message send request; unknown remote peer
      // target". raft hears a snapshot failed, so it probes again once an address exists.
      if (snapshot) node_->report_snapshot(to, raft::SnapshotStatus::SnapshotFailure);
      continue;
    }
    if (snapshot && applies_stalled()) {
      // etcd merges a MsgSnap in applyAll (msgSnapC), behind the defragmentation: raft
      // hears it failed and probes again later.
      node_->report_snapshot(to, raft::SnapshotStatus::SnapshotFailure);
      continue;
    }
    if (snapshot) m.snapshot = merged_snapshot();
    env.send(peers_[to - 1], std::make_shared<RaftMessage>(std::move(m), wireCluster_),
             Transport::stream);
    // rafthttp's snapshot sender reports the outcome; the stream here either delivers it or
    // loses it, and a lost one is retried after the follower's next probe.
    if (snapshot) node_->report_snapshot(to, raft::SnapshotStatus::SnapshotFinish);
  }
  messages.clear();
}

void EtcdMember::apply(Env& env, const std::vector<raft::Entry>& entries) {
  if (entries.empty()) return;
  for (const raft::Entry& e : entries) {
    HASIM_ASSERT(e.index == applied_ + 1);
    if (e.type == raft::EntryType::EntryConfChange) {
      const auto cc = raft::unmarshal_conf_change(e.data);
      HASIM_ASSERT(cc.has_value());
      confState_ = node_->apply_conf_change(*cc);
      conf_change_applied(env, *cc);
      update_kv_membership();
    } else if (e.type == raft::EntryType::EntryConfChangeV2) {
      const auto cc = raft::unmarshal_conf_change_v2(e.data);
      HASIM_ASSERT(cc.has_value());
      confState_ = node_->apply_conf_change(*cc);
      update_kv_membership();
    } else if (!e.data.empty()) {
      (void)kv_.apply(e.data, kvOut_);  // an encoded request, or the rate's opaque data
      stateHash_ = fnv1a_word(fnv1a_word(stateHash_, e.index), entry_payload_hash(e));
    } else {
      kv_.on_first_commit_in_term(kvOut_);  // applyEntryNormal: firstCommitInTerm
    }
    applied_ = e.index;
  }
  kv_.applied_to(applied_, kvOut_);
  const bool traced = env.tracing(trace_kind::kApply);  // asked once: a lookup by kind
  if (traced && kv_.empty()) {
    env.trace(trace_kind::kApply, {{"member", i64(id_)},
                                   {"first", i64(entries.front().index)},
                                   {"ents", encode_trace_entries(entries)},
                                   {"hash", i64(stateHash_)}});
  } else if (traced) {
    // Once clients have written, the store's revision too: quorum-recovery maps the log a
    // member kept to the revisions it holds (properties/etcd_store/quorum_recovery.hpp). A
    // store nobody wrote adds nothing, so request-free runs keep their trace bytes.
    env.trace(trace_kind::kApply, {{"member", i64(id_)},
                                   {"first", i64(entries.front().index)},
                                   {"ents", encode_trace_entries(entries)},
                                   {"hash", i64(stateHash_)},
                                   {"rev", kv_.store().current_revision()}});
  }
  if (!published_) publish();  // etcd's publish: the member applies, so it has started
}

void EtcdMember::install(const raft::Snapshot& snapshot) {
  confState_ = snapshot.metadata.confState;
  applied_ = snapshot.metadata.index;
  snapshotIndex_ = snapshot.metadata.index;
  // The hash's 8 bytes (none in the bootstrap snapshot), then the KV store if it has one.
  const std::string_view data = snapshot.data;
  const std::size_t hashBytes = std::min<std::size_t>(data.size(), 8);
  stateHash_ = 0;
  for (char c : data.substr(0, hashBytes)) {
    stateHash_ = (stateHash_ << 8) | static_cast<unsigned char>(c);
  }
  if (data.size() > hashBytes) kv_.restore(data.substr(hashBytes));
  kv_.applied_to(applied_, kvOut_);
  update_kv_membership();
}

std::string EtcdMember::state_machine_data() const {
  std::string data;
  for (int shift = 56; shift >= 0; shift -= 8) {
    data.push_back(static_cast<char>((stateHash_ >> shift) & 0xff));
  }
  // A store nobody wrote adds nothing: request-free runs keep their snapshot bytes.
  if (!kv_.empty()) data += kv_.snapshot_data();
  return data;
}

void EtcdMember::trace_persist(Env& env, const raft::Ready& rd) {
  if ((rd.entries.empty() && !rd.hardState) || !env.tracing(trace_kind::kPersist)) return;
  const raft::HardState& hs = hardState_;
  env.trace(trace_kind::kPersist,
            {{"member", i64(id_)},
             {"first", i64(rd.entries.empty() ? 0 : rd.entries.front().index)},
             {"ents", encode_trace_entries(rd.entries)},
             {"term", i64(hs.term)},
             {"commit", i64(hs.commit)}});
}

void EtcdMember::trace_state(Env& env, const raft::SoftState& soft) {
  env.trace(trace_kind::kState, {{"member", i64(id_)},
                                 {"term", i64(node_->basic_status().hardState.term)},
                                 {"state", std::string(raft::name(soft.raftState))},
                                 {"lead", i64(soft.lead)}});
}

// --- disk ------------------------------------------------------------------------------------

void EtcdMember::append(Env& env, std::string_view file, std::string record, std::uint64_t what) {
  ++(what == kReadyIo ? pending_ready_ : pending_snapshot_);
  env.append(kVolume, file, std::move(record), io_.tag(what));
}

const std::string& EtcdMember::current_segment_name() {
  const std::uint64_t segment = current_segment();
  if (namedSegment_ != segment) {
    segmentName_ = wal_segment_name(segment);
    namedSegment_ = segment;
  }
  return segmentName_;
}

void EtcdMember::fsync(Env& env, std::string_view file, std::uint64_t what) {
  ++(what == kReadyIo ? pending_ready_ : pending_snapshot_);
  env.fsync(kVolume, file, io_.tag(what));
}

void EtcdMember::handle_io(Env& env, const IoCompletion& io) {
  if (io.status != IoStatus::ok) {
    // etcd cannot go on without its WAL: "failed to save raft hard state and entries"
    // (raft.go) is fatal, and its supervisor restarts it.
    env.trace(trace_kind::kFatal,
              {{"member", i64(id_)}, {"error", std::string(io_status_name(io.status))}});
    env.exit(1);
    return;
  }
  const std::uint64_t what = io_.local(io.tag);
  std::uint64_t& pending = what == kReadyIo ? pending_ready_ : pending_snapshot_;
  HASIM_ASSERT(pending > 0);
  if (--pending != 0) return;
  if (what == kReadyIo && phase_ == Phase::writing) finish_ready(env);
  if (what == kSnapshotIo && phase_ == Phase::snapshot_file)
    cut_segment(env);
  else if (what == kSnapshotIo && phase_ == Phase::snapshot_cut)
    finish_snapshot(env);
  pump(env);
}

// --- snapshots (etcdserver/server.go triggerSnapshot, snapshot) --------------------------

void EtcdMember::maybe_snapshot(Env& env) {
  if (applied_ - snapshotIndex_ <= config_.snapshotCount) return;
  HASIM_ASSERT(phase_ == Phase::idle && pending_snapshot_ == 0);
  auto snap = storage_.create_snapshot(applied_, &confState_, state_machine_data());
  HASIM_ASSERT(snap.ok());
  snapshotting_ = std::move(snap.value);
  // The segments wholly covered by the snapshot go once it is on disk: segment k holds only
  // entries below the start of k+1 (the new segment starts after the last entry written).
  const raft::Index nextStart = storage_.last_index().value + 1;
  neededSegment_ = firstSegment_;
  for (std::size_t k = 0; k < segmentStarts_.size(); ++k) {
    const raft::Index after = k + 1 < segmentStarts_.size() ? segmentStarts_[k + 1] : nextStart;
    if (after > applied_ + 1) break;
    neededSegment_ = firstSegment_ + k + 1;
  }
  phase_ = Phase::snapshot_file;
  SnapRecord record{raft::Snapshot{{}, snapshotting_->metadata}, neededSegment_};
  record.snapshot.data = std::move(snapshotting_->data);  // only the metadata is kept
  const std::string_view file = take_snap_file(env, kVolume);
  append(env, file, encode(record), kSnapshotIo);
  fsync(env, file, kSnapshotIo);
}

void EtcdMember::cut_segment(Env& env) {
  // wal.go cut: a new segment begins with the snapshot marker and the current HardState.
  HASIM_ASSERT(snapshotting_.has_value());
  // The old segment's buffered records (commit-only HardStates) are flushed and synced
  // before the new one starts (wal.go cut: w.sync()).
  phase_ = Phase::snapshot_cut;
  if (!encoder_.empty()) {
    const std::string old = wal_segment_name(current_segment());
    append(env, old, encoder_.flush(), kSnapshotIo);
    fsync(env, old, kSnapshotIo);
  }
  const raft::Index start = storage_.last_index().value + 1;
  segmentStarts_.push_back(start);
  const std::string segment = wal_segment_name(current_segment());
  const raft::SnapshotMetadata& m = snapshotting_->metadata;
  // wal.go cut: the metadata heads every segment (only a restored member has any).
  if (clusterId_ != 0) encoder_.encode(metadata_record(clusterId_));
  encoder_.encode(marker_record({m.index, m.term, false, start}));
  if (!raft::is_empty_hard_state(hardState_)) encoder_.encode(state_record(hardState_));
  append(env, segment, encoder_.flush(), kSnapshotIo);
  fsync(env, segment, kSnapshotIo);
}

void EtcdMember::finish_snapshot(Env& env) {
  HASIM_ASSERT(snapshotting_.has_value());
  const raft::SnapshotMetadata m = snapshotting_->metadata;
  // The purge (wal.ReleaseLockTo + the file purger): segments wholly covered go.
  while (firstSegment_ < neededSegment_) {
    env.remove(kVolume, wal_segment_name(firstSegment_));
    segmentStarts_.erase(segmentStarts_.begin());
    ++firstSegment_;
  }
  snapshotIndex_ = m.index;
  // Keep SnapshotCatchUpEntries in memory for followers that lag a little.
  raft::Index compact = 0;
  if (m.index > config_.snapshotCatchUpEntries) {
    compact = m.index - config_.snapshotCatchUpEntries;
    const raft::Index first = storage_.first_index().value;
    if (compact >= first) storage_.compact(compact);
  }
  env.trace(trace_kind::kSnapshot, {{"member", i64(id_)},
                                    {"index", i64(m.index)},
                                    {"term", i64(m.term)},
                                    {"compact", i64(compact)}});
  snapshotting_.reset();
  phase_ = Phase::idle;
}

}  // namespace hasim::etcd
