// The etcd3 storage layer (models/apiserver/etcd3_store.hpp) against a 3-member etcd world
// (etcd_kv_rig): a small process hosts the sans-IO store, as kube-apiserver would, and runs a
// script of storage operations.
#include <catch2/catch.hpp>

#include <algorithm>

#include <functional>
#include <map>
#include <memory>

#include "etcd_kv_rig.hpp"
#include "models/apiserver/etcd3_store.hpp"
#include "sim/assert.hpp"

namespace hasim::testing {
namespace {

using api::Etcd3Effects;
using api::Etcd3Store;
using api::StorageError;
using api::StorageResult;

constexpr std::int64_t kElected = 3'000;  // ms: a leader is elected well before

using StepFn = std::function<std::uint64_t(Etcd3Store&, std::int64_t now_ns, Etcd3Effects&)>;
struct Step {
  std::int64_t at_ms = 0;
  StepFn run;
};
struct Outcome {
  StorageResult result;
  std::int64_t at_ms = 0;
};
struct Script {
  std::vector<Step> steps;
  std::map<std::size_t, Outcome> outcomes;  // by step index
  std::string last_endpoint;
  std::vector<std::string> endpoints;  // of every call, in order
  int probe_answers = 0;
};

// Hosts one Etcd3Store: carries its sends and timers through the Env, hands responses back.
class StoreHost final : public Process {
 public:
  StoreHost(api::Etcd3ClientConfig config, std::shared_ptr<Script> script)
      : names_(config.endpoints), store_(std::move(config)), script_(std::move(script)) {}
  void on_start(Env& env) override {
    steps_ = env.tag_space("steps");
    store_timers_ = env.tag_space("store");
    for (std::size_t i = 0; i < script_->steps.size(); ++i) {
      env.set_timer(milliseconds(script_->steps[i].at_ms), steps_.tag(i));
    }
  }
  void on_timer(Env& env, TimerId, std::uint64_t tag) override {
    Etcd3Effects out;
    const std::int64_t now = env.monotonic_now().ns;
    if (steps_.owns(tag)) {
      const std::size_t i = steps_.local(tag);
      step_of_[script_->steps[i].run(store_, now, out)] = i;
    } else {
      store_.on_timer(store_timers_.local(tag), now, out);
    }
    drain(env, out);
  }
  void on_message(Env& env, ProcessId from, const Message& message) override {
    Etcd3Effects out;
    const std::int64_t now = env.monotonic_now().ns;
    if (const auto* response = message_as<etcd::KvResponse>(*message)) {
      store_.on_response(*response, now, out);
    } else if (const auto* status = message_as<etcd::KvStatusResponse>(*message)) {
      ++script_->probe_answers;
      store_.on_probe_answer(status->client_id, now, out);
    } else if (message_as<ConnectionClosed>(*message) != nullptr) {
      for (const std::string& name : names_) {
        if (env.process(name) == from) store_.on_connection_closed(name, now, out);
      }
    }
    drain(env, out);
  }

 private:
  void drain(Env& env, Etcd3Effects& out) {
    for (auto& s : out.sends) {
      script_->last_endpoint = s.endpoint;
      script_->endpoints.push_back(s.endpoint);
      env.send(env.process(s.endpoint), std::move(s.request));
    }
    for (const auto& p : out.probes) {
      auto status = std::make_shared<etcd::KvStatusRequest>();
      status->client_id = p.id;
      env.send(env.process(p.endpoint), std::move(status));
    }
    for (const auto& t : out.timers) env.set_timer(t.after, store_timers_.tag(t.token));
    for (auto& r : out.done) {
      const std::size_t i = step_of_.at(r.id);
      script_->outcomes[i] = Outcome{std::move(r), env.monotonic_now().ns / 1'000'000};
    }
  }

