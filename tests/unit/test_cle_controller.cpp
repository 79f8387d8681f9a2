// kube-apiserver's Coordinated Leader Election controller against upstream's vectors.
// Reference: shared/reference/coordinated-leader-election.md §4 (the controller), §6 (GC),
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

using namespace hasim;
using namespace hasim::election;
using namespace hasim::literals;
using hasim::api::Kind;
using hasim::api::Status;
using hasim::api::Verb;
using hasim::testing::FakeApi;
using hasim::testing::FakeEnv;

namespace {

const std::string kOev(kOldestEmulationVersion);
const std::string kId1 = "component-identity-1";
const std::string kId2 = "component-identity-2";
const std::string kId3 = "component-identity-3";
const std::string kExpiredHolder = "component-identity-expired";

api::Object candidate_object(const std::string& ns, const std::string& lease, std::string name,
                             std::string emulation, std::string binary,
                             std::optional<LocalTime> renew, std::optional<LocalTime> ping = {},
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

api::LeaseSpec lease_spec(std::optional<std::string> holder, std::optional<std::int32_t> lds,
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

api::Object candidate(std::string name, std::string emulation, std::string binary,
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
void check_elected(const api::LeaseSpec& spec, const std::string& holder) {
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
constexpr std::uint64_t kClientTag = 1ULL << 56;
constexpr std::uint64_t kTickTag = 2ULL << 56;
constexpr std::uint64_t kPostStartTag = 3ULL << 56;
constexpr std::uint64_t kElectorTag = 4ULL << 56;
constexpr std::uint64_t kCandidateTag = 5ULL << 56;
constexpr std::uint64_t kCandidateInformerTag = 6ULL << 56;
constexpr std::uint64_t kStartTag = 7ULL << 56;
const std::string kApiServer = "n1/kube-apiserver";

TrueTime at(Duration d) { return TrueTime{} + d; }

// One node: kube-apiserver over an ideal store, with CLE (RunWithLeaderElection: LD 15s,
// RD 10s, RP 2s) as its post-start hook; a 10 ms watch lag.
class ClusterRig {
 public:
  ClusterRig() {
    world = std::make_unique<World>(std::vector<NodeSetup>{{"n1", "", LocalClock(kWallOffset)}},
                                    WorldOptions{});
    World* w = world.get();
    store = std::make_shared<api::IdealStore>(api::IdealStoreHooks{
        {},
        [w](ProcessId subscriber) { w->post(subscriber, std::make_shared<api::StoreNotify>()); }});
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
                                [cle] { return std::make_unique<RunWithLeaderElection>(cle); }};
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
      : config_(std::move(config)),
        log_(std::move(log)),
        client_(api::ApiClientConfig{{kApiServer}, false, {}, "test-helper", kClientTag}) {}

  void on_start(Env& env) override {
    env.set_timer(config_.tick, kTickTag);
    env.set_timer(config_.after_start, kPostStartTag);
  }
  void on_message(Env& env, ProcessId, const Message& message) override {
    client_.on_message(env, message);
  }
  void on_timer(Env& env, TimerId, std::uint64_t tag) override {
    if (client_.on_timer(env, tag)) return;
    if (tag == kPostStartTag) return post_start(env);
    HASIM_ASSERT(tag == kTickTag);
    env.set_timer(config_.tick, kTickTag);
    tick(env);
  }

 private:
  static void ignore(Env&, const api::Response&) {}

  void post_start(Env& env) {
    for (const api::Object& object : config_.create_after_start) {
      auto created = std::make_shared<api::Object>(object);
      created->candidate.renewTime = api::micro_time(env.now());
      client_.request(env, client_.new_context(), Verb::create, created->key, created, ignore);
    }
    for (const api::Object& object : config_.create_as_is_after_start) {
      auto created = std::make_shared<api::Object>(object);
      client_.request(env, client_.new_context(), Verb::create, created->key, created, ignore);
    }
    for (const api::ObjectKey& key : config_.delete_after_start) {
      client_.request(env, client_.new_context(), Verb::delete_, key, nullptr, ignore);
    }
  }

  void tick(Env& env) {
    client_.request(env, client_.new_context(), Verb::list,
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
                          client_.request(e, client_.new_context(), Verb::update, ack->key, ack,
                                          ignore);
                        }
                      }
                      const api::ObjectKey lease{Kind::lease, config_.namespace_, config_.lease};
                      client_.request(e, client_.new_context(), Verb::get, lease, nullptr,
                                      [this, names, lease](Env& e2, const api::Response& got) {
                                        if (got.status != Status::ok) return;
                                        const api::LeaseSpec& spec = got.object->lease;
                                        if (!spec.preferredHolder || !spec.holderIdentity) return;
                                        if (*spec.preferredHolder == *spec.holderIdentity) return;
                                        if (!names.contains(*spec.holderIdentity)) return;
                                        ++log_->yields;
                                        client_.request(e2, client_.new_context(), Verb::delete_,
                                                        lease, nullptr, ignore);
                                      });
                    });
  }

  HelperConfig config_;
  std::shared_ptr<HelperLog> log_;
  api::ApiClient client_;
};

api::Object ctrl_candidate(std::string name, std::string emulation, std::string binary) {
  return candidate_object("kube-system", "component-A", std::move(name), std::move(emulation),
                          std::move(binary), kT0);
}

const api::ObjectKey kControllerLease{Kind::lease, "kube-system", "component-A"};

api::Object ctrl_lease(api::LeaseSpec spec) {
  api::Object lease;
  lease.key = kControllerLease;
  lease.lease = std::move(spec);
  return lease;
}

std::shared_ptr<HelperLog> add_helper(ClusterRig& rig, HelperConfig config) {
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
      env.set_timer(config_.start_after, kStartTag);
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
    if (tag == kStartTag) return begin(env);
    if (client_->on_timer(env, tag) || elector_->on_timer(env, tag)) return;
    const bool handled = candidate_ != nullptr && candidate_->on_timer(env, tag);
    HASIM_ASSERT(handled);
  }

 private:
  void begin(Env& env) {
    client_ = std::make_unique<api::ApiClient>(api::ApiClientConfig{
        {kApiServer}, false, cluster::default_client_timeout(5_s), config_.name, kClientTag});
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
                                               kElectorTag);
    if (config_.coordinated) {
      CandidateConfig candidate;
      candidate.namespace_ = config_.namespace_;
      candidate.name = config_.name;
      candidate.leaseName = config_.lease;
      candidate.binaryVersion = config_.binary;
      candidate.emulationVersion = config_.emulation;
      candidate.strategy = config_.strategy;
      candidate.timer_tag = kCandidateTag;
      candidate.informer_tag = kCandidateInformerTag;
      candidate_ = std::make_unique<LeaseCandidate>(std::move(candidate), *client_);
      candidate_->run(env);
    }
    elector_->run(env);
  }

