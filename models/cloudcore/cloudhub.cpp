// CloudCore's CloudHub websocket side (models/cloudcore/cloudcore.hpp): sessions with edge
// nodes, as KE@v1.5.0:cloud/pkg/cloudhub/handler/messagehandler.go keeps them.
#include "models/cloudcore/cloudcore.hpp"
#include "models/cloudcore/keepalived.hpp"
#include "models/cloudcore/messages.hpp"
#include "models/cloudcore/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim::cloudcore {

void CloudCore::on_message(Env& env, ProcessId from, const Message& message) {
  HASIM_ASSERT(client_ != nullptr);
  // The apiserver's answers and watch events are most of what arrives: routed first.
  if (client_->on_message(env, message)) return;
  if (const auto* connect = message_as<EdgeConnect>(*message)) {
    return on_edge_connect(env, from, connect->node);
  }
  if (message_as<ReadyzRequest>(*message) != nullptr) {
    // electionHandler on CloudHub's HTTPS server (10002), which a standby does not run:
    // 200 when the ReadyzAdaptor's check passes, 404 otherwise; no server: refused. v1.7+
    // has no such route: 404 (kubeedge#3059).
    auto answer = std::make_shared<ReadyzResponse>();
    answer->ok = serving_ && is_hot_standby(config_.mode) && !readyz(env).has_value();
    env.send(from, std::move(answer));
    return;
  }
  if (const auto* keepalive = message_as<EdgeKeepalive>(*message)) {
    return on_keepalive(env, from, keepalive->node);
  }
  if (const auto* ack = message_as<ResourceAck>(*message)) {
    if (delivery_ != nullptr && session_with(ack->node, from)) delivery_->on_ack(env, ack->node, ack->parent_msg_id);
    return;
  }
  if (const auto* status = message_as<NodeStatusUpdate>(*message)) {
    if (session_with(status->node, from)) update_node_status(env, status->node);
    return;
  }
  if (const auto* query = message_as<ResourceQuery>(*message)) {
    if (delivery_ != nullptr && session_with(query->node, from)) delivery_->on_query(env, query->node, query->key);
    return;
  }
  if (message_as<ConnectionClosed>(*message) != nullptr) {
    for (const auto& [node, session] : sessions_) {
      if (session.edge == from) return close_session(env, node, "connection-closed", false);
    }
    return client_->on_connection_closed(env, from);
  }
}

void CloudCore::on_edge_connect(Env& env, ProcessId from, const std::string& node) {
  if (!serving_) {
    // A standby (or a leader whose CloudHub has not synced yet) has no listener on 10000.
    env.send(from, std::make_shared<EdgeConnectRefused>());
    return;
  }
  // A node that connects again replaces its old session (the handler ends the older one).
  if (sessions_.contains(node)) close_session(env, node, "replaced", true);
  HASIM_ASSERT(sessions_.size() < kMaxSessions);
  Session session{from, next_serial_++, 0};
  session.keepalive_timer =
      env.set_timer(config_.keepalive_interval, keepalive_tags_.tag(session.serial));
  sessions_.emplace(node, session);
  env.trace(trace_kind::kSessionOpen, {{"edge", node}});
  env.send(from, std::make_shared<EdgeConnectAccepted>());
  if (delivery_ != nullptr) delivery_->on_session_open(env, node, from);
}

void CloudCore::on_keepalive(Env& env, ProcessId from, const std::string& node) {
  const auto it = sessions_.find(node);
  if (it == sessions_.end() || it->second.edge != from) {
    // The websocket this frame travels on is gone here: the socket answers RST.
    env.send(from, std::make_shared<SessionClosed>());
    return;
  }
  // KeepaliveCheckLoop: a keepalive resets the node's timer.
  env.cancel_timer(it->second.keepalive_timer);
  it->second.keepalive_timer =
      env.set_timer(config_.keepalive_interval, keepalive_tags_.tag(it->second.serial));
}

void CloudCore::close_session(Env& env, const std::string& node, std::string_view why,
                              bool tell_edge) {
  const auto it = sessions_.find(node);
  HASIM_ASSERT(it != sessions_.end());
  env.cancel_timer(it->second.keepalive_timer);
  if (tell_edge) env.send(it->second.edge, std::make_shared<SessionClosed>());
  // Traced before the erase: `node` may be the erased key itself (graceful_shutdown passes
  // sessions_.begin()->first).
  env.trace(trace_kind::kSessionClose, {{"edge", node}, {"why", std::string(why)}});
  if (delivery_ != nullptr) delivery_->on_session_close(env, node);
  sessions_.erase(it);
}

bool CloudCore::session_with(const std::string& node, ProcessId from) const {
  const auto it = sessions_.find(node);
  return it != sessions_.end() && it->second.edge == from;
}

void CloudCore::on_timer(Env& env, TimerId /*timer*/, std::uint64_t tag) {
  if (client_->on_timer(env, tag)) return;
  if (delivery_ != nullptr && delivery_->on_timer(env, tag)) return;
  if (elector_ != nullptr && elector_->on_timer(env, tag)) return;
  if (tunnel_tags_.owns(tag)) return negotiate_tunnel_port(env);
  if (patch_tags_.owns(tag)) {
    // The new connection's dial timed out: the request fails (its context ends).
    const api::ContextId context = patch_tags_.local(tag);
    patch_timers_.erase(context);
    return client_->cancel(env, context);
  }
  if (module_tags_.owns(tag)) {
    // CloudHub's caches synced: StartCloudHub listens.
    if (shutting_down_) return;
    serving_ = true;
    env.trace(trace_kind::kCloudHubServing, {{"identity", identity_}});
    return;
  }
  HASIM_ASSERT(keepalive_tags_.owns(tag));
  const std::uint64_t serial = keepalive_tags_.local(tag);
  for (const auto& [node, session] : sessions_) {
    if (session.serial != serial) continue;
    // "timeout to receive heart beat from edge node": the session ends.
    return close_session(env, node, "keepalive-timeout", true);
  }
}

}  // namespace hasim::cloudcore