  std::vector<std::string> names_;  // the endpoints, to name a closed connection's peer
  Etcd3Store store_;
  std::shared_ptr<Script> script_;
  std::map<std::uint64_t, std::size_t> step_of_;
  TagSpace steps_;
  TagSpace store_timers_;
};

std::shared_ptr<Script> host(KvRig& rig, NodeId node, api::Etcd3ClientConfig config) {
  auto script = std::make_shared<Script>();
  rig.world().add_process(node, "apiserver",
                          [config, script] { return std::make_unique<StoreHost>(config, script); });
  return script;
}

api::Etcd3ClientConfig endpoints(const KvRig& rig, std::vector<int> members) {
  std::vector<std::string> names;
  for (int i : members) names.push_back(rig.name(i));
  return api::external_etcd_client(std::move(names));
}

const StorageResult& outcome(const Script& s, std::size_t step) {
  const auto it = s.outcomes.find(step);
  INFO("step " << step << " has no outcome; last endpoint " << s.last_endpoint);
  REQUIRE(it != s.outcomes.end());
  INFO("step " << step << ": " << api::to_string(it->second.result.error) << " "
               << it->second.result.etcd_error);
  return it->second.result;
}

const StorageResult& ok_outcome(const Script& s, std::size_t step) {
  const StorageResult& r = outcome(s, step);
  INFO("step " << step << ": " << api::to_string(r.error) << " " << r.etcd_error);
  REQUIRE(r.ok());
  return r;
}

StepFn do_get(std::string key) {
  return [key](Etcd3Store& s, std::int64_t now, Etcd3Effects& out) { return s.get(key, now, out); };
}
StepFn do_list(std::string prefix, std::int64_t rev) {
  return [prefix, rev](Etcd3Store& s, std::int64_t now, Etcd3Effects& out) {
    return s.list(prefix, rev, now, out);
  };
}
StepFn do_create(std::string key, std::string value) {
  return [key, value](Etcd3Store& s, std::int64_t now, Etcd3Effects& out) {
    return s.create(key, value, now, out);
  };
}
StepFn do_update(std::string key, std::string value, std::int64_t rv) {
  return [key, value, rv](Etcd3Store& s, std::int64_t now, Etcd3Effects& out) {
    return s.update(key, value, rv, now, out);
  };
}
StepFn do_remove(std::string key, std::int64_t rv) {
  return [key, rv](Etcd3Store& s, std::int64_t now, Etcd3Effects& out) {
    return s.remove(key, rv, now, out);
  };
}

constexpr const char* kPod = "/registry/pods/default/p";

}  // namespace

TEST_CASE("etcd3 store: create, get, update, list, delete; resourceVersion = revision",
          "[apiserver][etcd3]") {
  KvRig rig;
  auto s = host(rig, 3, endpoints(rig, {1, 2, 3}));  // external: every member, round robin
  const std::int64_t t = kElected;
  s->steps = {{t, do_create(kPod, "v1")},
              {t + 200, do_get(kPod)},
              {t + 400, do_update(kPod, "v2", 2)},
              {t + 600, do_update(kPod, "stale", 2)},
              {t + 600, do_create(kPod, "again")},
              {t + 800, do_list("/registry/pods/", 0)},
              {t + 800, do_list("/registry/pods/", 2)},
              {t + 1'000, do_update(kPod, "v3", 0)},
              {t + 1'200, do_remove(kPod, 3)},
              {t + 1'400, do_remove(kPod, 0)},
              {t + 1'600, do_get(kPod)},
              {t + 1'600, do_update(kPod, "gone", 0)},
              {t + 1'600, do_remove(kPod, 4)}};
  rig.run_until_ms(t + 3'000);
  CHECK(ok_outcome(*s, 0).resource_version == 2);
  const StorageResult& got = ok_outcome(*s, 1);
  REQUIRE(got.kvs.size() == 1);
  CHECK(got.kvs[0].value == "v1");
  CHECK(got.resource_version == 2);
  CHECK(ok_outcome(*s, 2).resource_version == 3);
  // A stale precondition: the Else branch reads the current object, the update conflicts.
  const StorageResult& stale = outcome(*s, 3);
  CHECK(stale.error == StorageError::conflict);
  CHECK(stale.resource_version == 3);
  CHECK(api::api_status(stale.error) == api::Status::conflict);
  CHECK(outcome(*s, 4).error == StorageError::key_exists);
  CHECK(api::api_status(StorageError::key_exists) == api::Status::already_exists);
  const StorageResult& now = ok_outcome(*s, 5);
  CHECK(now.resource_version == 3);  // the header revision
  REQUIRE(now.kvs.size() == 1);
  CHECK(now.kvs[0].value == "v2");
  const StorageResult& then = ok_outcome(*s, 6);
  CHECK(then.resource_version == 2);  // the list's own resourceVersion
  REQUIRE(then.kvs.size() == 1);
  CHECK(then.kvs[0].value == "v1");
  const StorageResult& unconditional = ok_outcome(*s, 7);  // reads rv 3, then writes at 4
  CHECK(unconditional.resource_version == 4);
  CHECK(unconditional.attempts == 2);
  CHECK(outcome(*s, 8).error == StorageError::conflict);  // rv 3 is stale now
  const StorageResult& removed = ok_outcome(*s, 9);
  CHECK(removed.resource_version == 5);
  REQUIRE(removed.kvs.size() == 1);
  CHECK(removed.kvs[0].value == "v3");
  CHECK(outcome(*s, 10).error == StorageError::key_not_found);
  CHECK(outcome(*s, 11).error == StorageError::key_not_found);
  CHECK(outcome(*s, 12).error == StorageError::key_not_found);
}

// GuaranteedUpdate without a precondition: two updates read the same state; the second's
// compare fails, its Else branch returns the first's result and it retries against that.
TEST_CASE("etcd3 store: an unconditional update retries on a moved revision",
          "[apiserver][etcd3]") {
  KvRig rig;
  auto s = host(rig, 3, endpoints(rig, {1, 2, 3}));
  const std::int64_t t = kElected;
  s->steps = {{t, do_create(kPod, "v1")},
              {t + 500, do_update(kPod, "a", 0)},
              {t + 500, do_update(kPod, "b", 0)},
              {t + 1'500, do_get(kPod)}};
  rig.run_until_ms(t + 2'500);
  const StorageResult& a = ok_outcome(*s, 1);
  const StorageResult& b = ok_outcome(*s, 2);
  CHECK(a.resource_version + b.resource_version == 3 + 4);
  CHECK(a.attempts + b.attempts == 2 + 3);  // read + write, and read + write + write
  const StorageResult& last = ok_outcome(*s, 3);
  CHECK(last.resource_version == 4);
  CHECK(last.kvs.at(0).value == (a.resource_version == 4 ? "a" : "b"));
}

// gRPC round robin (clientv3 >= 3.4): each call goes to the next endpoint, so with one member
// cut off from its peers a write that lands there times out while the others succeed.
TEST_CASE("etcd3 store: round robin spreads writes; the cut-off member's time out",
          "[apiserver][etcd3]") {
  KvRig rig;
  auto s = host(rig, 3, endpoints(rig, {1, 2, 3}));
  const std::int64_t t = kElected;
  rig.world().at(TrueTime{t * 1'000'000}, [&rig] { rig.isolate(1); });
  for (int k = 0; k < 3; ++k) {
    s->steps.push_back({t + 3'000 + 100 * k, do_create("/registry/k" + std::to_string(k), "v")});
  }
  rig.run_until_ms(t + 12'000);
  CHECK(outcome(*s, 0).error == StorageError::timeout);  // n1: etcdserver: request timed out
  CHECK(ok_outcome(*s, 1).attempts == 1);
  CHECK(ok_outcome(*s, 2).attempts == 1);
}

TEST_CASE("etcd3 store: a list below the compacted revision is 410 Gone", "[apiserver][etcd3]") {
  KvRig rig;
  auto s = host(rig, 3, endpoints(rig, {1, 2, 3}));
  const std::int64_t t = kElected;
  s->steps = {{t, do_create("/registry/a", "1")},
              {t + 200, do_create("/registry/b", "1")},
              {t + 600, do_list("/registry/", 2)},
              {t + 600, do_list("/registry/", 99)}};
  rig.call(
      t + 400, [&rig] { return rig.name(rig.leader()); }, kv_compact(1, 3));
  rig.run_until_ms(t + 2'000);
  const StorageResult& old = outcome(*s, 2);
  CHECK(old.error == StorageError::resource_expired);
  CHECK(api::api_status(old.error) == api::Status::gone);
  CHECK(outcome(*s, 3).error == StorageError::rv_too_large);
}

// kubeadm's stacked apiserver lists only its local member (--etcd-servers=127.0.0.1:2379):
// with that member cut off from the others there is nowhere to fail over to.
TEST_CASE("etcd3 store: stacked, local member partitioned: requests time out",
          "[apiserver][etcd3]") {
  KvRig rig;
  auto s = host(rig, rig.node(1), api::stacked_etcd_client(rig.name(1)));
  const std::int64_t t = kElected;
  rig.world().at(TrueTime{t * 1'000'000}, [&rig] { rig.isolate(1); });
  s->steps = {{t + 2'000, do_get(kPod)}, {t + 2'000, do_create(kPod, "v")}};
  rig.run_until_ms(t + 70'000);
  // The read is retried on the same endpoint (Unavailable) until the deadline passes.
  const StorageResult& read = outcome(*s, 0);
  CHECK(read.error == StorageError::timeout);
  CHECK(read.attempts > 1);
  CHECK(s->outcomes.at(0).at_ms == t + 2'000 + 60'000);
  // The write is not retried: the member answered, so it may have been applied.
  const StorageResult& write = outcome(*s, 1);
  CHECK(write.attempts == 1);
  CHECK(write.error == StorageError::timeout);
  CHECK(write.etcd_error == "etcdserver: request timed out");
  CHECK(api::api_status(write.error) == api::Status::timeout);
  // The member's own ReqTimeout: 5 s + 2 x election timeout (etcd server/config.go).
  CHECK(s->outcomes.at(1).at_ms == t + 2'000 + 7'000);
}

// With every member listed (external etcd, every apiserver given all endpoints) the client
// moves on: the read that timed out on the member cut off from its peers is retried on the
// next one. (An apiserver on the cut-off node itself reaches no other member either.)
TEST_CASE("etcd3 store: fails over to another endpoint when the first is cut off",
          "[apiserver][etcd3]") {
  KvRig rig;
  api::Etcd3ClientConfig config = endpoints(rig, {1, 2, 3});
  config.balancer = api::EtcdBalancer::pinned;
  auto s = host(rig, 3, config);
  const std::int64_t t = kElected;
  rig.world().at(TrueTime{t * 1'000'000}, [&rig] { rig.isolate(1); });
  s->steps = {{t + 2'000, do_get(kPod)}, {t + 30'000, do_create(kPod, "v")}};
  rig.run_until_ms(t + 40'000);
  const StorageResult& read = outcome(*s, 0);
  CHECK(read.error == StorageError::key_not_found);  // answered by n2
  CHECK(read.attempts == 2);
  // The member's ReqTimeout, the 25 ms back-off, then one round trip to n2.
  CHECK(s->outcomes.at(0).at_ms >= t + 2'000 + 7'000 + 25);
  CHECK(s->outcomes.at(0).at_ms < t + 2'000 + 7'000 + 100);
  const StorageResult& write = ok_outcome(*s, 1);  // straight to the new pinned endpoint
  CHECK(write.attempts == 1);
  CHECK(s->last_endpoint == rig.name(2));
}

TEST_CASE("etcd3 store: every member unreachable: the request deadline ends it",
          "[apiserver][etcd3]") {
  KvRig rig;
  auto s = host(rig, 3, endpoints(rig, {1, 2, 3}));
  const std::int64_t t = kElected;
  rig.world().at(TrueTime{t * 1'000'000}, [&rig] {
    std::vector<DirectedEdge> cut;
    for (int i = 1; i <= 3; ++i) {
      cut.emplace_back(NodeId{3}, rig.node(i));
      cut.emplace_back(rig.node(i), NodeId{3});
    }
    rig.world().partition(std::move(cut));
  });
  s->steps = {{t + 1'000, do_get(kPod)}, {t + 1'000, do_update(kPod, "v", 7)}};
  rig.run_until_ms(t + 62'000);
  // Keepalive closes the silent transports 30 s + 10 s after the last frame: the write fails
  // then, of unknown outcome, and is not retried; the read is retried, finds no connected
  // subchannel, and waits out the request deadline.
  const StorageResult& read = outcome(*s, 0);
  CHECK(read.error == StorageError::timeout);
  CHECK(read.etcd_error == "context deadline exceeded");
  CHECK(read.attempts == 2);
  CHECK(s->outcomes.at(0).at_ms == t + 1'000 + 60'000);
  const StorageResult& write = outcome(*s, 1);
  CHECK(write.error == StorageError::unavailable);
  CHECK(write.etcd_error == "transport is closing");
  CHECK(write.attempts == 1);
  CHECK(s->outcomes.at(1).at_ms == t + 1'000 + 30'000 + 10'000);
}

// gRPC's round_robin picks only connected (READY) subchannels: a member that goes silent is
// used until keepalive finds it (30 s without a frame while calls are open, then 10 s
// without an answer to a ping), then skipped while the subchannel reconnects (attempts
// bounded by the 20 s dial timeout, then 1 s, 1.6 s, ... apart), and used again once an
// attempt is answered.
TEST_CASE("etcd3 store: a silent endpoint is skipped from keepalive until it reconnects",
          "[apiserver][etcd3]") {
  KvRig rig;
  auto s = host(rig, 3, endpoints(rig, {1, 2, 3}));
  const std::int64_t t = kElected;
  std::uint64_t cut = 0;  // the client's node (3) and n1's cannot reach each other
  rig.world().at(TrueTime{t * 1'000'000}, [&rig, &cut] {
    cut = rig.world().partition({{NodeId{3}, rig.node(1)}, {rig.node(1), NodeId{3}}});
  });
  rig.world().at(TrueTime{(t + 100'000) * 1'000'000}, [&rig, &cut] { rig.world().heal(cut); });
  for (int i = 0; i < 180; ++i) s->steps.push_back({t + 1'000 + i * 1'000, do_get(kPod)});
  rig.run_until_ms(t + 182'000);
  const auto count_n1 = [&](std::size_t from, std::size_t to) {
    return std::count(s->endpoints.begin() + static_cast<std::ptrdiff_t>(from),
                      s->endpoints.begin() + static_cast<std::ptrdiff_t>(to), rig.name(1));
  };
  // Until keepalive closes n1's transport, every third read goes there and waits for the
  // closing (then it is retried on n2 or n3); after it, none does.
  CHECK(count_n1(0, 9) == 3);
  std::size_t slow = 0;
  for (const auto& [step, o] : s->outcomes) {
    INFO("step " << step);
    CHECK(o.result.error == StorageError::key_not_found);  // every read answered at last
    if (o.at_ms - (t + 1'000 + static_cast<std::int64_t>(step) * 1'000) > 1'000) ++slow;
  }
  CHECK(slow > 0);
  // Reads issued between the close and the heal are answered at once by n2 and n3.
  for (std::size_t step = 45; step < 95; ++step) {
    INFO("step " << step);
    CHECK(s->outcomes.at(step).at_ms - (t + 1'000 + static_cast<std::int64_t>(step) * 1'000) < 100);
  }
  // After the heal a reconnect attempt is answered and n1 is picked again.
  CHECK(s->probe_answers > 0);
  const std::size_t total = s->endpoints.size();
  CHECK(count_n1(total - 30, total) == 10);
}

TEST_CASE("etcd3 errors: codes, safe retries and API statuses", "[apiserver][etcd3]") {
  using api::GrpcCode;
  CHECK(api::grpc_code_of("etcdserver: request timed out") == GrpcCode::unavailable);
  CHECK(api::grpc_code_of("etcdserver: no leader") == GrpcCode::unavailable);
  CHECK(api::grpc_code_of("etcdserver: leader changed") == GrpcCode::unavailable);
  CHECK(api::grpc_code_of("etcdserver: too many requests") == GrpcCode::resource_exhausted);
  CHECK(api::grpc_code_of("etcdserver: mvcc: required revision has been compacted") ==
        GrpcCode::out_of_range);
  CHECK(api::safe_to_retry(false, GrpcCode::unavailable));
  CHECK_FALSE(api::safe_to_retry(true, GrpcCode::unavailable));
  CHECK_FALSE(api::safe_to_retry(false, GrpcCode::resource_exhausted));
  CHECK_FALSE(api::safe_to_retry(false, GrpcCode::deadline_exceeded));
  CHECK(api::storage_error_of(GrpcCode::unavailable, "etcdserver: no leader") ==
        StorageError::unavailable);
  CHECK(api::storage_error_of(GrpcCode::resource_exhausted, "etcdserver: too many requests") ==
        StorageError::too_many_requests);
  CHECK(api::api_status(StorageError::unavailable) == api::Status::unavailable);
  CHECK(api::api_status(StorageError::key_not_found) == api::Status::not_found);
}

}  // namespace hasim::testing
