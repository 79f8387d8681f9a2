#pragma once
// The rigs shared by the Coordinated Leader Election controller tests
// (test_cle_reconcile.cpp, test_cle_end_of_term.cpp, test_cle_controller.cpp). Reference:
// shared/reference/coordinated-leader-election.md §4 (the controller), §6 (GC),
// §8 (client side), §9.4-9.8.
//   - §9.4 TestReconcileElectionStep and §9.8 D8-D15: one reconcile_election_step with a
//     FakeEnv whose wall clock stands at T and a FakeApi holding the objects; the listers are
//     copies of what the FakeApi holds (unless a test makes the cache stale on purpose).
//   - §9.7 TestLeaseCandidateGCController: one collect_lease_candidates pass on a FakeApi.
//   - §9.5 TestController and §9.6 the e2e tests: a World with one kube-apiserver whose
//     post-start hook is RunWithLeaderElection (the controller elects itself, then runs), and
//     test processes standing in for upstream's goroutines.
#include <catch2/catch.hpp>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fake_api.hpp"
#include "fake_env.hpp"
#include "models/apiserver/apiserver.hpp"
#include "models/apiserver/client.hpp"
#include "models/apiserver/ideal_store.hpp"
#include "models/cluster/component.hpp"
#include "models/election/coordinated_election.hpp"
#include "models/election/election_controller.hpp"
#include "models/election/election_step.hpp"
#include "models/election/lease_candidate.hpp"
#include "models/election/leader_elector.hpp"
#include "models/election/object_lock.hpp"
#include "models/election/run_with_leader_election.hpp"
#include "sim/assert.hpp"
#include "sim/world.hpp"

namespace hasim::election::cle_test {

using namespace hasim::literals;
using hasim::api::Kind;
using hasim::api::Status;
using hasim::api::Verb;
using hasim::testing::FakeApi;
using hasim::testing::FakeEnv;

const std::string kOev(kOldestEmulationVersion);
const std::string kId1 = "component-identity-1";
const std::string kId2 = "component-identity-2";
const std::string kId3 = "component-identity-3";
const std::string kExpiredHolder = "component-identity-expired";

inline api::Object candidate_object(const std::string& ns, const std::string& lease,
                                    std::string name, std::string emulation, std::string binary,
                                    std::optional<LocalTime> renew,
                                    std::optional<LocalTime> ping = {},
                                    std::string strategy = kOev) {
  api::Object object;
  object.key = {Kind::lease_candidate, ns, std::move(name)};
  object.candidate.leaseName = lease;
  object.candidate.emulationVersion = std::move(emulation);
  object.candidate.binaryVersion = std::move(binary);
  object.candidate.renewTime = renew;
  object.candidate.pingTime = ping;
  object.candidate.strategy = std::move(strategy);
  return object;
}

inline api::LeaseSpec lease_spec(std::optional<std::string> holder, std::optional<std::int32_t> lds,
                                 std::optional<LocalTime> renew,
                                 std::optional<std::string> strategy = {}) {
  api::LeaseSpec spec;
  spec.holderIdentity = std::move(holder);
  spec.leaseDurationSeconds = lds;
  spec.renewTime = renew;
  spec.strategy = std::move(strategy);
  return spec;
}

// ---------------------------------------------------------------------------------------------
// One reconcile step on fakes (§9.4, §9.8).

// The fake clock of upstream's test: a whole microsecond, so MicroTime keeps it exactly.
constexpr LocalTime kT = LocalTime{} + 960_h;
const api::ObjectKey kLeaseA{Kind::lease, "default", "component-A"};

inline api::Object candidate(std::string name, std::string emulation, std::string binary,
                             std::optional<LocalTime> renew, std::optional<LocalTime> ping = {},
                             std::string strategy = kOev) {
  return candidate_object("default", "component-A", std::move(name), std::move(emulation),
                          std::move(binary), renew, ping, std::move(strategy));
}

struct Outcome {
  Duration requeue;
  std::optional<std::string> error;
};

class StepRig {
 public:
  // The wall clock stands at T; the monotonic clock reads something else entirely.
  FakeEnv env{1, kT, LocalTime{} + 1_h};
  FakeApi api;  // answers inside request(), moving no clock: the whole step sees T
  std::map<api::ObjectKey, api::ObjectPtr> leases;      // the Lease lister
  std::map<api::ObjectKey, api::ObjectPtr> candidates;  // the LeaseCandidate lister

