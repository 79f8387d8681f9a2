#pragma once
// The Store of a kube-apiserver that stands on etcd members (issue 13 part 2): one per
// apiserver process incarnation, inside that process. It puts the sans-IO etcd client and
// etcd3 storage layer (etcd3_store.hpp) in the simulation, keeps objects in etcd under
// /registry (object_codec.hpp), and feeds the apiserver's watch cache from an etcd watch as
// the cacher does (k8s.io/apiserver/pkg/storage/cacher: a list, then a watch from the list's
// revision + 1; a sliding window of events; a watch whose start revision was compacted, or
// a cache that fell behind, makes every watcher re-list with 410 Gone).
//
// Connections, as gRPC has them: a member that stops closes its connections (the apiserver
// gets ConnectionClosed; calls in flight there fail); one that goes silent (node down,
// partition) is found by HTTP/2 keepalive: kube-apiserver's etcd client pings every 30 s
// and gives up 10 s later (storagebackend/factory/etcd3.go keepaliveTime,
// keepaliveTimeout), when the watch moves to the next endpoint. With one endpoint (stacked)
// unary calls wait for their own deadline (the request's, 60 s); with several (external)
// every subchannel has its own keepalive, and the round-robin balancer skips a subchannel
// that is not connected while it reconnects (etcd3_channels.cpp).
//
// /readyz: kube-apiserver's etcd readiness check (factory/etcd3.go newETCD3Check: a Get of
// /registry/health bounded by --etcd-readycheck-timeout, 2 s), run every second as the
// kubelet's readinessProbe of kubeadm's manifest asks (periodSeconds 1). ready() is its last
// answer; the apiserver traces each change.
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/apiserver/etcd3_store.hpp"
#include "models/apiserver/store.hpp"

namespace hasim::api {

struct RaftStoreConfig {
  std::string apiserver;  // the apiserver process, "node/kube-apiserver", for the history
  Etcd3ClientConfig client;
  std::size_t cache_capacity = 4096;          // the watch cache's window of events
  Duration keepalive_time = seconds(30);      // factory/etcd3.go keepaliveTime
  Duration keepalive_timeout = seconds(10);   // factory/etcd3.go keepaliveTimeout
  Duration relist_backoff = milliseconds(800);  // the cacher's reflector: initial back-off
  Duration readiness_period = seconds(1);     // kubeadm readinessProbe periodSeconds
  Duration readycheck_timeout = seconds(2);   // --etcd-readycheck-timeout
};

class RaftStore final : public Store {
 public:
  explicit RaftStore(RaftStoreConfig config);

  void start(Env& env) override;
  bool on_message(Env& env, ProcessId from, const Message& message) override;
  bool on_timer(Env& env, std::uint64_t tag) override;
  std::optional<std::string> not_ready() const override;

  void get(ProcessId caller, const ObjectKey& key, Done done) override;
  void list(ProcessId caller, Kind kind, const std::string& namespace_, Done done) override;
  void create(ProcessId caller, Object object, Done done) override;
  void update(ProcessId caller, Object object, Done done) override;
  void remove(ProcessId caller, const ObjectKey& key, Done done) override;
  void subscribe(ProcessId subscriber) override;
  bool events_after(std::uint64_t after, std::vector<StoreEvent>& out) const override;
  std::uint64_t revision() const override { return cache_revision_; }

 private:
  enum class Purpose : std::uint8_t { request, cache_list, readiness };
  struct Pending {
    Pending(Purpose p, Done d, Object o = {}, bool create = false)
        : purpose(p), done(std::move(d)), object(std::move(o)), create_on_missing(create) {}
    Purpose purpose = Purpose::request;
    Done done;
    Object object;  // create/update: what was written (without resourceVersion)
    bool create_on_missing = false;
  };

  std::int64_t now_ns() const;
  void begin(std::uint64_t id, Pending pending);
  void run(Etcd3Effects effects);
  void finished(const StorageResult& result);
  StoreResult to_store_result(const Pending& pending, const StorageResult& result) const;
  ObjectPtr decode(const etcd::mvcc::KeyValue& kv) const;
  void trace_calls(const std::vector<Etcd3CallRecord>& calls);
  const std::string* endpoint_of(ProcessId process) const;
  void heard_from(ProcessId from);
  void connection_lost(const std::string& endpoint);

  // raft_store_cache.cpp
  void start_cache();
  void cache_listed(const StorageResult& result);
  void reset_cache(std::int64_t revision);
  void open_watch();
  void on_watch_response(const etcd::KvWatchResponse& response);
  void append_event(const etcd::mvcc::Event& event);
  void watch_failed(bool compacted);
  void ping();
  void on_ping_answer(std::uint64_t id);
  void check_readiness();
  void readiness_checked(const StorageResult& result);
  void on_store_timer(std::uint64_t local);

  RaftStoreConfig config_;
  Etcd3Store client_;
  Env* env_ = nullptr;
  TagSpace client_tags_, store_tags_;
  std::map<std::string, ProcessId> endpoints_;  // member processes by "node/etcd"
  std::map<std::uint64_t, Pending> pending_;    // by storage operation id
  // The watch cache.
  bool cache_ready_ = false;
  std::uint64_t cache_revision_ = 0;  // the revision the cache has seen up to
  std::uint64_t cache_floor_ = 0;     // every event after it is in events_
  std::deque<StoreEvent> events_;
  // The etcd watch: its id, endpoint, and the keepalive ping in flight.
  std::uint64_t watch_id_ = 0;
  bool watching_ = false;
  std::size_t watch_endpoint_ = 0;
  bool ping_armed_ = false;
  std::uint64_t ping_id_ = 0;
  bool ping_open_ = false;
  std::optional<TimerId> ping_timeout_;
  // /readyz.
  std::optional<std::string> not_ready_ = std::string("etcd: not yet checked");
  bool readiness_open_ = false;
};

}  // namespace hasim::api
