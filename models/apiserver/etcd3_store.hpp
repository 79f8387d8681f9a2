#pragma once
// kube-apiserver's etcd client and etcd3 storage layer, sans-IO: the caller hands it storage
// operations, the member's KvResponses and timer firings, and drains Etcd3Effects (requests
// to send to a member, timers to arm, finished operations). No Env, no clock of its own:
// every entry point takes the caller's monotonic time.
//
// Client (etcd client/v3): an endpoint list as kube-apiserver's --etcd-servers gives it
// (kubeadm stacked: https://127.0.0.1:2379 only, so the local member and nothing else,
// cmd/kubeadm/app/phases/controlplane/manifests.go getAPIServerCommand; external: the
// endpoints the operator lists, usually every member). client.go dials them with gRPC's round_robin
// policy (each call goes to the next endpoint); etcd 3.3's pinned balancer stayed on one endpoint
// until it failed. Failed calls are retried (retry_interceptor.go) after a fixed back-off
// (defaultBackoffWaitBetween, 25 ms; the 10% jitter is left out) on the next endpoint, up to
// defaultUnaryMaxRetries, while the request's deadline has not passed.
//
// Storage (kubernetes staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go): Get is a
// linearizable Range; GetList a prefix Range at the list's resourceVersion; Create is
// Txn(If ModRevision(key) = 0 Then Put); GuaranteedUpdate and Delete are
// Txn(If ModRevision(key) = rv Then Put / Delete Else Get), retried with the state the Else
// branch returned. resourceVersion is the etcd revision: an object's mod_revision, a list's
// header revision.
#include <cstdint>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "models/apiserver/etcd3_errors.hpp"
#include "models/etcd/kv_api.hpp"
#include "sim/time.hpp"

namespace hasim::api {

enum class EtcdBalancer : std::uint8_t {
  round_robin,  // clientv3 >= 3.4 (client.go roundRobinBalancerName)
  pinned,       // clientv3 3.3: one endpoint until an error or timeout moves it on
};

struct Etcd3ClientConfig {
  std::vector<std::string> endpoints;  // member processes, "n1/etcd", in --etcd-servers order
  EtcdBalancer balancer = EtcdBalancer::round_robin;
  // The deadline of one storage operation: the request context's, which kube-apiserver's
  // --request-timeout sets (genericapiserver server/config.go RequestTimeout, 60 s).
  Duration request_timeout = seconds(60);
  Duration backoff = milliseconds(25);  // retry_interceptor.go defaultBackoffWaitBetween
  int max_attempts = 101;               // one call + defaultUnaryMaxRetries (100)
  // GuaranteedUpdate / conditional Delete loop until the compare succeeds upstream; bounded.
  int max_compare_retries = 16;
  // gRPC subchannels, one per endpoint (etcd3_channels.cpp; with several endpoints only).
  // HTTP/2 keepalive (clientv3 DialKeepAliveTime / DialKeepAliveTimeout, which kube-apiserver's
  // storagebackend/factory/etcd3.go sets to keepaliveTime 30 s and keepaliveTimeout 10 s),
  // the dial timeout (factory/etcd3.go dialTimeout, 20 s, also gRPC's minConnectTimeout) and
  // gRPC's reconnect back-off (backoff.DefaultConfig: 1 s, x1.6, at most 120 s; its 20%
  // jitter is left out).
  Duration keepalive_time = seconds(30);
  Duration keepalive_timeout = seconds(10);
  Duration dial_timeout = seconds(20);
  Duration reconnect_base = seconds(1);
  Duration reconnect_max = seconds(120);
};

// The endpoint lists kubeadm gives kube-apiserver: its own node's member only (stacked), or
// every member (external).
Etcd3ClientConfig stacked_etcd_client(std::string local_member);
Etcd3ClientConfig external_etcd_client(std::vector<std::string> members);

enum class StorageOp : std::uint8_t { get, list, create, update, remove };
std::string_view to_string(StorageOp op);

struct StorageResult {
  std::uint64_t id = 0;
  StorageOp op = StorageOp::get;
  StorageError error = StorageError::none;
  std::string etcd_error;                 // the text etcd answered with, if any
  std::vector<etcd::mvcc::KeyValue> kvs;  // get/create/update: the object; list: the items
  std::int64_t resource_version = 0;      // object: mod_revision; list: header revision
  int attempts = 0;                       // calls made (gRPC attempts + compare retries)
  bool ok() const { return error == StorageError::none; }
};

struct Etcd3Send {
  std::string endpoint;
  std::shared_ptr<etcd::KvRequest> request;
};
// A keepalive ping or a connection attempt to an endpoint (sent as a Status request): its
// answer goes back through Etcd3Store::on_probe_answer.
struct Etcd3Probe {
  std::string endpoint;
  std::uint64_t id = 0;  // always has kEtcd3ProbeBit set
};
struct Etcd3Timer {
  Duration after;
  std::uint64_t token = 0;  // handed back to on_timer
};
// One gRPC call on one key, for the client history (trace_kinds.hpp kEtcdCall and
// kEtcdCallEnd; properties/linearizability/history.hpp). Prefix lists are not recorded.
struct Etcd3CallRecord {
  std::uint64_t call = 0;
  bool end = false;
  // The invocation: op "get", "cas-put" or "cas-delete"; the value written; the compare's
  // ModRevision.
  std::string_view op;
  std::string key;
  std::string value;
  std::int64_t expected = 0;
  // The end: "ok", "fail" (it cannot have taken effect) or "unknown" (it may have).
  std::string_view outcome;
  bool succeeded = false;
  bool found = false;
  std::string observed;  // the value read (a get, the Else branch of a failed compare)
  std::int64_t mod_revision = 0;
  std::int64_t revision = 0;
  std::string error;
};

struct Etcd3Effects {
  std::vector<Etcd3Send> sends;
  std::vector<Etcd3Probe> probes;
  std::vector<Etcd3Timer> timers;
  std::vector<StorageResult> done;
  std::vector<Etcd3CallRecord> calls;
};

class Etcd3Store {
 public:
  explicit Etcd3Store(Etcd3ClientConfig config);

