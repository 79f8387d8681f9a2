// The etcd client's gRPC subchannels, one per endpoint, when kube-apiserver is given several
// (external etcd). gRPC's round_robin balancer picks only among READY subchannels; a
// subchannel leaves READY when its transport closes (the member stopped: ConnectionClosed)
// or when HTTP/2 keepalive finds it silent (a partition, a node that is down: no frame read
// for keepaliveTime while calls are open, then no answer to a ping within keepaliveTimeout;
// grpc-go internal/transport http2_client.go keepalive, PermitWithoutStream false as clientv3
// leaves it). It then reconnects in the background: an attempt at once, each bounded by the
// dial timeout, the next after gRPC's exponential back-off, until one is answered.
// Attempts and pings are Status requests to the member (etcd answers them from any state).
#include <algorithm>

#include "models/apiserver/etcd3_store.hpp"
#include "sim/assert.hpp"

namespace hasim::api {
namespace {

// Channel timer kinds (the token's low two bits).
constexpr std::uint64_t kKeepaliveCheck = 0;
constexpr std::uint64_t kKeepaliveTimeout = 1;
constexpr std::uint64_t kReconnect = 2;
constexpr std::uint64_t kConnectTimeout = 3;

}  // namespace

std::size_t Etcd3Store::pick_endpoint() const {
  if (config_.balancer != EtcdBalancer::round_robin || !has_channels()) return active_;
  const std::size_t n = config_.endpoints.size();
  for (std::size_t step = 0; step < n; ++step) {
    const std::size_t index = (active_ + step) % n;
    if (connected(config_.endpoints[index])) return index;
  }
  return active_;  // none is READY: the call fails fast ("no connection available")
}

std::size_t Etcd3Store::index_of(const std::string& endpoint) const {
  for (std::size_t i = 0; i < config_.endpoints.size(); ++i) {
    if (config_.endpoints[i] == endpoint) return i;
  }
  HASIM_ASSERT(false);  // only configured endpoints are ever named
  return 0;
}

// Token: the channel bit, the generation (the timer is stale once its channel moved on), the
// endpoint's index (8 bits) and the kind (2 bits).
std::uint64_t Etcd3Store::channel_timer(std::size_t index, std::uint64_t kind,
                                        std::uint64_t gen) const {
  HASIM_ASSERT(index < 256 && kind < 4 && gen < (std::uint64_t{1} << 45));
  return kEtcd3ChannelTimerBit | (gen << 10) | (std::uint64_t{index} << 2) | kind;
}

void Etcd3Store::heard_from(const std::string& endpoint, std::int64_t now_ns) {
  if (!has_channels()) return;
  channels_[index_of(endpoint)].heard_ns = now_ns;
}

bool Etcd3Store::calls_on(const std::string& endpoint) const {
  for (const auto& [call, id] : calls_) {
    if (ops_.at(id).endpoint == endpoint) return true;
  }
  return false;
}

void Etcd3Store::arm_keepalive(std::size_t index, Duration after, Etcd3Effects& out) {
  HASIM_ASSERT(after.ns > 0);
  Channel& channel = channels_[index];
  channel.keepalive = next_gen_++;
  out.timers.push_back(Etcd3Timer{after, channel_timer(index, kKeepaliveCheck, channel.keepalive)});
}

// The keepalive timer: dormant without open calls; otherwise a ping once nothing has been
// read for keepaliveTime.
void Etcd3Store::keepalive_check(std::size_t index, std::int64_t now_ns, Etcd3Effects& out) {
  Channel& channel = channels_[index];
  const std::string& endpoint = config_.endpoints[index];
  channel.keepalive = 0;
  if (!connected(endpoint) || channel.ping != 0 || !calls_on(endpoint)) return;
  const std::int64_t quiet = now_ns - channel.heard_ns;
  if (quiet < config_.keepalive_time.ns) {
    return arm_keepalive(index, Duration{config_.keepalive_time.ns - quiet}, out);
  }
  channel.ping = kEtcd3ProbeBit | next_probe_++;
  out.probes.push_back(Etcd3Probe{endpoint, channel.ping});
  out.timers.push_back(Etcd3Timer{config_.keepalive_timeout,
                                  channel_timer(index, kKeepaliveTimeout, channel.ping & ~kEtcd3ProbeBit)});
}

void Etcd3Store::attempt_connect(std::size_t index, Etcd3Effects& out) {
  Channel& channel = channels_[index];
  HASIM_ASSERT(channel.connect == 0);
  channel.reconnect = 0;
  channel.connect = kEtcd3ProbeBit | next_probe_++;
  out.probes.push_back(Etcd3Probe{config_.endpoints[index], channel.connect});
  out.timers.push_back(Etcd3Timer{config_.dial_timeout,
                                  channel_timer(index, kConnectTimeout, channel.connect & ~kEtcd3ProbeBit)});
}

// An attempt refused or timed out: the next after the back-off, which grows by 1.6 up to
// its maximum (grpc-go backoff.Exponential).
void Etcd3Store::connect_failed(std::size_t index, Etcd3Effects& out) {
  Channel& channel = channels_[index];
  channel.connect = 0;
  const Duration wait = channel.backoff.ns == 0 ? config_.reconnect_base : channel.backoff;
  channel.backoff = Duration{std::min(config_.reconnect_max.ns, wait.ns * 8 / 5)};
  channel.reconnect = next_gen_++;
  out.timers.push_back(Etcd3Timer{wait, channel_timer(index, kReconnect, channel.reconnect)});
}

// The transport closed (on_connection_closed has failed its calls): reconnect at once, or,
// if this was an attempt being refused, after the back-off.
void Etcd3Store::channel_closed(const std::string& endpoint, Etcd3Effects& out) {
  const std::size_t index = index_of(endpoint);
  Channel& channel = channels_[index];
  channel.ping = 0;
  channel.keepalive = 0;
  if (channel.connect != 0) return connect_failed(index, out);
  if (channel.reconnect == 0) attempt_connect(index, out);
}

void Etcd3Store::on_probe_answer(std::uint64_t id, std::int64_t now_ns, Etcd3Effects& out) {
  HASIM_ASSERT((id & kEtcd3ProbeBit) != 0);
  for (std::size_t index = 0; index < channels_.size(); ++index) {
    Channel& channel = channels_[index];
    if (channel.ping == id) {
      channel.ping = 0;
      channel.heard_ns = now_ns;
      if (calls_on(config_.endpoints[index])) arm_keepalive(index, config_.keepalive_time, out);
      return;
    }
    if (channel.connect == id) {
      channel.connect = 0;
      channel.backoff = Duration{};
      channel.heard_ns = now_ns;
      disconnected_.erase(config_.endpoints[index]);  // READY again
      return;
    }
  }
  // A ping or attempt the channel gave up on already: nothing to do.
}

void Etcd3Store::on_channel_timer(std::uint64_t token, std::int64_t now_ns, Etcd3Effects& out) {
  HASIM_ASSERT(has_channels());
  const std::uint64_t kind = token & 3;
  const std::size_t index = (token >> 2) & 0xff;
  const std::uint64_t gen = (token & ~kEtcd3ChannelTimerBit) >> 10;
  HASIM_ASSERT(index < channels_.size());
  Channel& channel = channels_[index];
  switch (kind) {
    case kKeepaliveCheck:
      if (channel.keepalive == gen) keepalive_check(index, now_ns, out);
      return;
    case kKeepaliveTimeout:
      if (channel.ping == 0 || (channel.ping & ~kEtcd3ProbeBit) != gen) return;
      // No answer: the transport is closed, its calls fail as "transport is closing".
      return on_connection_closed(config_.endpoints[index], now_ns, out);
    case kReconnect:
      if (channel.reconnect == gen && channel.connect == 0) attempt_connect(index, out);
      return;
    case kConnectTimeout:
      if (channel.connect != 0 && (channel.connect & ~kEtcd3ProbeBit) == gen) {
        connect_failed(index, out);
      }
      return;
  }
  HASIM_ASSERT(false);
}

}  // namespace hasim::api
