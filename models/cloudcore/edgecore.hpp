#pragma once
// EdgeCore's EdgeHub on an edge node, the connection half (KE@v1.5.0:edge/pkg/edgehub/
// edgehub.go, process.go, clients/wsclient/websocket.go):
//  - Init dials the cloud up to retryCount = 5 times, sleeping cloudAccessSleep = 5s after
//    each failed dial (the last one too); each dial is bounded by handshakeTimeout (30s);
//  - an Init that fails waits waitConnectionPeriod (1 min in v1.3 - v1.6) and starts over;
//  - once connected, the keepalive goroutine sends a keepalive at once and then every
//    heartbeat (15s); a failed write, a read error or a closed socket signals reconnectChan:
//    EdgeHub tears the client down, sleeps 2 x heartbeat and runs Init again.
// The address dialled is the load balancer's (a Service or a VIP): `dial` picks the
// CloudCore a new connection lands on, or none (no ready endpoint: kube-proxy rejects).
// A silently vanished cloud host (partition, power loss) is noticed only through a write that
// fails; the read deadline is configured but not applied by this client.
// Resource messages on the connection go to MetaManager (metamanager.hpp), whose ACKs and
// queries EdgeHub writes back on the same connection.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "models/cloudcore/metamanager.hpp"
#include "sim/env.hpp"

namespace hasim::cloudcore {

struct EdgeHubConfig {
  std::string node;  // node_id
  Duration heartbeat = seconds(15);
  int retry_count = 5;
  Duration cloud_access_sleep = seconds(5);
  Duration handshake_timeout = seconds(30);
  Duration wait_connection_period = minutes(1);
  // v1.7+ (hasim sends it there only): edged reports the node's status every
  // nodeStatusUpdateFrequency (10s) on its own loop, through EdgeHub while connected (a
  // report while disconnected is lost); CloudCore writes its tunnel port into the Node.
  std::optional<Duration> node_status_period;
  // The load balancer: which CloudCore ("node/cloudcore") a new connection reaches.
  std::function<std::optional<std::string>(Rng&)> dial;
};

class EdgeHub final : public Process {
 public:
  explicit EdgeHub(EdgeHubConfig config);
  void on_start(Env& env) override;
  void on_message(Env& env, ProcessId from, const Message& message) override;
  void on_timer(Env& env, TimerId timer, std::uint64_t tag) override;

  enum class Phase : std::uint8_t { dialing, dial_backoff, connected, reconnect_wait, init_wait };
  Phase phase() const { return phase_; }

 private:
  void init(Env& env);
  void dial(Env& env);
  void dial_failed(Env& env, std::string_view why);
  void connected(Env& env);
  void send_keepalive(Env& env);
  void disconnected(Env& env, std::string_view why);
  void wait(Env& env, Phase phase, Duration after);
  void on_resource(Env& env, const ResourceMessage& message);
  void query(Env& env, const api::ObjectKey& key);

  EdgeHubConfig config_;
  TagSpace tags_;
  Phase phase_ = Phase::init_wait;
  int attempt_ = 0;                  // dials in this Init
  std::optional<ProcessId> cloud_;   // the CloudCore dialled or connected to
  std::string cloud_name_;
  std::optional<TimerId> timer_;     // one at a time: handshake, sleep or keepalive
  void report_node_status(Env& env);
  std::optional<MetaManager> meta_;  // over the process's DurableStore (the SQLite file)
};

}  // namespace hasim::cloudcore