  // Each returns the operation's id; its StorageResult comes out in Effects::done.
  std::uint64_t get(std::string key, std::int64_t now_ns, Etcd3Effects& out);
  // A get with its own deadline (a health check's: --etcd-readycheck-timeout).
  std::uint64_t get(std::string key, std::int64_t now_ns, Duration timeout, Etcd3Effects& out);
  // `revision` 0: the newest (a consistent list); else the list's resourceVersion.
  std::uint64_t list(std::string prefix, std::int64_t revision, std::int64_t now_ns,
                     Etcd3Effects& out);
  std::uint64_t create(std::string key, std::string value, std::int64_t now_ns, Etcd3Effects& out);
  // `rv` is the caller's precondition (the object's resourceVersion); 0: update whatever is
  // stored (GuaranteedUpdate reads the current state first, then retries on a moved one).
  std::uint64_t update(std::string key, std::string value, std::int64_t rv, std::int64_t now_ns,
                       Etcd3Effects& out);
  std::uint64_t remove(std::string key, std::int64_t rv, std::int64_t now_ns, Etcd3Effects& out);

  void on_response(const etcd::KvResponse& response, std::int64_t now_ns, Etcd3Effects& out);
  void on_timer(std::uint64_t token, std::int64_t now_ns, Etcd3Effects& out);
  // The connection to `endpoint` closed (its member stopped, or refused a connection): every
  // call in flight there fails. One sent over a connection believed open may have reached
  // the member (gRPC: "transport is closing"; a write's outcome is then unknown and it is
  // not retried); one sent after the client saw the connection fail never left (gRPC fails
  // it with "no connection available", which retry_interceptor.go retries even for writes).
  void on_connection_closed(const std::string& endpoint, std::int64_t now_ns, Etcd3Effects& out);

  // A probe's answer (kEtcd3ProbeBit ids), and any other frame read from `endpoint` (a watch
  // response): both show its transport alive.
  void on_probe_answer(std::uint64_t id, std::int64_t now_ns, Etcd3Effects& out);
  void heard_from(const std::string& endpoint, std::int64_t now_ns);
  // Several endpoints: each has a subchannel of its own (etcd3_channels.cpp).
  bool has_channels() const { return !channels_.empty(); }
  bool connected(const std::string& endpoint) const { return !disconnected_.contains(endpoint); }

  const std::string& active_endpoint() const { return config_.endpoints[active_]; }
  std::size_t in_flight() const { return ops_.size(); }

