#include "models/druid/service_writer.hpp"

#include <string>
#include <utility>

#include "models/apiserver/trace_kinds.hpp"
#include "models/etcd/kv_api.hpp"
#include "models/etcd/value_hash.hpp"
#include "sim/assert.hpp"

namespace hasim::druid {

namespace {
enum Timer : std::uint64_t { kPut = 0 };
constexpr Duration kRequestTimeout = seconds(5);
constexpr std::uint64_t kDeadlineBase = 1;  // deadline tags: kDeadlineBase + client_id
}  // namespace

ServiceWriter::ServiceWriter(ServiceWriterConfig config) : config_(std::move(config)) {
  HASIM_ASSERT(config_.rate > 0 && config_.serviceEndpoints != nullptr && !config_.client.empty());
}

void ServiceWriter::on_start(Env& env) {
  tags_ = env.tag_space("service-writer");
  env.set_timer(Duration{1'000'000'000 / config_.rate}, tags_.tag(kPut));
}

void ServiceWriter::put(Env& env) {
  const std::vector<ProcessId> endpoints = config_.serviceEndpoints();
  if (endpoints.empty() || inFlight_.size() >= kMaxInFlight) return;  // the dial fails
  const std::uint64_t id = next_++;
  auto request = std::make_shared<etcd::KvRequest>();
  request->client_id = id;
  request->op = etcd::KvOp::put;
  request->put.key = "/registry/hasim/" + std::to_string(static_cast<std::int64_t>(id) % kKeys);
  request->put.value = "v" + std::to_string(id);
  request->put.value.resize(100, 'v');
  if (env.tracing(api::trace_kind::kEtcdCall)) {
    env.trace(api::trace_kind::kEtcdCall, {{"client", config_.client},
                                           {"call", static_cast<std::int64_t>(id)},
                                           {"op", std::string("put")},
                                           {"key", request->put.key},
                                           {"value", etcd::value_hash(request->put.value)},
                                           {"expected", std::int64_t{0}}});
  }
  inFlight_.emplace(id, env.set_timer(kRequestTimeout, tags_.tag(kDeadlineBase + id)));
  env.send(endpoints[env.rng().below(endpoints.size())], std::move(request));
}

void ServiceWriter::on_message(Env& env, ProcessId, const Message& message) {
  const auto* response = message_as<etcd::KvResponse>(*message);
  if (response == nullptr) return;
  const auto it = inFlight_.find(response->client_id);
  if (it == inFlight_.end()) return;  // past its deadline
  env.cancel_timer(it->second);
  inFlight_.erase(it);
  // An error may come after the Put was proposed (a timeout, a leader change): unknown.
  if (response->ok()) {
    trace_end(env, response->client_id, "ok", response->header.revision, "");
  } else {
    trace_end(env, response->client_id, "unknown", 0, response->error);
  }
}

void ServiceWriter::trace_end(Env& env, std::uint64_t id, std::string_view outcome,
                              std::int64_t revision, std::string_view error) {
  if (!env.tracing(api::trace_kind::kEtcdCallEnd)) return;
  env.trace(api::trace_kind::kEtcdCallEnd, {{"client", config_.client},
                                            {"call", static_cast<std::int64_t>(id)},
                                            {"outcome", std::string(outcome)},
                                            {"succeeded", std::int64_t{0}},
                                            {"found", std::int64_t{0}},
                                            {"value", std::string()},
                                            {"mod_revision", std::int64_t{0}},
                                            {"revision", revision},
                                            {"error", std::string(error)}});
}

void ServiceWriter::on_timer(Env& env, TimerId, std::uint64_t tag) {
  HASIM_ASSERT(tags_.owns(tag));
  const std::uint64_t local = tags_.local(tag);
  if (local == kPut) {
    put(env);
    env.set_timer(Duration{1'000'000'000 / config_.rate}, tags_.tag(kPut));
    return;
  }
  const std::uint64_t id = local - kDeadlineBase;
  if (inFlight_.erase(id) == 0) return;
  trace_end(env, id, "unknown", 0, "context deadline exceeded");
}

}  // namespace hasim::druid
