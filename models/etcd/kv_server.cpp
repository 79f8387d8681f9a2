#include "models/etcd/kv_server.hpp"

#include "models/etcd/kv_snapshot.hpp"
#include "models/etcd/mvcc/codec.hpp"
#include "models/etcd/mvcc/txn.hpp"
#include "sim/assert.hpp"

namespace hasim::etcd {
namespace {

using mvcc::InternalRaftRequest;

// Timer values: the kind in bits 52..55, a sequence number below.
constexpr int kKindShift = KvServer::kTimerKindShift;
constexpr std::uint64_t kSeqMask = (std::uint64_t{1} << kKindShift) - 1;
constexpr std::uint64_t kWriteTimeout = 1;
constexpr std::uint64_t kReadRetry = 2;
constexpr std::uint64_t kReadTimeout = 3;
// A request id as etcd's idutil.Generator makes it (pkg/idutil/id.go): the member id's low 16
// bits above a 48-bit suffix that starts at the member's wall clock in milliseconds (low 40
// bits) shifted by 8, and counts up. So ids never collide between members, nor between two
// incarnations of one member unless the clock went back or the old one made more than 256
// requests per millisecond since (apply answers the waiting request by id).
constexpr int kIdSuffixBits = 48;
constexpr std::uint64_t kIdSuffixMask = (std::uint64_t{1} << kIdSuffixBits) - 1;

std::uint64_t timer_value(std::uint64_t kind, std::uint64_t seq) {
  HASIM_ASSERT(seq <= kSeqMask);
  return (kind << kKindShift) | seq;
}

std::string read_context(std::uint64_t ctx) {
  std::string out;
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>(ctx >> shift));
  return out;
}

// isTxnSerializable (v3_server.go): every range of the txn's ops is serializable.
bool txn_serializable(const mvcc::TxnRequest& txn) {
  for (const auto* ops : {&txn.success, &txn.failure}) {
    for (const mvcc::RequestOp& op : *ops) {
      if (op.type != mvcc::RequestOp::Type::range || !op.range.serializable) return false;
    }
  }
  return true;
}

InternalRaftRequest internal_request(const KvRequest& request) {
  InternalRaftRequest r;
  switch (request.op) {
    case KvOp::range:
      HASIM_ASSERT(false && "a Range is a read");
      break;
    case KvOp::put:
      r.type = InternalRaftRequest::Type::put;
      r.put = request.put;
      break;
    case KvOp::delete_range:
      r.type = InternalRaftRequest::Type::delete_range;
      r.delete_range = request.delete_range;
      break;
    case KvOp::txn:
      r.type = InternalRaftRequest::Type::txn;
      r.txn = request.txn;
      break;
    case KvOp::compact:
      r.type = InternalRaftRequest::Type::compaction;
      r.compaction = request.compaction;
      break;
    case KvOp::alarm:  // v3_server.go Alarm: raftRequestOnce(InternalRaftRequest{Alarm})
      r.type = InternalRaftRequest::Type::alarm;
      r.alarm = request.alarm;
      break;
    case KvOp::defragment:
    case KvOp::snapshot:
      HASIM_ASSERT(false && "Defragment and Snapshot do not go through raft");
      break;
  }
  return r;
}

}  // namespace

std::string_view kv_op_name(KvOp op) {
  switch (op) {
    case KvOp::range:
      return "kv-range";
    case KvOp::put:
      return "kv-put";
    case KvOp::delete_range:
      return "kv-delete-range";
    case KvOp::txn:
      return "kv-txn";
    case KvOp::compact:
      return "kv-compact";
    case KvOp::alarm:
      return "kv-alarm";
    case KvOp::defragment:
      return "kv-defragment";
    case KvOp::snapshot:
      return "kv-snapshot";
  }
  return "kv-?";
}

KvServer::KvServer(KvServerConfig config)
    : config_(config),
      quota_(config.quota_backend_bytes),
      idPrefix_(config.member_id << kIdSuffixBits) {
  HASIM_ASSERT(config_.member_id > 0 && config_.member_id < (std::uint64_t{1} << 16));
}

void KvServer::on_request(LocalTime now, ProcessId from, const KvRequest& request, KvOutbox& out) {
  HASIM_ASSERT(node_ != nullptr);
  // v3rpc/interceptor.go: a learner serves only Status and serializable Range
  // (util.go isRPCSupportedForLearner).
  if (isLearner_ && !(request.op == KvOp::range && request.range.serializable)) {
    refuse(out, from, request, member_error::kNotSupportedForLearner);
    return;
  }
  if (request.require_leader && lead_ == raft::None) {
    refuse(out, from, request, kv_error::kNoLeader);
    return;
  }
  if (request.op == KvOp::defragment) {
    defragment(from, request, out);
    return;
  }
  if (request.op == KvOp::snapshot) {
    snapshot(from, request, out);
    return;
  }
  const bool readonly_txn = request.op == KvOp::txn && mvcc::is_txn_readonly(request.txn);
  if (request.op == KvOp::range || readonly_txn) {
    read(from, request, out);
    return;
  }
  write(now, from, request, out);
}

