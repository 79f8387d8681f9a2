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

std::uint64_t Etcd3Store::start(Op op, std::int64_t now_ns, Etcd3Effects& out) {
  HASIM_ASSERT(ops_.size() < kMaxInFlight);
  HASIM_ASSERT(!op.key.empty());
  op.id = next_op_++;
  op.deadline_ns = now_ns + config_.request_timeout.ns;
  out.timers.push_back(Etcd3Timer{config_.request_timeout, op.id * 2 + kEtcd3DeadlineTimer});
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
  op.endpoint = config_.endpoints[active_];
  if (config_.balancer == EtcdBalancer::round_robin) next_endpoint();
  ++op.attempts;
  ++op.total_calls;
  auto request = build_call(op);
  request->client_id = op.call;
  out.sends.push_back(Etcd3Send{op.endpoint, std::move(request)});
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
  op.call = 0;
  if (!response.ok()) {
    on_call_failed(op, grpc_code_of(response.error), response.error, now_ns, out);
    return;
  }
  on_call_ok(op, response, out);
}

// retry_interceptor.go unaryClientInterceptor: a failed call is retried after the back-off
// when isSafeRetry allows it and attempts and the deadline are left; otherwise it fails.
void Etcd3Store::on_call_failed(Op& op, GrpcCode code, const std::string& text, std::int64_t now_ns,
                                Etcd3Effects& out) {
  // The pinned balancer (3.3) moves off an endpoint that answered Unavailable.
  if (config_.balancer == EtcdBalancer::pinned && code == GrpcCode::unavailable) {
    if (config_.endpoints[active_] == op.endpoint) next_endpoint();
  }
  const bool mutable_rpc = op.phase == Phase::write;
  const bool retry = safe_to_retry(mutable_rpc, code) && op.attempts < config_.max_attempts &&
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