  FakeControllerConfig config_;
  std::shared_ptr<FakeControllerLog> log_;
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
Added add_controller(ClusterRig& rig, const std::string& name, const std::string& ns,
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
Added add_legacy_controller(ClusterRig& rig, const std::string& name, const std::string& ns,
                            const std::string& lease, Duration start_after = {}) {
  auto log = std::make_shared<FakeControllerLog>();
  FakeControllerConfig config{name, ns, lease, false, "", "", kOev, start_after};
  const ProcessId process = rig.world->add_process(
      0, name, [config, log] { return std::make_unique<FakeController>(config, log); });
  return {process, log};
}

bool holder_matches(const api::ObjectPtr& lease, const std::optional<std::string>& holder) {
  if (lease == nullptr) return false;
  if (!holder.has_value()) return !lease->lease.holderIdentity.has_value();
  return lease->lease.holderIdentity == holder;
}

// pollForLease: every second, for up to 25 s, until the Lease exists with `holder` (nullopt:
// with no holderIdentity). Returns whether it did.
bool poll_for_lease(ClusterRig& rig, const api::ObjectKey& key,
                    const std::optional<std::string>& holder) {
  const Duration deadline = rig.elapsed + 25_s;
  while (true) {
    if (holder_matches(rig.get(key), holder)) return true;
    if (rig.elapsed >= deadline) return false;
    rig.run_until(rig.elapsed + 1_s);
  }
}

// Stronger than upstream's single poll: the holder is `holder` at every 100 ms until `until`.
bool holds_until(ClusterRig& rig, const api::ObjectKey& key, const std::string& holder,
                 Duration until) {
  while (rig.elapsed < until) {
    if (!holder_matches(rig.get(key), holder)) return false;
    rig.run_until(rig.elapsed + 100_ms);
  }
  return holder_matches(rig.get(key), holder);
}

}  // namespace

// =============================================================================================
// §9.4 TestReconcileElectionStep: the 10 rows.

TEST_CASE("TestReconcileElectionStep: upstream's 10 rows", "[cle][controller]") {
  StepRig rig;

  SECTION("1: no candidates, no lease: noop") {
    const Outcome outcome = rig.step();
    CHECK(outcome.requeue.ns == 0);
    CHECK_FALSE(outcome.error.has_value());
    CHECK(rig.lease() == nullptr);
    CHECK(rig.api.calls().empty());
  }

  SECTION("2: no candidates, lease exists: noop, not managed by CLE") {
    // Upstream's `&v1.Lease{}` has no name, so it is not the Lease the step looks at; here an
    // empty Lease sits at default/component-A itself, and must stay untouched.
    rig.add_lease(api::LeaseSpec{});
    const std::uint64_t version = rig.lease_version();
    const Outcome outcome = rig.step();
    CHECK(outcome.requeue.ns == 0);
    CHECK_FALSE(outcome.error.has_value());
    CHECK(rig.lease_spec_of() == api::LeaseSpec{});
    CHECK(rig.lease_version() == version);
    CHECK(rig.api.calls().empty());
  }

  SECTION("3: candidates exist, no existing lease: creates the lease") {
    rig.add(candidate(kId1, "1.19.0", "1.19.0", kT));
    const Outcome outcome = rig.step();
    CHECK(outcome.requeue == kDefaultRequeueInterval);
    CHECK_FALSE(outcome.error.has_value());
    check_elected(rig.lease_spec_of(), kId1);
    CHECK(rig.api.calls() == Calls{kCreateLease});  // elected at once: a fresh renewTime acks
    CHECK_FALSE(rig.candidate_spec(kId1).pingTime.has_value());
  }

  SECTION("4: lease exists, holder not optimal: sets preferredHolder") {
    rig.add(candidate(kId1, "1.19.0", "1.19.0", kT));
    rig.add(candidate(kId2, "1.18.0", "1.18.0", kT));
    rig.add_lease(lease_spec(kId1, 10, kT));
    const Outcome outcome = rig.step();
    CHECK(outcome.requeue == kDefaultRequeueInterval);
    CHECK_FALSE(outcome.error.has_value());
    const api::LeaseSpec& spec = rig.lease_spec_of();
    CHECK(spec.holderIdentity == kId1);  // the holder stays until it yields
    CHECK(spec.preferredHolder == kId2);
    CHECK(spec.strategy == kOev);
    CHECK(spec.leaseDurationSeconds == 10);
    CHECK(spec.renewTime == kT);
    CHECK(rig.api.calls() == Calls{kCreateLease, kGetLease, kUpdateLease});
  }

  SECTION("5: only an acked candidate can win, even a newer one") {
    rig.add(candidate(kId1, "1.19.0", "1.19.0", kT - 20_s, kT - 10_s));  // pinged, never acked
    rig.add(candidate(kId2, "1.20.0", "1.20.0", kT, kT));                // pinged and acked at T
    const Outcome outcome = rig.step();
    CHECK(outcome.requeue == kDefaultRequeueInterval);
    CHECK_FALSE(outcome.error.has_value());
    check_elected(rig.lease_spec_of(), kId2);
    CHECK(rig.api.calls() == Calls{kCreateLease});  // no ping: id-1's old ping is not renewed
    CHECK(rig.candidate_spec(kId1).pingTime == kT - 10_s);
  }

  SECTION("6: lease exists but expired: taken over") {
    rig.add(candidate(kId1, "1.19.0", "1.19.0", kT));
    rig.add_lease(lease_spec(kExpiredHolder, 10, kT - 1_min));
    const Outcome outcome = rig.step();
    CHECK(outcome.requeue == kDefaultRequeueInterval);
    CHECK_FALSE(outcome.error.has_value());
    check_elected(rig.lease_spec_of(), kId1);
    CHECK(rig.api.calls() == Calls{kCreateLease, kGetLease, kUpdateLease});
  }

  SECTION("7: no acked candidates: error, no requeue") {
    rig.add(candidate(kId1, "1.19.0", "1.19.0", kT - 2_min, kT - 1_min));
    const Outcome outcome = rig.step();
    CHECK(outcome.requeue.ns == 0);
    REQUIRE(outcome.error.has_value());
    CHECK(*outcome.error == "no available candidates");
    CHECK(rig.lease() == nullptr);
    CHECK(rig.api.calls().empty());
  }

  SECTION("8: should ping on election") {
    rig.add(candidate(kId1, "1.19.0", "1.19.0", kT - 10_s));
    const Outcome outcome = rig.step();
    CHECK(outcome.requeue == kDefaultRequeueInterval);
    CHECK_FALSE(outcome.error.has_value());
    CHECK(rig.lease() == nullptr);
    CHECK(rig.candidate_spec(kId1).pingTime == kT);
    CHECK(rig.candidate_spec(kId1).renewTime == kT - 10_s);
    CHECK(rig.api.calls() == Calls{kPing});
  }

  SECTION("9: a pinged candidate has electionDuration to answer") {
    rig.add(candidate(kId1, "1.19.0", "1.19.0", kT - 1_min, kT));
    const Outcome outcome = rig.step();
    CHECK(outcome.requeue == kDefaultRequeueInterval);
    CHECK_FALSE(outcome.error.has_value());
    CHECK(rig.lease() == nullptr);
    CHECK(rig.candidate_spec(kId1).pingTime == kT);
    CHECK(rig.api.calls().empty());
  }

  SECTION("10: lease expired, third-party strategy: only the strategy is written") {
    rig.add(candidate(kId1, "1.19.0", "1.19.0", kT, std::nullopt, "foo.com/bar"));
    rig.add_lease(lease_spec(kExpiredHolder, 10, kT - 1_min));
    const Outcome outcome = rig.step();
    CHECK(outcome.requeue == kDefaultRequeueInterval);
    CHECK_FALSE(outcome.error.has_value());
    const api::LeaseSpec& spec = rig.lease_spec_of();
    CHECK(spec.holderIdentity == kExpiredHolder);
    CHECK(spec.strategy == "foo.com/bar");
    CHECK_FALSE(spec.preferredHolder.has_value());
    CHECK(spec.leaseDurationSeconds == 10);
    CHECK(spec.renewTime == kT - 1_min);
    CHECK(rig.api.calls() == Calls{kCreateLease, kGetLease, kUpdateLease});
  }
}

TEST_CASE("reconcile step: a third-party strategy creates the Lease with no holder",
          "[cle][controller]") {
  StepRig rig;
  rig.add(candidate(kId1, "1.19.0", "1.19.0", kT, std::nullopt, "foo.com/bar"));
  const Outcome outcome = rig.step();
  CHECK(outcome.requeue == kDefaultRequeueInterval);
  CHECK_FALSE(outcome.error.has_value());
  const api::LeaseSpec& spec = rig.lease_spec_of();
  CHECK_FALSE(spec.holderIdentity.has_value());
  CHECK(spec.strategy == "foo.com/bar");
  CHECK(spec.leaseDurationSeconds == kDefaultLeaseDurationSeconds);
  CHECK(spec.renewTime == kT);
}

// =============================================================================================
// §9.8 D8-D11: the ping phase (E = 5 s), with its strict boundaries.

TEST_CASE("reconcile step D8-D11: who is pinged, who counts as acked", "[cle][controller]") {
  StepRig rig;

  SECTION("D8: never pinged, renewed 6 s ago: pinged, no election yet") {
    rig.add(candidate(kId1, "1.19.0", "1.19.0", kT - 6_s));
    const Outcome outcome = rig.step();
    CHECK(outcome.requeue == kDefaultRequeueInterval);
    CHECK_FALSE(outcome.error.has_value());
    CHECK(rig.candidate_spec(kId1).pingTime == kT);
    CHECK(rig.lease() == nullptr);
    CHECK(rig.api.calls() == Calls{kPing});
  }

  SECTION("D8 boundary: renewed exactly 5 s ago is not fresh (strict): pinged") {
    rig.add(candidate(kId1, "1.19.0", "1.19.0", kT - 5_s));
    CHECK(rig.step().requeue == kDefaultRequeueInterval);
    CHECK(rig.candidate_spec(kId1).pingTime == kT);
    CHECK(rig.lease() == nullptr);
  }

  SECTION("D9: answered ping (pingTime == renewTime, 6 s ago): pinged again (since 1.32)") {
    rig.add(candidate(kId1, "1.19.0", "1.19.0", kT - 6_s, kT - 6_s));
    const Outcome outcome = rig.step();
    CHECK(outcome.requeue == kDefaultRequeueInterval);
    CHECK_FALSE(outcome.error.has_value());
    CHECK(rig.candidate_spec(kId1).pingTime == kT);
    CHECK(rig.lease() == nullptr);
    CHECK(rig.api.calls() == Calls{kPing});
  }

  SECTION("D9': renewed after the last ping, both stale: pinged again") {
    rig.add(candidate(kId1, "1.19.0", "1.19.0", kT - 5500_ms, kT - 6_s));
    CHECK(rig.step().requeue == kDefaultRequeueInterval);
    CHECK(rig.candidate_spec(kId1).pingTime == kT);
  }

  SECTION("D9 boundary: a ping exactly 5 s old is not re-sent (strict), nor awaited") {
    rig.add(candidate(kId1, "1.19.0", "1.19.0", kT - 5_s, kT - 5_s));
    const Outcome outcome = rig.step();
    CHECK(outcome.requeue.ns == 0);
    CHECK(outcome.error == "no available candidates");
    CHECK(rig.candidate_spec(kId1).pingTime == kT - 5_s);
    CHECK(rig.api.calls().empty());
  }

  SECTION("D10: an old ping never answered: not pinged, not acked") {
    rig.add(candidate(kId1, "1.19.0", "1.19.0", kT - 7_s, kT - 6_s));
    const Outcome outcome = rig.step();
    CHECK(outcome.requeue.ns == 0);
    CHECK(outcome.error == "no available candidates");
    CHECK(rig.candidate_spec(kId1).pingTime == kT - 6_s);
    CHECK(rig.lease() == nullptr);
    CHECK(rig.api.calls().empty());
  }

  SECTION("D10 beside a fresh candidate: the better but silent one is excluded") {
    rig.add(candidate(kId1, "1.18.0", "1.18.0", kT - 7_s, kT - 6_s));
    rig.add(candidate(kId2, "1.20.0", "1.20.0", kT - 1_s));
    const Outcome outcome = rig.step();
    CHECK(outcome.requeue == kDefaultRequeueInterval);
    CHECK_FALSE(outcome.error.has_value());
    check_elected(rig.lease_spec_of(), kId2);
    CHECK(rig.candidate_spec(kId1).pingTime == kT - 6_s);
    CHECK(rig.api.calls() == Calls{kCreateLease});
  }

  SECTION("D11: renewed 4 s ago: acked without a ping, elected at once") {
    rig.add(candidate(kId1, "1.19.0", "1.19.0", kT - 4_s));
    const Outcome outcome = rig.step();
    CHECK(outcome.requeue == kDefaultRequeueInterval);
    CHECK_FALSE(outcome.error.has_value());
    check_elected(rig.lease_spec_of(), kId1);
    CHECK_FALSE(rig.candidate_spec(kId1).pingTime.has_value());
    CHECK(rig.api.calls() == Calls{kCreateLease});
  }

  SECTION("D11 boundary: renewed 1 us short of 5 s ago still counts as an ack") {
    rig.add(candidate(kId1, "1.19.0", "1.19.0", kT - 5_s + 1_us));
    CHECK(rig.step().requeue == kDefaultRequeueInterval);
    check_elected(rig.lease_spec_of(), kId1);
    CHECK(rig.api.calls() == Calls{kCreateLease});
  }

  SECTION("an outstanding ping 1 us short of 5 s old blocks the vote: requeue, no writes") {
    rig.add(candidate(kId1, "1.19.0", "1.19.0", kT - 1_min, kT - 5_s + 1_us));
    rig.add(candidate(kId2, "1.20.0", "1.20.0", kT));  // acked, but the vote waits for id-1
    const Outcome outcome = rig.step();
    CHECK(outcome.requeue == kDefaultRequeueInterval);
    CHECK_FALSE(outcome.error.has_value());
    CHECK(rig.lease() == nullptr);
    CHECK(rig.api.calls().empty());
  }

  SECTION("pings go to the stale candidates only, all in one round") {
    rig.add(candidate(kId1, "1.19.0", "1.19.0", kT - 6_s));
    rig.add(candidate(kId2, "1.20.0", "1.20.0", kT - 1_s));
    rig.add(candidate(kId3, "1.21.0", "1.21.0", kT - 20_s, kT - 30_s));
    CHECK(rig.step().requeue == kDefaultRequeueInterval);
    CHECK(rig.candidate_spec(kId1).pingTime == kT);
    CHECK_FALSE(rig.candidate_spec(kId2).pingTime.has_value());
    CHECK(rig.candidate_spec(kId3).pingTime == kT);
    CHECK(rig.lease() == nullptr);
    CHECK(rig.api.calls() == Calls{kPing, kPing});
  }

  SECTION("a candidate expired for 30 min is not a candidate at all") {
    rig.add(candidate(kId1, "1.19.0", "1.19.0", kT - 30_min - 1_us));
    const Outcome outcome = rig.step();
    CHECK(outcome.requeue.ns == 0);
    CHECK_FALSE(outcome.error.has_value());
    CHECK(rig.api.calls().empty());
  }
}

// =============================================================================================
// §9.8 D12-D15: updating an existing Lease.

TEST_CASE("reconcile step D12-D15: end of term, takeover, no renewal, release",
          "[cle][controller]") {
  StepRig rig;
  // X = id-1 (newer), Y = id-2 (older: the best), both acked.
  const auto add_both = [&rig] {
    rig.add(candidate(kId1, "1.20.0", "1.20.0", kT));
    rig.add(candidate(kId2, "1.19.0", "1.19.0", kT));
  };

  SECTION("D12: holder X not expired, best Y: only preferredHolder (and strategy)") {
    add_both();
    api::LeaseSpec existing = lease_spec(kId1, 10, kT - 1_s);
    existing.acquireTime = kT - 1_h;
    existing.leaseTransitions = 2;
    rig.add_lease(existing);
    CHECK(rig.step().requeue == kDefaultRequeueInterval);
    api::LeaseSpec expected = existing;
    expected.preferredHolder = kId2;
    expected.strategy = kOev;
    CHECK(rig.lease_spec_of() == expected);
  }

  SECTION("D12 boundary: renewTime + LDS == now is not expired (strict): end of term only") {
    add_both();
    rig.add_lease(lease_spec(kId1, 10, kT - 10_s, kOev));
    CHECK(rig.step().requeue == kDefaultRequeueInterval);
    const api::LeaseSpec& spec = rig.lease_spec_of();
    CHECK(spec.holderIdentity == kId1);
    CHECK(spec.preferredHolder == kId2);
    CHECK(spec.renewTime == kT - 10_s);
  }

  SECTION("D13: holder X expired, best Y: take over, clearing preferredHolder/acquireTime") {
    add_both();
    api::LeaseSpec existing = lease_spec(kId1, 10, kT - 10_s - 1_us, kOev);
    existing.acquireTime = kT - 1_h;
    existing.leaseTransitions = 2;
    existing.preferredHolder = kId2;
    rig.add_lease(existing);
    CHECK(rig.step().requeue == kDefaultRequeueInterval);
    const api::LeaseSpec& spec = rig.lease_spec_of();
    check_elected(spec, kId2);
    CHECK(spec.leaseTransitions == 2);  // not touched
  }

  SECTION("D14: holder X expired, best X: no write (CLE never renews for the holder)") {
    rig.add(candidate(kId1, "1.19.0", "1.19.0", kT));
    rig.add(candidate(kId2, "1.20.0", "1.20.0", kT));
    rig.add_lease(lease_spec(kId1, 10, kT - 1_min, kOev));
    const std::uint64_t version = rig.lease_version();
    const Outcome outcome = rig.step();
    CHECK(outcome.requeue == kDefaultRequeueInterval);
    CHECK_FALSE(outcome.error.has_value());
    CHECK(rig.lease_version() == version);
    CHECK(rig.lease_spec_of() == lease_spec(kId1, 10, kT - 1_min, kOev));
    CHECK(rig.api.calls() == Calls{kCreateLease, kGetLease});
  }

  SECTION("D14': holder X expired, best X, no strategy yet: only the strategy is written") {
    rig.add(candidate(kId1, "1.19.0", "1.19.0", kT));
    rig.add_lease(lease_spec(kId1, 10, kT - 1_min));
    CHECK(rig.step().requeue == kDefaultRequeueInterval);
    CHECK(rig.lease_spec_of() == lease_spec(kId1, 10, kT - 1_min, kOev));
  }

  SECTION("D15: holder \"\" after a release (LDS 1, no strategy): filled with the best") {
    add_both();
    rig.add_lease(lease_spec("", 1, kT - 100_ms));
    CHECK(rig.step().requeue == kDefaultRequeueInterval);
    check_elected(rig.lease_spec_of(), kId2);
  }

  SECTION("D15': holder never set: filled with the best") {
    add_both();
    rig.add_lease(lease_spec(std::nullopt, 10, kT));
    CHECK(rig.step().requeue == kDefaultRequeueInterval);
    check_elected(rig.lease_spec_of(), kId2);
  }

  SECTION("the best is already the live holder: not needed, requeue, nothing written") {
    add_both();
    rig.add_lease(lease_spec(kId2, 10, kT, kOev));
    const Outcome outcome = rig.step();
    CHECK(outcome.requeue == kDefaultRequeueInterval);
    CHECK_FALSE(outcome.error.has_value());
    CHECK(rig.api.calls().empty());
  }
}

TEST_CASE("reconcile step: after AlreadyExists the live Lease decides, not the cache",
          "[cle][controller]") {
  StepRig rig;
  rig.add(candidate(kId1, "1.20.0", "1.20.0", kT));
  rig.add(candidate(kId2, "1.19.0", "1.19.0", kT));
  // The API: id-1 renewed at T. The lister still has the copy from a minute ago (expired).
  rig.add_lease(lease_spec(kId1, 10, kT - 1_min, kOev));
  api::Object live = *rig.lease();
  live.lease.renewTime = kT;
  rig.api.put(live);

  SECTION("stale cache") {}
  SECTION("no cache at all") { rig.leases.clear(); }

  CHECK(rig.step().requeue == kDefaultRequeueInterval);
  const api::LeaseSpec& spec = rig.lease_spec_of();
  CHECK(spec.holderIdentity == kId1);  // live, so not taken over
  CHECK(spec.preferredHolder == kId2);
  CHECK(spec.renewTime == kT);
  CHECK(rig.api.calls() == Calls{kCreateLease, kGetLease, kUpdateLease});
}

// =============================================================================================
// §9.7 TestLeaseCandidateGCController.

TEST_CASE("TestLeaseCandidateGCController: expired candidates are deleted", "[cle][controller]") {
  // The candidates are written at T; the pass runs later, when `now` has moved on.
  FakeEnv env(1, kT, LocalTime{} + 1_h);
  FakeApi api;
  std::map<api::ObjectKey, api::ObjectPtr> cache;
  const auto add = [&](api::Object object) {
    const api::ObjectKey key = object.key;
    api.put(std::move(object));
    cache[key] = std::make_shared<const api::Object>(*api.find(key));
  };
  const auto gc = [&] {
    std::optional<int> deleted;
    collect_lease_candidates(env, api, cache, [&deleted](Env&, int n) {
      REQUIRE_FALSE(deleted.has_value());
      deleted = n;
    });
    REQUIRE(deleted.has_value());
    return *deleted;
  };
  const auto remaining = [&] {
    std::vector<std::string> names;
    api.request(env, api.new_context(), Verb::list, {Kind::lease_candidate, "default", ""}, nullptr,
                [&names](Env&, const api::Response& listed) {
                  REQUIRE(listed.status == Status::ok);
                  for (const api::ObjectPtr& c : listed.items) names.push_back(c->key.name);
                });
    return names;
  };
  const auto gc_candidate = [](std::string name, std::string lease, LocalTime renew) {
    return candidate_object("default", std::move(lease), std::move(name), "1.19.0", "1.19.0",
                            renew);
  };

  SECTION("case 1: two renewed 30 min ago, one now: 2 deleted") {
    add(gc_candidate("candidate1", "component-A", kT - kLeaseCandidateValidDuration));
    add(gc_candidate("candidate2", "component-B", kT - kLeaseCandidateValidDuration));
    add(gc_candidate("candidate3", "component-C", kT));
    SECTION("exactly at the boundary nothing has expired yet (strict)") {
      CHECK(gc() == 0);
      CHECK(api.calls().empty());
    }
    SECTION("1 ms later") {
      env.advance(1_ms);
      CHECK(gc() == 2);
      CHECK(api.calls() == Calls{"get leasecandidates", "delete leasecandidates",
                                 "get leasecandidates", "delete leasecandidates"});
      CHECK(remaining() == std::vector<std::string>{"candidate3"});
    }
  }

  SECTION("case 2: one fresh candidate: 0 deleted") {
    add(gc_candidate("candidate1", "component-A", kT));
    env.advance(1_ms);
    CHECK(gc() == 0);
    CHECK(api.calls().empty());
    CHECK(remaining() == std::vector<std::string>{"candidate1"});
  }

  SECTION("a candidate renewed since the cache saw it is re-read and kept") {
    add(gc_candidate("candidate1", "component-A", kT - 1_h));
    api::Object live = *api.find({Kind::lease_candidate, "default", "candidate1"});
    live.candidate.renewTime = kT;
    api.put(live);
    env.advance(1_ms);
    CHECK(gc() == 0);
    CHECK(api.calls() == Calls{"get leasecandidates"});
    CHECK(remaining() == std::vector<std::string>{"candidate1"});
  }
}

// =============================================================================================
// §9.5 TestController: a running controller (5 rows).

TEST_CASE("TestController: a running controller elects, re-elects and preempts",
          "[cle][controller]") {
  ClusterRig rig;
  HelperConfig helper;

  SECTION("1: single candidate") {
    rig.seed(ctrl_candidate(kId1, "1.19.0", "1.19.0"));
    const auto log = add_helper(rig, helper);
    rig.run_until(2_s);
    CHECK(rig.holder(kControllerLease) == kId1);
    rig.run_until(30_s);
    CHECK(rig.holder(kControllerLease) == kId1);
    CHECK(log->yields == 0);
  }

  SECTION("2: multiple candidates: the oldest emulation version, then binary version") {
    rig.seed(ctrl_candidate(kId1, "1.19.0", "1.19.0"));
    rig.seed(ctrl_candidate(kId2, "1.19.0", "1.20.0"));
    rig.seed(ctrl_candidate(kId3, "1.20.0", "1.20.0"));
    const auto log = add_helper(rig, helper);
    rig.run_until(2_s);
    CHECK(rig.holder(kControllerLease) == kId1);
    rig.run_until(30_s);
    CHECK(rig.holder(kControllerLease) == kId1);
    CHECK(log->yields == 0);
  }

  SECTION("3: deletion of the lease triggers a re-election") {
    rig.seed(ctrl_lease(lease_spec("some-other-component", 10, kT0 + 1_s)));
    rig.seed(ctrl_candidate(kId1, "1.19.0", "1.19.0"));
    helper.delete_after_start = {kControllerLease};
    const auto log = add_helper(rig, helper);
    rig.run_until(900_ms);
    // Not a candidate, not expired: left in place, only told its term is over.
    const api::ObjectPtr before = rig.get(kControllerLease);
    REQUIRE(before != nullptr);
    CHECK(before->lease.holderIdentity == "some-other-component");
    CHECK(before->lease.preferredHolder == kId1);
    // Deleted at 1 s; re-elected well before the old lease would have expired (T0 + 11 s).
    rig.run_until(5_s);
    CHECK(rig.holder(kControllerLease) == kId1);
    rig.run_until(30_s);
    CHECK(rig.holder(kControllerLease) == kId1);
    CHECK(log->yields == 0);  // the helper never deletes for a non-candidate holder
  }

  SECTION("4: an expired lease is replaced") {
    rig.seed(ctrl_lease(lease_spec("some-other-component", 10, kT0 - 11_s, kOev)));
    rig.seed(ctrl_candidate(kId1, "1.19.0", "1.19.0"));
    add_helper(rig, helper);
    rig.run_until(1_s);
    CHECK(rig.holder(kControllerLease) == kId1);
    rig.run_until(30_s);
    CHECK(rig.holder(kControllerLease) == kId1);
  }

  SECTION("5: a better candidate created after start triggers a re-election") {
    rig.seed(ctrl_lease(lease_spec(kId1, 10, kT0 + 1_s, kOev)));
    rig.seed(ctrl_candidate(kId1, "1.20.0", "1.20.0"));
    helper.create_after_start = {ctrl_candidate(kId2, "1.19.0", "1.19.0")};
    const auto log = add_helper(rig, helper);
    rig.run_until(900_ms);
    // The only candidate holds the lease already: nothing to write.
    const api::ObjectPtr before = rig.get(kControllerLease);
    REQUIRE(before != nullptr);
    CHECK(before->lease == lease_spec(kId1, 10, kT0 + 1_s, kOev));
    // id-2 appears at 1 s: end of term for id-1, which yields (the helper deletes the Lease),
    // and id-2 is elected well before id-1's lease would have expired (T0 + 11 s).
    rig.run_until(5_s);
    CHECK(rig.holder(kControllerLease) == kId2);
    CHECK(log->yields >= 1);
    rig.run_until(30_s);
    CHECK(rig.holder(kControllerLease) == kId2);
  }
}

TEST_CASE("a running controller ignores the event of a pending candidate (§4.1)",
          "[cle][controller]") {
  // Created at 1 s, after the caches synced, with an old ping it never answered (renewTime
  // before pingTime): "pending", like the echo of the controller's own ping. Its event is
  // dropped, so no step runs for component-B. The same candidate with renewTime == pingTime
  // is not pending: its event runs a step (re-ping, then "no available candidates", since
  // nobody acks here).
  StepTraces pending("kube-system/component-B");  // outlive the World that reports to them
  StepTraces answered("kube-system/component-C");
  ClusterRig rig;
  const LocalTime at_1s = kT0 + 1_s;
  HelperConfig helper;
  helper.ack_pings = false;
  helper.create_as_is_after_start = {candidate_object("kube-system", "component-B", kId1, "1.19.0",
                                                      "1.19.0", at_1s - 20_s, at_1s - 10_s),
                                     candidate_object("kube-system", "component-C", kId2, "1.19.0",
                                                      "1.19.0", at_1s - 10_s, at_1s - 10_s)};
  add_helper(rig, helper);
  rig.world->trace().add_observer(&pending);
  rig.world->trace().add_observer(&answered);
  rig.run_until(10_s);
  CHECK(pending.kinds.empty());
  CHECK(answered.kinds == std::vector<std::string>{"cle-ping", "cle-error"});
  CHECK(rig.get({Kind::lease, "kube-system", "component-B"}) == nullptr);
}

// =============================================================================================
// §9.6 e2e: real LeaderElectors and LeaseCandidates (LD 5s, RD 3s, RP 2s).

TEST_CASE("e2e: single LeaseCandidate", "[cle][controller]") {
  ClusterRig rig;
  const Added foo1 = add_controller(rig, "foo1", "cle-e2e", "foo", "1.20.0", "1.20.0");
  const api::ObjectKey lease{Kind::lease, "cle-e2e", "foo"};
  CHECK(poll_for_lease(rig, lease, "foo1"));
  CHECK(holds_until(rig, lease, "foo1", rig.elapsed + 20_s));
  // The coordinated elector leads and renews it (every RP), with its own LD.
  CHECK(foo1.log->started == 1);
  CHECK(foo1.log->stopped == 0);
  CHECK(rig.get(lease)->lease.leaseDurationSeconds == 5);
  CHECK(rig.get(lease)->lease.renewTime > kT0 + rig.elapsed - 5_s);
}

TEST_CASE("e2e: multiple LeaseCandidates: baz3", "[cle][controller]") {
  ClusterRig rig;
  // (name, binary, emulation)
  add_controller(rig, "baz1", "cle-e2e", "baz", "1.20.0", "1.20.0");
  add_controller(rig, "baz2", "cle-e2e", "baz", "1.20.0", "1.19.0");
  const Added baz3 = add_controller(rig, "baz3", "cle-e2e", "baz", "1.19.0", "1.19.0");
  add_controller(rig, "baz4", "cle-e2e", "baz", "1.20.0", "1.19.0");
  const api::ObjectKey lease{Kind::lease, "cle-e2e", "baz"};
  CHECK(poll_for_lease(rig, lease, "baz3"));
  CHECK(holds_until(rig, lease, "baz3", rig.elapsed + 20_s));
  CHECK(baz3.log->started == 1);
  CHECK(rig.get(lease)->lease.renewTime > kT0 + rig.elapsed - 5_s);
}

TEST_CASE("e2e: multiple LeaseCandidates with a third-party strategy: no holder",
          "[cle][controller]") {
  ClusterRig rig;
  add_controller(rig, "baz1", "cle-e2e", "baz", "1.20.0", "1.20.0", "foo.com/bar");
  add_controller(rig, "baz2", "cle-e2e", "baz", "1.20.0", "1.19.0", "foo.com/bar");
  const api::ObjectKey lease{Kind::lease, "cle-e2e", "baz"};
  CHECK(poll_for_lease(rig, lease, std::nullopt));
  REQUIRE(rig.get(lease) != nullptr);
  CHECK(rig.get(lease)->lease.strategy == "foo.com/bar");
  // Nobody fills it in: coordinated electors never take a lease they do not hold.
  rig.run_until(rig.elapsed + 20_s);
  CHECK(holder_matches(rig.get(lease), std::nullopt));
}

TEST_CASE("e2e: CLE preemption: bar1, then bar2", "[cle][controller]") {
  ClusterRig rig;
  const Added bar1 = add_controller(rig, "bar1", "cle-e2e", "bar", "1.20.0", "1.20.0");
  add_controller(rig, "bar2", "cle-e2e", "bar", "1.19.0", "1.19.0", kOev, 10_s);
  const api::ObjectKey lease{Kind::lease, "cle-e2e", "bar"};
  CHECK(poll_for_lease(rig, lease, "bar1"));
  CHECK(holds_until(rig, lease, "bar1", 10_s));
  CHECK(poll_for_lease(rig, lease, "bar2"));
  // bar1 yielded: it stopped leading (refused to renew once preferredHolder was set).
  CHECK(bar1.log->started == 1);
  CHECK(bar1.log->stopped == 1);
  CHECK(holds_until(rig, lease, "bar2", rig.elapsed + 15_s));
  CHECK_FALSE(rig.get(lease)->lease.preferredHolder.has_value());
}

TEST_CASE("e2e: CLE upgrade to enabled: a legacy holder keeps the lease until it stops",
          "[cle][controller]") {
  ClusterRig rig;
  const Added legacy = add_legacy_controller(rig, "foo1-130", "default", "foobar");
  add_controller(rig, "foo1-131", "default", "foobar", "1.31.0", "1.31.0", kOev, 5_s);
  const api::ObjectKey lease{Kind::lease, "default", "foobar"};
  World* w = rig.world.get();
  rig.world->at(at(20_s), [w, legacy] { w->crash(legacy.process, "cancel"); });
  CHECK(poll_for_lease(rig, lease, "foo1-130"));
  // Running a coordinated candidate does not kick off the unexpired legacy holder.
  CHECK(holds_until(rig, lease, "foo1-130", 20_s));
  CHECK(poll_for_lease(rig, lease, "foo1-131"));
  CHECK(holds_until(rig, lease, "foo1-131", rig.elapsed + 15_s));
}

TEST_CASE("e2e: CLE downgrade to disabled: a CLE holder keeps the lease until it stops",
          "[cle][controller]") {
  ClusterRig rig;
  const Added cle = add_controller(rig, "foo1-131", "default", "foobar", "1.31.0", "1.31.0");
  add_legacy_controller(rig, "foo1-130", "default", "foobar", 5_s);
  const api::ObjectKey lease{Kind::lease, "default", "foobar"};
  World* w = rig.world.get();
  rig.world->at(at(20_s), [w, cle] { w->crash(cle.process, "cancel"); });
  CHECK(poll_for_lease(rig, lease, "foo1-131"));
  CHECK(holds_until(rig, lease, "foo1-131", 20_s));
  // The stopped CLE candidate stays listed (unexpired for 30 min) but acks nothing, so CLE
  // does not interfere with the legacy elector acquiring the expired lease.
  CHECK(poll_for_lease(rig, lease, "foo1-130"));
  CHECK(holds_until(rig, lease, "foo1-130", rig.elapsed + 15_s));
}