  // Into the API and, as the informer would have seen it, into the lister.
  void add(api::Object object) {
    const api::ObjectKey key = object.key;
    api.put(std::move(object));
    auto cached = std::make_shared<const api::Object>(*api.find(key));
    (key.kind == Kind::lease ? leases : candidates)[key] = std::move(cached);
  }
  void add_lease(api::LeaseSpec spec) {
    api::Object lease;
    lease.key = kLeaseA;
    lease.lease = std::move(spec);
    add(std::move(lease));
  }

  Outcome step() {
    std::optional<Outcome> outcome;
    reconcile_election_step(
        env, api, ElectionListers{&leases, &candidates}, kLeaseA, ElectionStepOptions{},
        [&outcome](Env&, Duration requeue, const std::optional<std::string>& error) {
          REQUIRE_FALSE(outcome.has_value());  // done runs once
          outcome = Outcome{requeue, error};
        });
    REQUIRE(outcome.has_value());  // the fake answers at once
    return *outcome;
  }

  const api::Object* lease() const { return api.find(kLeaseA); }
  const api::LeaseSpec& lease_spec_of() const {
    const api::Object* object = lease();
    REQUIRE(object != nullptr);
    return object->lease;
  }
  const api::LeaseCandidateSpec& candidate_spec(const std::string& name) const {
    const api::Object* object = api.find({Kind::lease_candidate, "default", name});
    REQUIRE(object != nullptr);
    return object->candidate;
  }
  std::uint64_t lease_version() const {
    const api::Object* object = lease();
    REQUIRE(object != nullptr);
    return object->resourceVersion;
  }
};

using Calls = std::vector<std::string>;
const std::string kCreateLease = "create leases";
const std::string kGetLease = "get leases";
const std::string kUpdateLease = "update leases";
const std::string kPing = "update leasecandidates";

// The Lease CLE writes for `holder` at T (create, or take over).
inline void check_elected(const api::LeaseSpec& spec, const std::string& holder) {
  CHECK(spec.holderIdentity == holder);
  CHECK(spec.strategy == kOev);
  CHECK(spec.leaseDurationSeconds == kDefaultLeaseDurationSeconds);
  CHECK(spec.renewTime == kT);
  CHECK_FALSE(spec.preferredHolder.has_value());
  CHECK_FALSE(spec.acquireTime.has_value());
}

// ---------------------------------------------------------------------------------------------
// A running controller in a World (§9.5, §9.6).

// n1's wall clock at true time 0: upstream's time.Now() when the test table is built.
constexpr Duration kWallOffset = 960_h;
constexpr LocalTime kT0 = LocalTime{} + kWallOffset;
const std::string kApiServer = "n1/kube-apiserver";

inline TrueTime at(Duration d) { return TrueTime{} + d; }

// One node: kube-apiserver over an ideal store, with CLE (RunWithLeaderElection: LD 15s,
// RD 10s, RP 2s) as its post-start hook; a 10 ms watch lag.
class ClusterRig {
 public:
  ClusterRig() {
    world = std::make_unique<World>(std::vector<NodeSetup>{{"n1", "", LocalClock(kWallOffset)}},
                                    WorldOptions{});
    World* w = world.get();
    store = std::make_shared<api::IdealStore>(
        api::IdealStoreHooks{{}, [w](const std::vector<ProcessId>& subscribers) {
                               w->post_each(subscribers, std::make_shared<api::StoreNotify>());
                             }});
    RunWithLeaderElectionConfig cle;
    cle.hostname = "n1";
    cle.loopback = kApiServer;
    api::ApiServerConfig config{store,
                                std::make_shared<api::ApiServerConditions>(),
                                seconds(60),
                                {},
                                [](Rng&) { return 10_ms; },
                                "1.31.0",
                                "1.31.0",
                                [cle] { return std::make_unique<RunWithLeaderElection>(cle); },
                                {}};
    world->add_process(0, "kube-apiserver",
                       [config] { return std::make_unique<api::ApiServer>(config); });
  }