 private:
  enum class Phase : std::uint8_t { read, write };
  struct Op {
    std::uint64_t id = 0;
    StorageOp op = StorageOp::get;
    std::string key;
    std::string value;
    std::int64_t rv = 0;      // get/list: list revision; update/remove: the precondition
    std::int64_t target = 0;  // the mod_revision the next write Txn compares against
    Phase phase = Phase::read;
    std::int64_t deadline_ns = 0;
    int attempts = 0;  // gRPC attempts of the current call
    int compare_retries = 0;
    int total_calls = 0;
    std::uint64_t call = 0;  // the client_id of the call in flight, 0 when none
    std::string endpoint;
    bool sent_connected = true;  // the call went over a connection believed open
  };

  static Op make_op(StorageOp kind, std::string key, std::string value, std::int64_t rv,
                    Phase phase);
  std::uint64_t start(Op op, std::int64_t now_ns, Etcd3Effects& out, Duration timeout = {});
  void send_call(Op& op, Etcd3Effects& out);
  std::shared_ptr<etcd::KvRequest> build_call(const Op& op) const;
  void on_call_failed(Op& op, GrpcCode code, const std::string& text, std::int64_t now_ns,
                      Etcd3Effects& out, bool never_sent = false);
  void record_invoke(const Op& op, Etcd3Effects& out) const;
  void record_end(const Op& op, const etcd::KvResponse* response, std::string_view outcome,
                  std::string error, Etcd3Effects& out) const;
  void on_call_ok(Op& op, const etcd::KvResponse& response, Etcd3Effects& out);
  void on_txn(Op& op, const etcd::KvResponse& response, Etcd3Effects& out);
  void next_endpoint();
  // The endpoint a call goes to: the round-robin picker skips endpoints whose subchannel is
  // not connected (gRPC's round_robin picks among READY subchannels only).
  std::size_t pick_endpoint() const;
  void finish(Op& op, StorageResult result, Etcd3Effects& out);

  // Subchannels (etcd3_channels.cpp).
  struct Channel {
    std::int64_t heard_ns = 0;       // the last frame read on its transport
    std::uint64_t keepalive = 0;     // generation of the armed keepalive check; 0: dormant
    std::uint64_t ping = 0;          // the keepalive ping in flight, 0 none
    std::uint64_t connect = 0;       // the connection attempt in flight, 0 none
    std::uint64_t reconnect = 0;     // generation of the armed reconnect; 0: none
    Duration backoff{};              // before the next attempt after a failed one
  };
  std::size_t index_of(const std::string& endpoint) const;
  std::uint64_t channel_timer(std::size_t index, std::uint64_t kind, std::uint64_t gen) const;
  void on_channel_timer(std::uint64_t token, std::int64_t now_ns, Etcd3Effects& out);
  void arm_keepalive(std::size_t index, Duration after, Etcd3Effects& out);
  void keepalive_check(std::size_t index, std::int64_t now_ns, Etcd3Effects& out);
  bool calls_on(const std::string& endpoint) const;
  void attempt_connect(std::size_t index, Etcd3Effects& out);
  void connect_failed(std::size_t index, Etcd3Effects& out);
  void channel_closed(const std::string& endpoint, Etcd3Effects& out);

  Etcd3ClientConfig config_;
  std::size_t active_ = 0;
  std::uint64_t next_op_ = 1;
  std::uint64_t next_call_ = 1;
  std::map<std::uint64_t, Op> ops_;               // by operation id
  std::map<std::uint64_t, std::uint64_t> calls_;  // call id -> operation id
  std::set<std::string> disconnected_;            // endpoints whose connection failed
  std::vector<Channel> channels_;                 // by endpoint index; empty with one endpoint
  std::uint64_t next_probe_ = 1;
  std::uint64_t next_gen_ = 1;
};

// Timer tokens: op id * 2 + kind; a subchannel's have kEtcd3ChannelTimerBit set.
inline constexpr std::uint64_t kEtcd3DeadlineTimer = 0;
inline constexpr std::uint64_t kEtcd3BackoffTimer = 1;
inline constexpr std::uint64_t kEtcd3ChannelTimerBit = std::uint64_t{1} << 55;  // below TagSpace::kLocalLimit
// Probe ids (Status requests the client sends itself), apart from the watch's pings.
inline constexpr std::uint64_t kEtcd3ProbeBit = std::uint64_t{1} << 62;

}  // namespace hasim::api
