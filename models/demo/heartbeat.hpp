#pragma once
// Demo model: a heartbeat failure detector, small enough to be obviously correct, so the
// kernel is exercised end to end before the real models arrive.
//
// Every `interval` (local monotonic time) a detector sends a Heartbeat datagram to each
// peer. For each peer it keeps one timeout timer, re-armed whenever that peer's heartbeat
// arrives; when it fires the peer is suspected ("suspect"), and the next heartbeat from it
// clears the suspicion ("trust"). A restarted detector starts trusting everyone.
//
// Assumptions under which a suspicion is never false (property no-false-suspicion): no
// message loss, one-way latency below timeout - interval, equal clock rates, and the
// detector itself not paused. A clock running faster than timeout/interval breaks it.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/env.hpp"

namespace hasim {

struct Heartbeat final : MessageBody {
  explicit Heartbeat(std::uint64_t sequence_) : sequence(sequence_) {}
  std::string_view type() const override { return "Heartbeat"; }
  std::uint64_t sequence;
};

struct HeartbeatConfig {
  Duration interval = seconds(1);
  Duration timeout = seconds(3);
  std::vector<std::string> peers;  // qualified process names, e.g. "n2/heartbeat"
};

class HeartbeatDetector final : public Process {
 public:
  explicit HeartbeatDetector(HeartbeatConfig config);

  void on_start(Env& env) override;
  void on_message(Env& env, ProcessId from, const Message& message) override;
  void on_timer(Env& env, TimerId timer, std::uint64_t tag) override;

  bool suspects(std::size_t peer_index) const { return peers_.at(peer_index).suspected; }

 private:
  // Local values in tags_: the send timer; peer timeouts use 1 + the peer's index.
  static constexpr std::uint64_t kSendTag = 0;

  struct Peer {
    std::string name;
    ProcessId id = 0;
    TimerId timeout_timer = 0;
    bool suspected = false;
  };
  void send_heartbeats(Env& env);
  void arm_timeout(Env& env, std::size_t index);

  HeartbeatConfig config_;
  std::vector<Peer> peers_;
  std::uint64_t sequence_ = 0;
  TagSpace tags_;
};

}  // namespace hasim
