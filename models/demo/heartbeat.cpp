#include "models/demo/heartbeat.hpp"

#include "models/demo/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim {

HeartbeatDetector::HeartbeatDetector(HeartbeatConfig config) : config_(std::move(config)) {
  HASIM_ASSERT(config_.interval.ns > 0);
  HASIM_ASSERT(config_.timeout > config_.interval);
}

void HeartbeatDetector::on_start(Env& env) {
  HASIM_ASSERT(peers_.empty());
  tags_ = env.tag_space("heartbeat");
  for (const std::string& name : config_.peers) {
    peers_.push_back(Peer{name, env.process(name), 0, false});
    HASIM_ASSERT(peers_.back().id != env.self());
  }
  env.trace(demo::trace_kind::kDetectorConfig,
            {{"interval_ns", config_.interval.ns}, {"timeout_ns", config_.timeout.ns}});
  for (std::size_t i = 0; i < peers_.size(); ++i) arm_timeout(env, i);
  send_heartbeats(env);
}

void HeartbeatDetector::send_heartbeats(Env& env) {
  ++sequence_;
  env.trace(demo::trace_kind::kHeartbeatSent,
            {{"seq", static_cast<std::int64_t>(sequence_)}, {"local_ns", env.monotonic_now().ns}});
  for (const Peer& peer : peers_) {
    env.send(peer.id, std::make_shared<Heartbeat>(sequence_), Transport::datagram);
  }
  env.set_timer(config_.interval, tags_.tag(kSendTag));
}

void HeartbeatDetector::arm_timeout(Env& env, std::size_t index) {
  Peer& peer = peers_[index];
  if (peer.timeout_timer != 0) env.cancel_timer(peer.timeout_timer);
  peer.timeout_timer = env.set_timer(config_.timeout, tags_.tag(1 + index));
}

void HeartbeatDetector::on_message(Env& env, ProcessId from, const Message& message) {
  HASIM_ASSERT(message->type() == "Heartbeat");
  for (std::size_t i = 0; i < peers_.size(); ++i) {
    if (peers_[i].id != from) continue;
    if (peers_[i].suspected) {
      peers_[i].suspected = false;
      env.trace(demo::trace_kind::kTrust, {{"peer", peers_[i].name}});
    }
    arm_timeout(env, i);
    return;
  }
  HASIM_ASSERT(false && "heartbeat from a process that is not a peer");
}

void HeartbeatDetector::on_timer(Env& env, TimerId timer, std::uint64_t tag) {
  if (tags_.local(tag) == kSendTag) {
    send_heartbeats(env);
    return;
  }
  const std::size_t index = tags_.local(tag) - 1;
  HASIM_ASSERT(index < peers_.size());
  Peer& peer = peers_[index];
  HASIM_ASSERT(peer.timeout_timer == timer);
  HASIM_ASSERT(!peer.suspected);  // the timer is re-armed only by a heartbeat, which trusts
  peer.timeout_timer = 0;
  peer.suspected = true;
  env.trace(demo::trace_kind::kSuspect, {{"peer", peer.name}});
}

}  // namespace hasim