  // An object that exists before anything starts (upstream pre-creates through the client
  // before starting the informers).
  void seed(api::Object object) {
    store->create(0, std::move(object), [](const api::StoreResult& result) {
      REQUIRE(result.status == Status::created);
    });
  }
  api::ObjectPtr get(const api::ObjectKey& key) const {
    const auto it = store->objects().find(key);
    return it == store->objects().end() ? nullptr : it->second;
  }
  std::optional<std::string> holder(const api::ObjectKey& key) const {
    const api::ObjectPtr lease = get(key);
    if (lease == nullptr) return std::nullopt;
    return lease->lease.holderIdentity.value_or("<nil>");
  }
  // Runs the World up to `d` after the start (World::now() is the last event's time).
  void run_until(Duration d) {
    const RunStats stats = world->run_until(at(d));
    REQUIRE(stats.status == RunStatus::completed);
    elapsed = d;
  }

  std::unique_ptr<World> world;
  std::shared_ptr<api::IdealStore> store;
  Duration elapsed{};  // how far the World has run
};

// ---- §9.5: the candidates' side, as upstream's TestController goroutines play it ----------

struct HelperLog {
  int acks = 0;
  int yields = 0;  // leases deleted for a preferredHolder
};

struct HelperConfig {
  std::string namespace_ = "kube-system";
  std::string lease = "component-A";
  std::vector<api::Object> create_after_start;        // created with renewTime = now
  std::vector<api::Object> create_as_is_after_start;  // created with the times they carry
  std::vector<api::ObjectKey> delete_after_start;
  bool ack_pings = true;
  Duration after_start = 1_s;
  Duration tick = 10_ms;
};

// Every 10 ms: acks each ping (a candidate whose pingTime is after its renewTime gets
// renewTime = now), and deletes the Lease when preferredHolder differs from a holder that is
// itself a candidate, standing in for a yielding holder ("only candidate-aware controllers
// will follow preferredHolder"). After `after_start`, the post-start creations and deletions.
class CandidatesHelper final : public Process {
 public:
  CandidatesHelper(HelperConfig config, std::shared_ptr<HelperLog> log)
      : config_(std::move(config)), log_(std::move(log)) {}

  void on_start(Env& env) override {
    client_.emplace(
        api::ApiClientConfig{{kApiServer}, false, {}, "test-helper", env.tag_space("client"), {}});
    tags_ = env.tag_space("helper");
    env.set_timer(config_.tick, tags_.tag(kTick));
    env.set_timer(config_.after_start, tags_.tag(kPostStart));
  }
  void on_message(Env& env, ProcessId, const Message& message) override {
    client_->on_message(env, message);
  }
  void on_timer(Env& env, TimerId, std::uint64_t tag) override {
    if (client_->on_timer(env, tag)) return;
    if (tag == tags_.tag(kPostStart)) return post_start(env);
    HASIM_ASSERT(tag == tags_.tag(kTick));
    env.set_timer(config_.tick, tags_.tag(kTick));
    tick(env);
  }

 private:
  static constexpr std::uint64_t kTick = 0;  // local values in tags_
  static constexpr std::uint64_t kPostStart = 1;
  static void ignore(Env&, const api::Response&) {}

  void post_start(Env& env) {
    for (const api::Object& object : config_.create_after_start) {
      auto created = std::make_shared<api::Object>(object);
      created->candidate.renewTime = api::micro_time(env.now());
      client_->request(env, client_->new_context(), Verb::create, created->key, created, ignore);
    }
    for (const api::Object& object : config_.create_as_is_after_start) {
      auto created = std::make_shared<api::Object>(object);
      client_->request(env, client_->new_context(), Verb::create, created->key, created, ignore);
    }
    for (const api::ObjectKey& key : config_.delete_after_start) {
      client_->request(env, client_->new_context(), Verb::delete_, key, nullptr, ignore);
    }
  }

  void tick(Env& env) {
    client_->request(env, client_->new_context(), Verb::list,
                     api::ObjectKey{Kind::lease_candidate, config_.namespace_, ""}, nullptr,
                     [this](Env& e, const api::Response& listed) {
                       if (listed.status != Status::ok) return;
                       std::set<std::string> names;
                       for (const api::ObjectPtr& c : listed.items) {
                         names.insert(c->key.name);
                         const api::LeaseCandidateSpec& spec = c->candidate;
                         if (config_.ack_pings && spec.pingTime &&
                             (!spec.renewTime || *spec.pingTime > *spec.renewTime)) {
                           auto ack = std::make_shared<api::Object>(*c);
                           ack->candidate.renewTime = api::micro_time(e.now());
                           ++log_->acks;
                           client_->request(e, client_->new_context(), Verb::update, ack->key, ack,
                                            ignore);
                         }
                       }
                       const api::ObjectKey lease{Kind::lease, config_.namespace_, config_.lease};
                       client_->request(e, client_->new_context(), Verb::get, lease, nullptr,
                                        [this, names, lease](Env& e2, const api::Response& got) {
                                          if (got.status != Status::ok) return;
                                          const api::LeaseSpec& spec = got.object->lease;
                                          if (!spec.preferredHolder || !spec.holderIdentity) return;
                                          if (*spec.preferredHolder == *spec.holderIdentity) return;
                                          if (!names.contains(*spec.holderIdentity)) return;
                                          ++log_->yields;
                                          client_->request(e2, client_->new_context(),
                                                           Verb::delete_, lease, nullptr, ignore);
                                        });
                     });
  }

