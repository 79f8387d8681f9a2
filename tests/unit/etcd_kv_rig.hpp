#pragma once
// A 3-member etcd world (n1..n3, each member on its own disk) and a scripted client on node
// "c" that sends KvRequests at fixed times to a member chosen when the call goes out, and
// records every KvResponse with its arrival time. For the KV server tests.
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/etcd/kv_api.hpp"
#include "models/etcd/member.hpp"
#include "sim/world.hpp"

namespace hasim::testing {

struct KvCall {
  std::int64_t at_ms = 0;
  std::function<std::string()> member;  // "n1/etcd", ... resolved when the call goes out
  Message request;                      // a KvRequest or a KvWatch
};

struct KvAnswer {
  std::int64_t sent_ns = 0;
  std::int64_t at_ns = 0;
  std::shared_ptr<const etcd::KvResponse> response;
};

// The trace events of one kind, in order.
struct KindLog final : hasim::TraceObserver {
  explicit KindLog(std::string_view k) : kind(k) {}
  void on_event(const hasim::TraceEvent& event) override {
    if (event.kind == kind) events.emplace_back(event);
  }
  bool wants(std::string_view k) const override { return k == kind; }
  std::string_view kind;
  std::vector<hasim::StoredTraceEvent> events;
};

class KvRig {
 public:
  explicit KvRig(etcd::EtcdConfig config = {}, std::uint64_t seed = 1);
  // Before run(): the client's script.
  void call(std::int64_t at_ms, std::function<std::string()> member, Message request);
  void call(std::int64_t at_ms, std::string member, Message request);
  // Every watch response the client got, in order.
  const std::vector<std::shared_ptr<const etcd::KvWatchResponse>>& watch_events() const {
    return *events_;
  }
  // The status answers, by the call's client id.
  const etcd::KvStatusResponse* status(std::uint64_t client_id) const;
  void run_until_ms(std::int64_t ms);

  // The running member of node i (1-based), null while it is down.
  const etcd::EtcdMember* member(int i) const { return *slots_.at(i - 1); }
  int leader() const;  // the node index of a member that leads, 0 if none
  std::string name(int i) const { return "n" + std::to_string(i) + "/etcd"; }
  ProcessId process(int i) const { return processes_.at(i - 1); }
  NodeId node(int i) const { return static_cast<NodeId>(i - 1); }
  // Cuts node i off from the other members (both ways); returns the cut.
  std::uint64_t isolate(int i);
  // The answer to the client's call `client_id`, or null.
  const KvAnswer* answer(std::uint64_t client_id) const;
  World& world() { return *world_; }

 private:
  std::unique_ptr<World> world_;
  std::vector<std::shared_ptr<const etcd::EtcdMember*>> slots_;
  std::vector<ProcessId> processes_;
  std::shared_ptr<std::vector<KvCall>> calls_;
  std::shared_ptr<std::map<std::uint64_t, KvAnswer>> answers_;
  std::shared_ptr<std::vector<std::shared_ptr<const etcd::KvWatchResponse>>> events_;
  std::shared_ptr<std::map<std::uint64_t, std::shared_ptr<const etcd::KvStatusResponse>>> statuses_;
};

// Requests as clientv3 builds them.
std::shared_ptr<etcd::KvRequest> kv_put(std::uint64_t id, std::string key, std::string value);
std::shared_ptr<etcd::KvRequest> kv_get(std::uint64_t id, std::string key, bool serializable,
                                        std::string range_end = "");
std::shared_ptr<etcd::KvWatch> kv_watch(std::uint64_t watch_id, std::string key,
                                        std::string range_end, std::int64_t start_revision);
std::shared_ptr<etcd::KvStatusRequest> kv_status(std::uint64_t id);
std::shared_ptr<etcd::KvRequest> kv_compact(std::uint64_t id, std::int64_t revision);
// kube-apiserver's OptimisticPut (etcd3 store.go GuaranteedUpdate): If(mod_revision(key) =
// rv) Then(Put) Else(Get); rv 0 is a create (store.go Create: no Else).
std::shared_ptr<etcd::KvRequest> kv_optimistic_put(std::uint64_t id, std::string key,
                                                   std::string value, std::int64_t rv);

}  // namespace hasim::testing

namespace hasim::testing {

// Maintenance calls as clientv3 builds them: Defragment, and Alarm (GET or DEACTIVATE).
std::shared_ptr<etcd::KvRequest> kv_defragment(std::uint64_t id);
std::shared_ptr<etcd::KvRequest> kv_alarm(std::uint64_t id, etcd::mvcc::AlarmAction action,
                                          std::uint64_t member = 0);

// The answer to call `id`: it must have come and succeeded, or the test stops.
inline const etcd::KvResponse& ok_answer(const KvRig& rig, std::uint64_t id) {
  const KvAnswer* a = rig.answer(id);
  INFO("call " << id);
  REQUIRE(a != nullptr);
  INFO("error: " << a->response->error);
  REQUIRE(a->response->ok());
  return *a->response;
}

}  // namespace hasim::testing