// v3rpc key.go + quota.go, then processInternalRaftRequestOnce (v3_server.go).
void KvServer::write(LocalTime now, ProcessId from, const KvRequest& request, KvOutbox& out) {
  if (request.op == KvOp::txn) {
    const mvcc::ServerError err = mvcc::check_txn_request(request.txn);
    if (err != mvcc::ServerError::none) {
      refuse(out, from, request, mvcc::grpc_error_text(err));
      return;
    }
  }
  InternalRaftRequest irr = internal_request(request);
  if (const auto alarm = mvcc::quota_check(quota_, store_, irr, config_.member_id)) {
    InternalRaftRequest raise;
    raise.id = next_id();
    raise.type = InternalRaftRequest::Type::alarm;
    raise.alarm = *alarm;
    propose(mvcc::encode_request(raise), raise.id, false);  // nobody waits on it
    refuse(out, from, request, mvcc::grpc_error_text(mvcc::ServerError::no_space));
    return;
  }
  const raft::BasicStatus st = node_->basic_status();
  if (st.hardState.commit > applied_ + kMaxGapApplyCommit) {
    refuse(out, from, request, kv_error::kTooManyRequests);
    return;
  }
  if (waits_.size() >= kMaxWaits) {  // a bound of the model, not etcd's
    refuse(out, from, request, kv_error::kTooManyRequests);
    return;
  }
  irr.id = next_id();
  const std::uint64_t seq = irr.id & kIdSuffixMask;
  waits_[irr.id] = Wait{from, request.client_id, request.op, now};
  out.timers.emplace_back(config_.request_timeout(), timer_value(kWriteTimeout, seq));
  if (st.leadTransferee != raft::None) {  // raft refuses proposals during a transfer
    waits_.erase(irr.id);
    refuse(out, from, request, kv_error::kProposalDropped);
    return;
  }
  propose(mvcc::encode_request(irr), irr.id, true);
}

void KvServer::propose(std::string data, std::uint64_t id, bool waited) {
  if (lead_ != raft::None && node_->propose(data) == raft::RaftError::Ok) return;
  // node.go run: no proposal is taken while there is no leader; it waits.
  if (blocked_.size() < kMaxWaits) blocked_.push_back(Blocked{id, std::move(data), waited});
}

void KvServer::on_leader(LocalTime now, raft::PeerId lead, KvOutbox& out) {
  if (lead == lead_) return;
  lead_ = lead;
  // raft.go start / server.go updateLeadership: only a new leader (not its loss) is news:
  // it sets leadElectedTime and fires leaderChanged, which fails the reads in
  // requestCurrentIndex, even when there was no leader before.
  if (lead == raft::None) return;
  leadElected_ = now;
  if (readPhase_ == ReadPhase::index) fail_read_batch(kv_error::kLeaderChanged, out);
  // The blocked proposals go in now, those still waited on (a timed-out one is gone).
  std::deque<Blocked> blocked = std::move(blocked_);
  blocked_.clear();
  for (Blocked& b : blocked) {
    if (!b.waited || waits_.count(b.id) > 0) propose(std::move(b.data), b.id, b.waited);
  }
  if (readPhase_ == ReadPhase::idle) start_read_batch(out);
}

bool KvServer::apply(std::string_view data, KvOutbox& out) {
  const auto request = mvcc::decode_request(data);
  if (!request) return false;
  HASIM_ASSERT(!defragmenting());  // the member holds its entries while the backend is locked
  const mvcc::ApplyResult result = applier_.apply(*request);
  if (result.type == InternalRaftRequest::Type::alarm &&
      request->alarm.action != mvcc::AlarmAction::get) {
    for (const auto& [member, type] : result.alarms) {  // the alarms it raised or disarmed
      out.alarms.push_back(
          AlarmEvent{request->alarm.action == mvcc::AlarmAction::activate, member});
    }
  }
  const auto it = waits_.find(request->id);
  if (it == waits_.end()) return true;  // another member's request, or it timed out
  auto r = response(it->second.client_id, it->second.op);
  if (result.error != mvcc::ServerError::none) {
    r->error = std::string(mvcc::grpc_error_text(result.error));
  }
  r->put = result.put;
  r->delete_range = result.delete_range;
  r->txn = result.txn;
  r->alarms = result.alarms;
  const ProcessId client = it->second.client;
  waits_.erase(it);
  reply(out, client, std::move(r));
  return true;
}