  HelperConfig config_;
  std::shared_ptr<HelperLog> log_;
  std::optional<api::ApiClient> client_;  // from on_start
  TagSpace tags_;
};

inline api::Object ctrl_candidate(std::string name, std::string emulation, std::string binary) {
  return candidate_object("kube-system", "component-A", std::move(name), std::move(emulation),
                          std::move(binary), kT0);
}

const api::ObjectKey kControllerLease{Kind::lease, "kube-system", "component-A"};

inline api::Object ctrl_lease(api::LeaseSpec spec) {
  api::Object lease;
  lease.key = kControllerLease;
  lease.lease = std::move(spec);
  return lease;
}

inline std::shared_ptr<HelperLog> add_helper(ClusterRig& rig, HelperConfig config) {
  auto log = std::make_shared<HelperLog>();
  rig.world->add_process(0, "test-helper",
                         [config, log] { return std::make_unique<CandidatesHelper>(config, log); });
  return log;
}

// ---- §9.6: upstream e2e's fake controllers ------------------------------------------------

struct FakeControllerLog {
  int started = 0;
  int stopped = 0;
};

struct FakeControllerConfig {
  std::string name;  // the lock identity and the LeaseCandidate's name
  std::string namespace_;
  std::string lease;
  bool coordinated = true;
  std::string binary;     // coordinated only
  std::string emulation;  // coordinated only
  std::string strategy = kOev;
  Duration start_after{};
};

// createAndRunFakeController / createAndRunFakeLegacyController: RunOrDie with LD 5s, RD 3s,
// RP 2s on a Lease lock whose client times out after max(1s, 5s/2), plus (coordinated) a
// LeaseCandidate. Leading does nothing, and losing the lease only logs: the process lives on
// (its LeaseCandidate still acks pings). Upstream's cancelController is a crash here: with no
// ReleaseOnCancel both just stop, writing nothing.
class FakeController final : public Process {
 public:
  FakeController(FakeControllerConfig config, std::shared_ptr<FakeControllerLog> log)
      : config_(std::move(config)), log_(std::move(log)) {}

  void on_start(Env& env) override {
    if (config_.start_after.ns > 0) {
      start_tags_ = env.tag_space("start");
      env.set_timer(config_.start_after, start_tags_.tag());
      return;
    }
    begin(env);
  }
  void on_message(Env& env, ProcessId from, const Message& message) override {
    if (client_ == nullptr) return;
    if (dynamic_cast<const ConnectionClosed*>(message.get()) != nullptr) {
      return client_->on_connection_closed(env, from);
    }
    client_->on_message(env, message);
  }
  void on_timer(Env& env, TimerId, std::uint64_t tag) override {
    if (start_tags_.owns(tag)) return begin(env);
    if (client_->on_timer(env, tag) || elector_->on_timer(env, tag)) return;
    const bool handled = candidate_ != nullptr && candidate_->on_timer(env, tag);
    HASIM_ASSERT(handled);
  }

