#include "models/cloudcore/edgecore.hpp"

#include <algorithm>

#include "models/cloudcore/messages.hpp"
#include "models/cloudcore/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim::cloudcore {
namespace {
constexpr std::uint64_t kStatusTimer = 1;  // edged's node status loop; 0 is EdgeHub's own
}  // namespace

EdgeHub::EdgeHub(EdgeHubConfig config) : config_(std::move(config)) {
  HASIM_ASSERT(config_.dial != nullptr && config_.retry_count >= 1);
  HASIM_ASSERT(config_.heartbeat.ns > 0 && config_.handshake_timeout.ns > 0);
}

void EdgeHub::on_start(Env& env) {
  tags_ = env.tag_space("edgehub");
  meta_.emplace(env.durable());
  if (config_.node_status_period.has_value()) {
    env.set_timer(*config_.node_status_period, tags_.tag(kStatusTimer));
  }
  init(env);
}

void EdgeHub::init(Env& env) {
  attempt_ = 0;
  dial(env);
}

void EdgeHub::dial(Env& env) {
  HASIM_ASSERT(attempt_ < config_.retry_count);
  ++attempt_;
  phase_ = Phase::dialing;
  const auto target = config_.dial(env.rng());
  if (!target.has_value()) {
    cloud_.reset();
    cloud_name_.clear();
    return dial_failed(env, "no ready endpoint");
  }
  cloud_name_ = *target;
  cloud_ = env.process(*target);
  auto connect = std::make_shared<EdgeConnect>();
  connect->node = config_.node;
  env.send(*cloud_, std::move(connect));
  timer_ = env.set_timer(config_.handshake_timeout, tags_.tag());
}

void EdgeHub::dial_failed(Env& env, std::string_view why) {
  HASIM_ASSERT(phase_ == Phase::dialing);
  env.trace(trace_kind::kEdgeDialFailed, {{"cloudcore", cloud_name_},
                                          {"attempt", std::int64_t{attempt_}},
                                          {"why", std::string(why)}});
  cloud_.reset();
  // websocket.go Init: time.Sleep(cloudAccessSleep) after every failed dial.
  wait(env, Phase::dial_backoff, config_.cloud_access_sleep);
}

void EdgeHub::connected(Env& env) {
  HASIM_ASSERT(phase_ == Phase::dialing && cloud_.has_value());
  phase_ = Phase::connected;
  env.trace(trace_kind::kEdgeConnected, {{"cloudcore", cloud_name_}});
  send_keepalive(env);
}

void EdgeHub::send_keepalive(Env& env) {
  HASIM_ASSERT(phase_ == Phase::connected && cloud_.has_value());
  // keepalive(): one keepalive per heartbeat; the write into the socket succeeds unless the
  // peer's stack answers RST (then ConnectionClosed arrives).
  auto keepalive = std::make_shared<EdgeKeepalive>();
  keepalive->node = config_.node;
  env.send(*cloud_, std::move(keepalive));
  timer_ = env.set_timer(config_.heartbeat, tags_.tag());
  // edged's pod worker asks again for what its pods still lack.
  for (const api::ObjectKey& key : meta_->missing()) query(env, key);
}

void EdgeHub::query(Env& env, const api::ObjectKey& key) {
  HASIM_ASSERT(phase_ == Phase::connected && cloud_.has_value());
  if (env.tracing(trace_kind::kEdgeQuery)) {
    env.trace(trace_kind::kEdgeQuery, {{"object", api::describe(key)}});
  }
  auto out = std::make_shared<ResourceQuery>();
  out->node = config_.node;
  out->key = key;
  env.send(*cloud_, std::move(out));
}

void EdgeHub::on_resource(Env& env, const ResourceMessage& message) {
  HASIM_ASSERT(phase_ == Phase::connected && cloud_.has_value());
  const EdgeApply result = meta_->apply(env, message);
  auto ack = std::make_shared<ResourceAck>();
  ack->node = config_.node;
  ack->parent_msg_id = message.msg_id;
  env.send(*cloud_, std::move(ack));
  // A pod just stored: its missing ConfigMaps and Secrets are queried at once.
  if (result != EdgeApply::store || message.object->key.kind != api::Kind::pod) return;
  for (const api::ObjectKey& key : meta_->missing()) {
    const auto& spec = message.object->pod_spec;
    const auto& names = key.kind == api::Kind::config_map ? spec.configMaps : spec.secrets;
    const bool referenced = key.namespace_ == message.object->key.namespace_ &&
                            std::find(names.begin(), names.end(), key.name) != names.end();
    if (referenced) query(env, key);
  }
}

void EdgeHub::disconnected(Env& env, std::string_view why) {
  HASIM_ASSERT(phase_ == Phase::connected);
  env.trace(trace_kind::kEdgeDisconnected,
            {{"cloudcore", cloud_name_}, {"why", std::string(why)}});
  cloud_.reset();
  // edgehub.go Start: "sleep one period of heartbeat" (two, in fact), then Init again.
  wait(env, Phase::reconnect_wait, Duration{2 * config_.heartbeat.ns});
}

void EdgeHub::wait(Env& env, Phase phase, Duration after) {
  if (timer_.has_value()) env.cancel_timer(*timer_);
  phase_ = phase;
  timer_ = env.set_timer(after, tags_.tag());
}

void EdgeHub::on_message(Env& env, ProcessId from, const Message& message) {
  // Only the current connection's peer matters; a late answer to an abandoned dial is dropped.
  if (!cloud_.has_value() || from != *cloud_) return;
  if (const auto* resource = message_as<ResourceMessage>(*message)) {
    if (phase_ == Phase::connected) on_resource(env, *resource);
    return;
  }
  const bool closed = message_as<ConnectionClosed>(*message) != nullptr ||
                      message_as<SessionClosed>(*message) != nullptr;
  if (phase_ == Phase::dialing) {
    if (message_as<EdgeConnectAccepted>(*message) != nullptr) {
      env.cancel_timer(*timer_);
      timer_.reset();
      return connected(env);
    }
    if (closed || message_as<EdgeConnectRefused>(*message) != nullptr) {
      return dial_failed(env, "connection refused");
    }
    return;
  }
  if (phase_ == Phase::connected && closed) disconnected(env, "connection closed");
}

void EdgeHub::report_node_status(Env& env) {
  HASIM_ASSERT(config_.node_status_period.has_value());
  env.set_timer(*config_.node_status_period, tags_.tag(kStatusTimer));
  if (phase_ != Phase::connected || !cloud_.has_value()) return;
  auto status = std::make_shared<NodeStatusUpdate>();
  status->node = config_.node;
  env.send(*cloud_, std::move(status));
}

void EdgeHub::on_timer(Env& env, TimerId /*timer*/, std::uint64_t tag) {
  HASIM_ASSERT(tags_.owns(tag));
  if (tags_.local(tag) == kStatusTimer) return report_node_status(env);
  timer_.reset();
  switch (phase_) {
    case Phase::dialing:
      return dial_failed(env, "handshake timeout");
    case Phase::dial_backoff:
      if (attempt_ < config_.retry_count) return dial(env);
      // "max retry count reached when connecting to cloud": Init fails; try again in 1 min.
      env.trace(trace_kind::kEdgeInitFailed, {{"attempts", std::int64_t{attempt_}}});
      return wait(env, Phase::init_wait, config_.wait_connection_period);
    case Phase::connected:
      return send_keepalive(env);
    case Phase::reconnect_wait:
    case Phase::init_wait:
      return init(env);
  }
}

}  // namespace hasim::cloudcore