void KvServer::applied_to(raft::Index applied, KvOutbox& out) {
  HASIM_ASSERT(applied >= applied_);
  applied_ = applied;
  flush_watches(out);
  arm_watch_timers(out);
  if (readPhase_ != ReadPhase::apply || applied_ < readIndex_) return;
  // linearizableReadLoop: nr.notify(nil) once appliedIndex >= confirmedIndex.
  std::vector<Read> batch = std::move(batch_);
  batch_.clear();
  readPhase_ = ReadPhase::idle;
  for (const Read& r : batch) serve(r, out);
  start_read_batch(out);
}

void KvServer::read(ProcessId from, const KvRequest& request, KvOutbox& out) {
  Read r{from, request.client_id, request.op, request.range, request.txn};
  const bool serializable =
      request.op == KvOp::range ? request.range.serializable : txn_serializable(request.txn);
  if (serializable) {
    serve(r, out);
    return;
  }
  if (nextBatch_.size() >= kMaxWaits) {
    refuse(out, from, request, kv_error::kTooManyRequests);
    return;
  }
  nextBatch_.push_back(std::move(r));
  if (readPhase_ == ReadPhase::idle) start_read_batch(out);
}

// linearizableReadLoop / requestCurrentIndex: one ReadIndex for all the reads waiting.
void KvServer::start_read_batch(KvOutbox& out) {
  HASIM_ASSERT(readPhase_ == ReadPhase::idle && batch_.empty());
  if (nextBatch_.empty()) return;
  batch_ = std::move(nextBatch_);
  nextBatch_.clear();
  readPhase_ = ReadPhase::index;
  ++readBatch_;
  readIds_.clear();
  send_read_index(out);
  out.timers.emplace_back(config_.request_timeout(), timer_value(kReadTimeout, readBatch_));
}

// sendReadIndex with a fresh id (every retry's id stays acceptable for the batch), and the
// retry timer (re)started.
void KvServer::send_read_index(KvOutbox& out) {
  HASIM_ASSERT(readPhase_ == ReadPhase::index);
  ++readCtx_;
  if (readIds_.size() < kMaxReadIds) readIds_.insert(read_context(readCtx_));
  node_->read_index(read_context(readCtx_));
  ++retryGen_;
  out.timers.emplace_back(kReadIndexRetry, timer_value(kReadRetry, retryGen_));
}

// applyEntryNormal: the leader's empty entry of a new term is applied. requestCurrentIndex
// sends its ReadIndex again (a leader refuses reads before its first commit in the term).
void KvServer::on_first_commit_in_term(KvOutbox& out) {
  if (readPhase_ == ReadPhase::index) send_read_index(out);
}

void KvServer::fail_read_batch(std::string_view error, KvOutbox& out) {
  HASIM_ASSERT(readPhase_ == ReadPhase::index);
  std::vector<Read> batch = std::move(batch_);
  batch_.clear();
  readPhase_ = ReadPhase::idle;
  for (const Read& r : batch) {
    auto resp = response(r.client_id, r.op);
    resp->error = std::string(error);
    reply(out, r.client, std::move(resp));
  }
  start_read_batch(out);
}

void KvServer::on_read_states(const std::vector<raft::ReadState>& states, KvOutbox& out) {
  for (const raft::ReadState& s : states) {
    // Read states of an earlier batch (a timed-out one) are ignored.
    if (readPhase_ != ReadPhase::index || readIds_.count(s.requestCtx) == 0) continue;
    readPhase_ = ReadPhase::apply;
    readIndex_ = s.index;
    applied_to(applied_, out);
  }
}

void KvServer::seed_ids(LocalTime wall_now) {
  const auto unix_ms = static_cast<std::uint64_t>(wall_now.ns) / 1'000'000;
  nextId_ = (unix_ms & ((std::uint64_t{1} << 40) - 1)) << 8;
}

std::uint64_t KvServer::next_id() {
  nextId_ = (nextId_ + 1) & kIdSuffixMask;
  return idPrefix_ | nextId_;
}

void KvServer::on_timer(std::uint64_t local, KvOutbox& out) {
  const std::uint64_t kind = local >> kKindShift;
  const std::uint64_t seq = local & kSeqMask;
  if (kind == kWriteTimeout) {
    timeout(idPrefix_ | seq, out);
    return;
  }
  if (kind == kSyncWatchers || kind == kSyncVictims) {
    watch_timer(kind, out);
    return;
  }
  if (kind == kDefragDone) {
    if (seq == defragSeq_) finish_defrag(out);
    return;
  }
  if (readPhase_ != ReadPhase::index) return;  // that read is done
  if (kind == kReadRetry) {
    if (seq == retryGen_) send_read_index(out);  // else the timer was reset since
  } else if (seq == readBatch_) {
    HASIM_ASSERT(kind == kReadTimeout);
    fail_read_batch(kv_error::kTimeout, out);
  }
}