 private:
  void begin(Env& env) {
    client_ =
        std::make_unique<api::ApiClient>(api::ApiClientConfig{{kApiServer},
                                                              false,
                                                              cluster::default_client_timeout(5_s),
                                                              config_.name,
                                                              env.tag_space("client"),
                                                              {}});
    lock_ = std::make_unique<ObjectLock>(
        api::ObjectKey{Kind::lease, config_.namespace_, config_.lease}, config_.name, *client_);
    LeaderElectionConfig election;
    election.leaseDuration = 5_s;
    election.renewDeadline = 3_s;
    election.retryPeriod = 2_s;
    election.name = config_.lease;
    election.coordinated = config_.coordinated;
    LeaderCallbacks callbacks;
    callbacks.onStartedLeading = [log = log_](Env&) { ++log->started; };
    callbacks.onLeadingContextDone = [](Env&) {};
    callbacks.onStoppedLeading = [log = log_](Env&) { ++log->stopped; };
    elector_ = std::make_unique<LeaderElector>(election, *lock_, *client_, std::move(callbacks),
                                               env.tag_space("elector"));
    if (config_.coordinated) {
      CandidateConfig candidate;
      candidate.namespace_ = config_.namespace_;
      candidate.name = config_.name;
      candidate.leaseName = config_.lease;
      candidate.binaryVersion = config_.binary;
      candidate.emulationVersion = config_.emulation;
      candidate.strategy = config_.strategy;
      candidate.queue_tags = env.tag_space("candidate-queue");
      candidate.informer_tags = env.tag_space("candidate-informer");
      candidate_ = std::make_unique<LeaseCandidate>(std::move(candidate), *client_);
      candidate_->run(env);
    }
    elector_->run(env);
  }

  FakeControllerConfig config_;
  std::shared_ptr<FakeControllerLog> log_;
  TagSpace start_tags_;  // the delayed start's timer
  std::unique_ptr<api::ApiClient> client_;
  std::unique_ptr<ObjectLock> lock_;
  std::unique_ptr<LeaderElector> elector_;
  std::unique_ptr<LeaseCandidate> candidate_;
};

// The controller's traces (cle-ping, cle-elect, cle-preempt, cle-error) about one Lease: each
// marks a reconcile step that did something or failed.
class StepTraces final : public TraceObserver {
 public:
  explicit StepTraces(std::string lease) : lease_(std::move(lease)) {}
  void on_event(const TraceEvent& event) override {
    if (event.kind.starts_with("cle-") && event.string_field("lease") == lease_) {
      kinds.emplace_back(event.kind);
    }
  }
  std::vector<std::string> kinds;

 private:
  std::string lease_;
};

struct Added {
  ProcessId process = 0;
  std::shared_ptr<FakeControllerLog> log;
};

// createAndRunFakeController(name, ns, lease, binaryVersion, compatibilityVersion, strategy)
inline Added add_controller(ClusterRig& rig, const std::string& name, const std::string& ns,
                            const std::string& lease, const std::string& binary,
                            const std::string& emulation, const std::string& strategy = kOev,
                            Duration start_after = {}) {
  auto log = std::make_shared<FakeControllerLog>();
  FakeControllerConfig config{name, ns, lease, true, binary, emulation, strategy, start_after};
  const ProcessId process = rig.world->add_process(
      0, name, [config, log] { return std::make_unique<FakeController>(config, log); });
  return {process, log};
}

// createAndRunFakeLegacyController(name, ns, lease)
inline Added add_legacy_controller(ClusterRig& rig, const std::string& name, const std::string& ns,
                                   const std::string& lease, Duration start_after = {}) {
  auto log = std::make_shared<FakeControllerLog>();
  FakeControllerConfig config{name, ns, lease, false, "", "", kOev, start_after};
  const ProcessId process = rig.world->add_process(
      0, name, [config, log] { return std::make_unique<FakeController>(config, log); });
  return {process, log};
}

inline bool holder_matches(const api::ObjectPtr& lease, const std::optional<std::string>& holder) {
  if (lease == nullptr) return false;
  if (!holder.has_value()) return !lease->lease.holderIdentity.has_value();
  return lease->lease.holderIdentity == holder;
}

// pollForLease: every second, for up to 25 s, until the Lease exists with `holder` (nullopt:
// with no holderIdentity). Returns whether it did.
inline bool poll_for_lease(ClusterRig& rig, const api::ObjectKey& key,
                           const std::optional<std::string>& holder) {
  const Duration deadline = rig.elapsed + 25_s;
  while (true) {
    if (holder_matches(rig.get(key), holder)) return true;
    if (rig.elapsed >= deadline) return false;
    rig.run_until(rig.elapsed + 1_s);
  }
}

// Stronger than upstream's single poll: the holder is `holder` at every 100 ms until `until`.
inline bool holds_until(ClusterRig& rig, const api::ObjectKey& key, const std::string& holder,
                        Duration until) {
  while (rig.elapsed < until) {
    if (!holder_matches(rig.get(key), holder)) return false;
    rig.run_until(rig.elapsed + 100_ms);
  }
  return holder_matches(rig.get(key), holder);
}

}  // namespace hasim::election::cle_test
