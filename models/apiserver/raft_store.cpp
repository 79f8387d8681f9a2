// RaftStore's requests (raft_store.hpp): the apiserver's Store calls as etcd3 storage
// operations, their effects carried out in the apiserver process, their results as the
// apiserver's StoreResults. The watch cache and /readyz are in raft_store_cache.cpp.
#include "models/apiserver/raft_store.hpp"

#include "models/apiserver/object_codec.hpp"
#include "models/apiserver/trace_kinds.hpp"
#include "models/etcd/value_hash.hpp"
#include "sim/assert.hpp"
#include "sim/fnv.hpp"

namespace hasim::api {
namespace {

// Requests one apiserver keeps open at once (each holds one storage operation).
constexpr std::size_t kMaxPending = 4096;

using etcd::value_hash;  // the history names a written value by its hash

}  // namespace

RaftStore::RaftStore(RaftStoreConfig config) : config_(std::move(config)), client_(config_.client) {
  HASIM_ASSERT(config_.cache_capacity > 0);
  HASIM_ASSERT(config_.keepalive_time.ns > 0 && config_.keepalive_timeout.ns > 0);
  HASIM_ASSERT(config_.readiness_period.ns > 0 && config_.readycheck_timeout.ns > 0);
}

void RaftStore::start(Env& env) {
  HASIM_ASSERT(env_ == nullptr);  // one store per apiserver incarnation
  env_ = &env;
  client_tags_ = env.tag_space("etcd-client");
  store_tags_ = env.tag_space("etcd-cacher");
  for (const std::string& endpoint : config_.client.endpoints) {
    endpoints_.emplace(endpoint, env.process(endpoint));
  }
  start_cache();
  check_readiness();
}

std::int64_t RaftStore::now_ns() const { return env_->monotonic_now().ns; }

void RaftStore::get(ProcessId, const ObjectKey& key, Done done) {
  Etcd3Effects fx;
  begin(client_.get(etcd_key(key), now_ns(), fx), Pending{Purpose::request, std::move(done)});
  run(std::move(fx));
}

void RaftStore::list(ProcessId, Kind kind, const std::string& namespace_, Done done) {
  Etcd3Effects fx;
  begin(client_.list(etcd_prefix(kind, namespace_), 0, now_ns(), fx),
        Pending{Purpose::request, std::move(done)});
  run(std::move(fx));
}

void RaftStore::create(ProcessId, Object object, Done done) {
  Etcd3Effects fx;
  object.resourceVersion = 0;
  const std::uint64_t id =
      client_.create(etcd_key(object.key), encode_object(object), now_ns(), fx);
  begin(id, Pending{Purpose::request, std::move(done), std::move(object)});
  run(std::move(fx));
}

// resourceVersion 0: an unconditional update that creates a missing object
// (AllowCreateOnUpdate): GuaranteedUpdate with ignoreNotFound reads nothing and creates.
void RaftStore::update(ProcessId, Object object, Done done) {
  Etcd3Effects fx;
  const std::int64_t rv = static_cast<std::int64_t>(object.resourceVersion);
  object.resourceVersion = 0;
  const std::uint64_t id =
      client_.update(etcd_key(object.key), encode_object(object), rv, now_ns(), fx);
  begin(id, Pending{Purpose::request, std::move(done), std::move(object), rv == 0});
  run(std::move(fx));
}

void RaftStore::remove(ProcessId, const ObjectKey& key, Done done) {
  Etcd3Effects fx;
  begin(client_.remove(etcd_key(key), 0, now_ns(), fx), Pending{Purpose::request, std::move(done)});
  run(std::move(fx));
}

void RaftStore::begin(std::uint64_t id, Pending pending) {
  HASIM_ASSERT(pending_.size() < kMaxPending);
  HASIM_ASSERT(!pending_.contains(id));
  pending_.emplace(id, std::move(pending));
}

// Carries out what the client asked for, in its order; a finished operation's callback may
// start others, which run() then carries out in a nested call.
void RaftStore::run(Etcd3Effects effects) {
  HASIM_ASSERT(env_ != nullptr);
  trace_calls(effects.calls);
  for (Etcd3Send& send : effects.sends) {
    const auto it = endpoints_.find(send.endpoint);
    HASIM_ASSERT(it != endpoints_.end());
    env_->send(it->second, std::move(send.request));
  }
  for (const Etcd3Probe& probe : effects.probes) {
    auto status = std::make_shared<etcd::KvStatusRequest>();
    status->client_id = probe.id;
    env_->send(endpoints_.at(probe.endpoint), std::move(status));
  }
  for (const Etcd3Timer& timer : effects.timers) {
    env_->set_timer(timer.after, client_tags_.tag(timer.token));
  }
  for (const StorageResult& result : effects.done) finished(result);
}

void RaftStore::trace_calls(const std::vector<Etcd3CallRecord>& calls) {
  if (calls.empty()) return;
  const std::string& client = config_.apiserver;
  for (const Etcd3CallRecord& c : calls) {
    const auto call = static_cast<std::int64_t>(c.call);
    if (!c.end) {
      if (!env_->tracing(trace_kind::kEtcdCall)) continue;
      env_->trace(trace_kind::kEtcdCall, {{"client", client},
                                          {"call", call},
                                          {"op", std::string(c.op)},
                                          {"key", c.key},
                                          {"value", c.op == "cas-put" ? value_hash(c.value) : ""},
                                          {"expected", c.expected}});
      continue;
    }
    if (!env_->tracing(trace_kind::kEtcdCallEnd)) continue;
    env_->trace(trace_kind::kEtcdCallEnd, {{"client", client},
                                           {"call", call},
                                           {"outcome", std::string(c.outcome)},
                                           {"succeeded", std::int64_t{c.succeeded}},
                                           {"found", std::int64_t{c.found}},
                                           {"value", c.found ? value_hash(c.observed) : ""},
                                           {"mod_revision", c.mod_revision},
                                           {"revision", c.revision},
                                           {"error", c.error}});
  }
}

void RaftStore::finished(const StorageResult& result) {
  const auto it = pending_.find(result.id);
  HASIM_ASSERT(it != pending_.end());
  Pending pending = std::move(it->second);
  pending_.erase(it);
  switch (pending.purpose) {
    case Purpose::cache_list:
      return cache_listed(result);
    case Purpose::readiness:
      return readiness_checked(result);
    case Purpose::request:
      break;
  }
  if (pending.create_on_missing && result.error == StorageError::key_not_found) {
    Etcd3Effects fx;
    Object object = pending.object;
    const std::uint64_t id =
        client_.create(etcd_key(object.key), encode_object(object), now_ns(), fx);
    pending.create_on_missing = false;
    begin(id, std::move(pending));
    return run(std::move(fx));
  }
  pending.done(to_store_result(pending, result));
}

StoreResult RaftStore::to_store_result(const Pending& pending, const StorageResult& r) const {
  StoreResult out;
  out.revision = static_cast<std::uint64_t>(r.resource_version);
  if (!r.ok()) {
    switch (r.error) {
      case StorageError::key_not_found:
        out.status = Status::not_found;
        break;
      case StorageError::key_exists:
        out.status = Status::already_exists;
        break;
      default:
        out.status = api_status(r.error);
    }
    if (r.error == StorageError::conflict && !r.kvs.empty()) out.object = decode(r.kvs.front());
    return out;
  }
  switch (r.op) {
    case StorageOp::list:
      for (const etcd::mvcc::KeyValue& kv : r.kvs) out.items.push_back(decode(kv));
      return out;
    case StorageOp::create:
    case StorageOp::update: {
      // What was written, at the revision the Txn created (store.go: the new object's
      // resourceVersion is the response header's revision).
      Object object = pending.object;
      object.resourceVersion = static_cast<std::uint64_t>(r.resource_version);
      out.object = std::make_shared<const Object>(std::move(object));
      if (r.op == StorageOp::create) out.status = Status::created;
      return out;
    }
    case StorageOp::get:
    case StorageOp::remove:
      HASIM_ASSERT(!r.kvs.empty());
      out.object = decode(r.kvs.front());
      return out;
  }
  HASIM_ASSERT(false);
  return out;
}

ObjectPtr RaftStore::decode(const etcd::mvcc::KeyValue& kv) const {
  std::optional<Object> object = decode_object(kv.value);
  HASIM_ASSERT(object.has_value());  // every value under /registry is an apiserver's
  object->resourceVersion = static_cast<std::uint64_t>(kv.mod_revision);
  return std::make_shared<const Object>(std::move(*object));
}

bool RaftStore::on_message(Env& env, ProcessId from, const Message& message) {
  HASIM_ASSERT(&env == env_);
  if (const auto* response = message_as<etcd::KvResponse>(*message)) {
    Etcd3Effects fx;
    client_.on_response(*response, now_ns(), fx);
    run(std::move(fx));
    return true;
  }
  if (const auto* watch = message_as<etcd::KvWatchResponse>(*message)) {
    if (client_.has_channels()) heard_from(from);
    on_watch_response(*watch);
    return true;
  }
  if (const auto* status = message_as<etcd::KvStatusResponse>(*message)) {
    if (client_.has_channels()) heard_from(from);
    if ((status->client_id & kEtcd3ProbeBit) == 0) {
      on_ping_answer(status->client_id);
      return true;
    }
    Etcd3Effects fx;
    client_.on_probe_answer(status->client_id, now_ns(), fx);
    run(std::move(fx));
    return true;
  }
  if (message_as<ConnectionClosed>(*message) == nullptr) return false;
  const std::string* endpoint = endpoint_of(from);
  if (endpoint == nullptr) return false;  // a client of the apiserver went away
  connection_lost(*endpoint);
  return true;
}

const std::string* RaftStore::endpoint_of(ProcessId process) const {
  for (const auto& [name, id] : endpoints_) {
    if (id == process) return &name;
  }
  return nullptr;
}

// The connection to a member is gone: the calls on it fail, and a watch there moves on.
// Any frame from a member shows its transport alive (the client's keepalive).
void RaftStore::heard_from(ProcessId from) {
  const std::string* endpoint = endpoint_of(from);
  if (endpoint != nullptr) client_.heard_from(*endpoint, now_ns());
}

void RaftStore::connection_lost(const std::string& endpoint) {
  Etcd3Effects fx;
  client_.on_connection_closed(endpoint, now_ns(), fx);
  run(std::move(fx));
  if (watching_ && config_.client.endpoints[watch_endpoint_] == endpoint) watch_failed(false);
}

bool RaftStore::on_timer(Env& env, std::uint64_t tag) {
  HASIM_ASSERT(&env == env_);
  if (client_tags_.owns(tag)) {
    Etcd3Effects fx;
    client_.on_timer(client_tags_.local(tag), now_ns(), fx);
    run(std::move(fx));
    return true;
  }
  if (!store_tags_.owns(tag)) return false;
  on_store_timer(store_tags_.local(tag));
  return true;
}

}  // namespace hasim::api