// parseProposeCtxErr (v3_server.go) on a deadline.
void KvServer::timeout(std::uint64_t id, KvOutbox& out) {
  const auto it = waits_.find(id);
  if (it == waits_.end()) return;  // answered already
  const Wait w = it->second;
  waits_.erase(it);
  const LocalTime prevLeadLost = leadElected_ - Duration{2 * config_.election_timeout.ns};
  const bool leaderFail = w.start > prevLeadLost && w.start < leadElected_;
  auto r = response(w.client_id, w.op);
  r->error = std::string(leaderFail ? kv_error::kTimeoutLeaderFail : kv_error::kTimeout);
  reply(out, w.client, std::move(r));
}

void KvServer::serve(const Read& read, KvOutbox& out) {
  if (defragmenting()) {  // the read txn waits for defrag's readTx lock
    stalledReads_.push_back(read);
    return;
  }
  auto r = response(read.client_id, read.op);
  if (read.op == KvOp::range) {
    auto got = mvcc::apply_range(store_, read.range);
    if (got.error != mvcc::ServerError::none) r->error = mvcc::grpc_error_text(got.error);
    r->range = std::move(got.response);
  } else {
    HASIM_ASSERT(mvcc::is_txn_readonly(read.txn));
    const std::int64_t before = store_.current_revision();
    auto got = mvcc::apply_txn(store_, read.txn);
    HASIM_ASSERT(store_.current_revision() == before);
    if (got.error != mvcc::ServerError::none) r->error = mvcc::grpc_error_text(got.error);
    r->txn = std::move(got.response);
  }
  reply(out, read.client, std::move(r));
}

std::shared_ptr<KvResponse> KvServer::response(std::uint64_t client_id, KvOp op) const {
  auto r = std::make_shared<KvResponse>();
  r->client_id = client_id;
  r->op = op;
  return r;
}

// The header as etcd fills it when the response leaves (header.go fill).
void KvServer::reply(KvOutbox& out, ProcessId to, std::shared_ptr<KvResponse> r) const {
  r->header = header();
  out.replies.emplace_back(to, std::move(r));
}

ResponseHeader KvServer::header() const {
  ResponseHeader h;
  h.cluster_id = clusterId_;
  h.member_id = config_.member_id;
  h.raft_term = node_ == nullptr ? 0 : node_->basic_status().hardState.term;
  h.revision = store_.current_revision();
  return h;
}

void KvServer::refuse(KvOutbox& out, ProcessId to, const KvRequest& request,
                      std::string_view error) {
  auto r = response(request.client_id, request.op);
  r->error = std::string(error);
  reply(out, to, std::move(r));
}

bool KvServer::empty() const { return store_empty(store_, applier_); }

std::string KvServer::snapshot_data() const { return encode_store(store_, applier_); }

void KvServer::restore(std::string_view data) {
  const bool ok = decode_store(data, store_, applier_);
  HASIM_ASSERT(ok && "a snapshot's KV data does not decode");
  HASIM_ASSERT(!store_.write_open());
}

void KvServer::on_status(ProcessId from, const KvStatusRequest& request, KvOutbox& out) {
  if (defragmenting()) {  // StorageVersion's read txn waits for the backend
    if (stalledStatus_.size() < kMaxWaits) stalledStatus_.emplace_back(from, request.client_id);
    return;
  }
  auto r = std::make_shared<KvStatusResponse>();
  r->client_id = request.client_id;
  r->header = header();
  r->status = status();
  out.events.emplace_back(from, std::move(r));
}

KvStatus KvServer::status() const {
  KvStatus s;
  s.member_id = config_.member_id;
  s.cluster_id = clusterId_;
  s.is_learner = isLearner_;
  s.leader = lead_;
  if (node_ != nullptr) {
    const raft::BasicStatus st = node_->basic_status();
    s.raft_term = st.hardState.term;
    s.raft_index = st.hardState.commit;
  }
  s.raft_applied_index = applied_;
  s.db_size = store_.db_size();
  s.db_size_in_use = store_.db_size_in_use();
  s.db_size_quota = quota_.enabled() ? quota_.max_bytes() : 0;
  s.nospace_alarm = applier_.nospace();
  return s;
}

}  // namespace hasim::etcd
