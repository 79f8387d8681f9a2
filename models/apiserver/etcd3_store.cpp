#include "models/apiserver/etcd3_store.hpp"

#include <utility>

#include "models/etcd/mvcc/key_range.hpp"
#include "sim/assert.hpp"

namespace hasim::api {
namespace {

using etcd::mvcc::CompareResult;
using etcd::mvcc::KeyValue;

// Operations one store keeps open at once: every apiserver request holds at most one.
constexpr std::size_t kMaxInFlight = 4096;

// The text of a request whose context deadline passed (context.DeadlineExceeded).
constexpr std::string_view kDeadlineExceeded = "context deadline exceeded";

}  // namespace

std::string_view to_string(StorageOp op) {
  switch (op) {
    case StorageOp::get:
      return "get";
    case StorageOp::list:
      return "list";
    case StorageOp::create:
      return "create";
    case StorageOp::update:
      return "update";
    case StorageOp::remove:
      return "delete";
  }
  HASIM_ASSERT(false);
  return "";
}

Etcd3ClientConfig stacked_etcd_client(std::string local_member) {
  Etcd3ClientConfig config;
  config.endpoints.push_back(std::move(local_member));
  return config;
}

Etcd3ClientConfig external_etcd_client(std::vector<std::string> members) {
  HASIM_ASSERT(!members.empty());
  Etcd3ClientConfig config;
  config.endpoints = std::move(members);
  return config;
}

Etcd3Store::Etcd3Store(Etcd3ClientConfig config) : config_(std::move(config)) {
  HASIM_ASSERT(!config_.endpoints.empty());
  HASIM_ASSERT(config_.request_timeout.ns > 0 && config_.backoff.ns >= 0);
  HASIM_ASSERT(config_.max_attempts >= 1 && config_.max_compare_retries >= 0);
  HASIM_ASSERT(config_.endpoints.size() < 256);  // channel_timer's 8 bits
  // One endpoint (stacked): the watch's keepalive and the calls themselves find its
  // connection's state, and there is nothing to pick instead (raft_store.hpp).
  if (config_.endpoints.size() > 1) channels_.resize(config_.endpoints.size());
}

Etcd3Store::Op Etcd3Store::make_op(StorageOp kind, std::string key, std::string value,
                                   std::int64_t rv, Phase phase) {
  HASIM_ASSERT(rv >= 0);
  Op op;
  op.op = kind;
  op.key = std::move(key);
  op.value = std::move(value);
  op.rv = rv;
  op.target = rv;
  op.phase = phase;
  return op;
}

std::uint64_t Etcd3Store::get(std::string key, std::int64_t now_ns, Etcd3Effects& out) {
  return start(make_op(StorageOp::get, std::move(key), "", 0, Phase::read), now_ns, out);
}

std::uint64_t Etcd3Store::get(std::string key, std::int64_t now_ns, Duration timeout,
                              Etcd3Effects& out) {
  HASIM_ASSERT(timeout.ns > 0);
  return start(make_op(StorageOp::get, std::move(key), "", 0, Phase::read), now_ns, out, timeout);
}

std::uint64_t Etcd3Store::list(std::string prefix, std::int64_t revision, std::int64_t now_ns,
                               Etcd3Effects& out) {
  return start(make_op(StorageOp::list, std::move(prefix), "", revision, Phase::read), now_ns, out);
}

// store.go Create: Txn(If ModRevision(key) = 0 Then Put), no Else.
std::uint64_t Etcd3Store::create(std::string key, std::string value, std::int64_t now_ns,
                                 Etcd3Effects& out) {
  return start(make_op(StorageOp::create, std::move(key), std::move(value), 0, Phase::write),
               now_ns, out);
}

// store.go GuaranteedUpdate: with a precondition the caller's object is the suggested
// current state (the first Txn compares against it); without one the current state is read.
std::uint64_t Etcd3Store::update(std::string key, std::string value, std::int64_t rv,
                                 std::int64_t now_ns, Etcd3Effects& out) {
  const Phase phase = rv != 0 ? Phase::write : Phase::read;
  return start(make_op(StorageOp::update, std::move(key), std::move(value), rv, phase), now_ns,
               out);
}

// store.go Delete / conditionalDelete: the same shape with a Delete in the Then branch.
std::uint64_t Etcd3Store::remove(std::string key, std::int64_t rv, std::int64_t now_ns,
                                 Etcd3Effects& out) {
  const Phase phase = rv != 0 ? Phase::write : Phase::read;
  return start(make_op(StorageOp::remove, std::move(key), "", rv, phase), now_ns, out);
}

std::uint64_t Etcd3Store::start(Op op, std::int64_t now_ns, Etcd3Effects& out, Duration timeout) {
  HASIM_ASSERT(ops_.size() < kMaxInFlight);
  HASIM_ASSERT(!op.key.empty() && timeout.ns >= 0);
  if (timeout.ns == 0) timeout = config_.request_timeout;
  op.id = next_op_++;
  op.deadline_ns = now_ns + timeout.ns;
  out.timers.push_back(Etcd3Timer{timeout, op.id * 2 + kEtcd3DeadlineTimer});
  const std::uint64_t id = op.id;
  Op& stored = ops_.emplace(id, std::move(op)).first->second;
  send_call(stored, out);
  return id;
}

void Etcd3Store::next_endpoint() { active_ = (active_ + 1) % config_.endpoints.size(); }

void Etcd3Store::send_call(Op& op, Etcd3Effects& out) {
  HASIM_ASSERT(op.call == 0);
  HASIM_ASSERT(op.attempts < config_.max_attempts);
  op.call = next_call_++;
  calls_[op.call] = op.id;
  const std::size_t index = pick_endpoint();
  op.endpoint = config_.endpoints[index];
  op.sent_connected = !disconnected_.contains(op.endpoint);
  if (config_.balancer == EtcdBalancer::round_robin) {
    active_ = index;
    next_endpoint();
  }
  if (has_channels() && op.sent_connected && channels_[index].keepalive == 0) {
    arm_keepalive(index, config_.keepalive_time, out);
  }
  ++op.attempts;
  ++op.total_calls;
  auto request = build_call(op);
  request->client_id = op.call;
  out.sends.push_back(Etcd3Send{op.endpoint, std::move(request)});
  record_invoke(op, out);
}

// The call as the history names it: a read is a get, a write Txn a compare-and-put or
// compare-and-delete on ModRevision (create: expected 0).
void Etcd3Store::record_invoke(const Op& op, Etcd3Effects& out) const {
  if (op.op == StorageOp::list) return;
  Etcd3CallRecord record;
  record.call = op.call;
  record.key = op.key;
  if (op.phase == Phase::read) {
    record.op = "get";
  } else if (op.op == StorageOp::remove) {
    record.op = "cas-delete";
    record.expected = op.target;
  } else {
    record.op = "cas-put";
    record.value = op.value;
    record.expected = op.target;
  }
  out.calls.push_back(std::move(record));
}

// `response` is the member's ok answer, or null when the call failed with `error`.
void Etcd3Store::record_end(const Op& op, const etcd::KvResponse* response,
                            std::string_view outcome, std::string error,
                            Etcd3Effects& out) const {
  if (op.op == StorageOp::list) return;
  HASIM_ASSERT((response != nullptr) == (outcome == "ok"));
  // Create's Txn has no Else branch: a failed compare (the key exists) did not write and
  // read nothing, so the history keeps it as an operation that did not take effect.
  if (response != nullptr && op.phase == Phase::write && !response->txn.succeeded &&
      response->txn.responses.empty()) {
    response = nullptr;
    outcome = "fail";
  }
  Etcd3CallRecord record;
  record.call = op.call;
  record.end = true;
  record.outcome = outcome;
  record.error = std::move(error);
  if (response != nullptr) {
    record.revision = response->header.revision;
    const std::vector<KeyValue>* read = &response->range.kvs;
    if (op.phase == Phase::write) {
      record.succeeded = response->txn.succeeded;
      read = record.succeeded ? nullptr : &response->txn.responses.at(0).range.kvs;
    }
    if (read != nullptr && !read->empty()) {
      record.found = true;
      record.observed = read->front().value;
      record.mod_revision = read->front().mod_revision;
    }
  }
  out.calls.push_back(std::move(record));
}

std::shared_ptr<etcd::KvRequest> Etcd3Store::build_call(const Op& op) const {
  using namespace etcd::mvcc;
  auto r = std::make_shared<etcd::KvRequest>();
  RangeRequest read;
  read.key = op.key;
  if (op.phase == Phase::read) {
    r->op = etcd::KvOp::range;  // linearizable: serializable stays false (store.go Get)
    r->range = std::move(read);
    if (op.op == StorageOp::list) {
      r->range.range_end = prefix_range_end(op.key);  // clientv3.WithPrefix
      r->range.revision = op.rv;                      // clientv3.WithRev
    }
    return r;
  }
  r->op = etcd::KvOp::txn;
  r->txn.compare.push_back(compare_mod_revision(op.key, CompareResult::equal, op.target));
  if (op.op == StorageOp::create) {
    r->txn.success.push_back(op_put(op.key, op.value));
    return r;
  }
  if (op.op == StorageOp::update) {
    r->txn.success.push_back(op_put(op.key, op.value));
  } else {
    HASIM_ASSERT(op.op == StorageOp::remove);
    r->txn.success.push_back(op_delete(op.key));
    r->txn.success.back().delete_range.prev_kv = true;  // the deleted object is returned
  }
  r->txn.failure.push_back(op_range(std::move(read)));
  return r;
}

void Etcd3Store::on_response(const etcd::KvResponse& response, std::int64_t now_ns,
                             Etcd3Effects& out) {
  const auto call = calls_.find(response.client_id);
  if (call == calls_.end()) return;  // the operation already ended (its deadline passed)
  const auto it = ops_.find(call->second);
  calls_.erase(call);
  HASIM_ASSERT(it != ops_.end());
  Op& op = it->second;
  HASIM_ASSERT(op.call == response.client_id);
  disconnected_.erase(op.endpoint);  // the member answered: the connection works
  if (has_channels()) heard_from(op.endpoint, now_ns);
  if (!response.ok()) {
    on_call_failed(op, grpc_code_of(response.error), response.error, now_ns, out);
    return;
  }
  record_end(op, &response, "ok", "", out);
  op.call = 0;
  on_call_ok(op, response, out);
}

// retry_interceptor.go unaryClientInterceptor: a failed call is retried after the back-off
// when isSafeRetry allows it and attempts and the deadline are left; otherwise it fails.
void Etcd3Store::on_call_failed(Op& op, GrpcCode code, const std::string& text, std::int64_t now_ns,
                                Etcd3Effects& out, bool never_sent) {
  HASIM_ASSERT(op.call != 0);
  const bool mutable_rpc = op.phase == Phase::write;
  const bool unknown = mutable_rpc && !never_sent && write_may_have_applied(text);
  record_end(op, nullptr, unknown ? "unknown" : "fail", text, out);
  op.call = 0;
  // The pinned balancer (3.3) moves off an endpoint that answered Unavailable.
  if (config_.balancer == EtcdBalancer::pinned && code == GrpcCode::unavailable) {
    if (config_.endpoints[active_] == op.endpoint) next_endpoint();
  }
  const bool retry = safe_to_retry(mutable_rpc, code, text) && op.attempts < config_.max_attempts &&
                     now_ns + config_.backoff.ns < op.deadline_ns;
  if (retry) {
    out.timers.push_back(Etcd3Timer{config_.backoff, op.id * 2 + kEtcd3BackoffTimer});
    return;
  }
  StorageResult result;
  result.error = storage_error_of(code, text);
  result.etcd_error = text;
  finish(op, std::move(result), out);
}

void Etcd3Store::on_call_ok(Op& op, const etcd::KvResponse& response, Etcd3Effects& out) {
  if (op.phase == Phase::write) {
    on_txn(op, response, out);
    return;
  }
  StorageResult result;
  const auto& kvs = response.range.kvs;
  if (op.op == StorageOp::list) {
    // store.go GetList: the list's resourceVersion is the revision it was read at.
    result.kvs = kvs;
    result.resource_version = op.rv != 0 ? op.rv : response.header.revision;
    finish(op, std::move(result), out);
    return;
  }
  if (kvs.empty()) {
    result.error = StorageError::key_not_found;
    finish(op, std::move(result), out);
    return;
  }
  if (op.op == StorageOp::get) {
    result.kvs = kvs;
    result.resource_version = kvs[0].mod_revision;
    finish(op, std::move(result), out);
    return;
  }
  // GuaranteedUpdate / Delete read the current state, then write against its revision.
  op.target = kvs[0].mod_revision;
  op.phase = Phase::write;
  op.attempts = 0;
  send_call(op, out);
}

void Etcd3Store::on_txn(Op& op, const etcd::KvResponse& response, Etcd3Effects& out) {
  StorageResult result;
  const std::int64_t revision = response.header.revision;
  if (response.txn.succeeded) {
    if (op.op == StorageOp::remove) {
      const auto& del = response.txn.responses.at(0).delete_range;
      result.kvs = del.prev_kvs;
    } else {
      KeyValue kv;
      kv.key = op.key;
      kv.value = op.value;
      kv.mod_revision = revision;
      result.kvs.push_back(std::move(kv));
    }
    result.resource_version = revision;
    finish(op, std::move(result), out);
    return;
  }
  if (op.op == StorageOp::create) {
    result.error = StorageError::key_exists;  // store.go Create: !txnResp.Succeeded
    finish(op, std::move(result), out);
    return;
  }
  const auto& current = response.txn.responses.at(0).range.kvs;
  if (current.empty()) {
    result.error = StorageError::key_not_found;
  } else if (op.rv != 0 || op.compare_retries >= config_.max_compare_retries) {
    // The caller's precondition names a revision the key has moved past (the registry's
    // tryUpdate / checkPreconditions fail), or the retries are spent.
    result.error = StorageError::conflict;
    result.kvs = current;
    result.resource_version = current[0].mod_revision;
  } else {
    ++op.compare_retries;  // origStateIsCurrent: retry against the state the Else read
    op.target = current[0].mod_revision;
    op.attempts = 0;
    send_call(op, out);
    return;
  }
  finish(op, std::move(result), out);
}

void Etcd3Store::on_timer(std::uint64_t token, std::int64_t now_ns, Etcd3Effects& out) {
  if ((token & kEtcd3ChannelTimerBit) != 0) return on_channel_timer(token, now_ns, out);
  const auto it = ops_.find(token / 2);
  if (it == ops_.end()) return;  // a timer of an operation that already ended
  Op& op = it->second;
  if (token % 2 == kEtcd3BackoffTimer) {
    if (op.call == 0 && now_ns < op.deadline_ns) send_call(op, out);
    return;
  }
  HASIM_ASSERT(now_ns >= op.deadline_ns);
  // The request context ended: whatever call is in flight is abandoned (its answer, if one
  // comes, is dropped) and the operation fails with DeadlineExceeded.
  if (op.call != 0) {
    calls_.erase(op.call);
    const bool may_apply = op.phase == Phase::write;
    record_end(op, nullptr, may_apply ? "unknown" : "fail", std::string(kDeadlineExceeded), out);
    op.call = 0;
    if (config_.balancer == EtcdBalancer::pinned && config_.endpoints[active_] == op.endpoint) {
      next_endpoint();  // the endpoint never answered: unpin it
    }
  }
  StorageResult result;
  result.error = StorageError::timeout;
  result.etcd_error = std::string(kDeadlineExceeded);
  finish(op, std::move(result), out);
}

void Etcd3Store::on_connection_closed(const std::string& endpoint, std::int64_t now_ns,
                                      Etcd3Effects& out) {
  const bool was_connected = !disconnected_.contains(endpoint);
  disconnected_.insert(endpoint);
  std::vector<std::uint64_t> failed;  // call ids, in call order (calls_ is ordered)
  for (const auto& [call, id] : calls_) {
    if (ops_.at(id).endpoint == endpoint) failed.push_back(call);
  }
  for (std::uint64_t call : failed) {
    const auto it = calls_.find(call);
    HASIM_ASSERT(it != calls_.end());
    Op& op = ops_.at(it->second);
    calls_.erase(it);
    // Sent before the client knew: it may have arrived. Sent after: refused, never sent.
    const bool never_sent = !was_connected || !op.sent_connected;
    const std::string text(never_sent ? kNoConnection : kTransportClosing);
    on_call_failed(op, GrpcCode::unavailable, text, now_ns, out, never_sent);
  }
  if (has_channels()) channel_closed(endpoint, out);
}

void Etcd3Store::finish(Op& op, StorageResult result, Etcd3Effects& out) {
  HASIM_ASSERT(op.call == 0);
  result.id = op.id;
  result.op = op.op;
  result.attempts = op.total_calls;
  if (result.ok()) HASIM_ASSERT(result.resource_version > 0);
  out.done.push_back(std::move(result));
  ops_.erase(op.id);  // `op` dangles from here on
}

}  // namespace hasim::api
