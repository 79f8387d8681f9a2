// "renewRequests": "unbounded", the renew loop of client-go up to 1.11 (kubernetes#44887):
// no HTTP client timeout, and a wait.Poll(RP, RD) whose RenewDeadline only closes the tick
// channel, so a hung renewal keeps the leader leading until its request returns (the
// apiserver's 504 at its request timeout), then one more try runs. Reference for the old loop:
// client-go tools/leaderelection/leaderelection.go at kubernetes-1.11.0 (renew) and
// apimachinery pkg/util/wait/wait.go at kubernetes-1.11.0 (WaitFor, poller); the fixes are
// kubernetes#65094 (1.12) and kubernetes#87899 (1.18). Today's bounded loop is covered by
// test_election_conformance.cpp; the contrast is checked here with the same scripts.
#include <catch2/catch.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fake_api.hpp"
#include "fake_env.hpp"
#include "models/election/leader_elector.hpp"
#include "models/election/object_lock.hpp"
#include "models/election/record.hpp"
#include "scenarios/control_plane/spec.hpp"
#include "scenarios/loader.hpp"
#include "properties/run.hpp"

using namespace hasim;
using namespace hasim::election;
using namespace hasim::literals;
using Catch::Matchers::Contains;
using hasim::api::Kind;
using hasim::api::Status;
using hasim::api::Verb;
using hasim::testing::FakeApi;
using hasim::testing::FakeEnv;

namespace {

const api::ObjectKey kLease{Kind::lease, "kube-system", "kube-controller-manager"};

// The FakeApi, except that one chosen call is held: it gets no answer until the test answers
// it (as kube-apiserver's 504 at its request timeout), passes it on to the FakeApi, or its
// context is cancelled (which today's renew loop does at RenewDeadline).
class HoldingApi final : public api::ApiTransport {
 public:
  HoldingApi(FakeEnv& env, Duration latency) : api(&env, latency) {}

  void hold(Verb verb, int nth) { hold_ = std::pair{verb, nth}; }
  bool holding() const { return held_.has_value(); }
  LocalTime held_at() const { return held_at_; }
  std::optional<Status> held_answer() const { return held_answer_; }

  void answer_held(Env& env, Status status) {
    REQUIRE(held_.has_value());
    const Callback done = std::move(held_->done);
    held_.reset();
    held_answer_ = status;
    api::Response response;
    response.status = status;
    done(env, response);
  }
  void pass_held(Env& env) {
    REQUIRE(held_.has_value());
    Held held = std::move(*held_);
    held_.reset();
    api.request(env, held.context, held.verb, held.key, held.object, std::move(held.done));
  }

  api::ContextId new_context() override { return api.new_context(); }
  void request(Env& env, api::ContextId context, Verb verb, api::ObjectKey key,
               api::ObjectPtr object, Callback done) override {
    const int nth = ++counts_[verb];
    if (hold_.has_value() && hold_->first == verb && hold_->second == nth) {
      held_ = Held{context, verb, std::move(key), std::move(object), std::move(done)};
      held_at_ = env.monotonic_now();
      return;
    }
    api.request(env, context, verb, std::move(key), std::move(object), std::move(done));
  }
  void cancel(Env& env, api::ContextId context) override {
    api.cancel(env, context);  // first: what the answer sets off must see the context done
    if (held_.has_value() && held_->context == context) {
      answer_held(env, Status::context_canceled);
    }
  }

  FakeApi api;

 private:
  struct Held {
    api::ContextId context;
    Verb verb;
    api::ObjectKey key;
    api::ObjectPtr object;
    Callback done;
  };
  std::optional<std::pair<Verb, int>> hold_;
  std::optional<Held> held_;
  LocalTime held_at_{};
  std::optional<Status> held_answer_;
  std::map<Verb, int> counts_;
};

LeaderElectionConfig config(RenewRequests mode) {
  LeaderElectionConfig c;  // the core components' 15s / 10s / 2s
  c.name = "kube-controller-manager";
  c.renewRequests = mode;
  return c;
}

// One elector "baz" on a Lease, each API answer taking 1 ms of both clocks.
class Rig {
 public:
  explicit Rig(RenewRequests mode)
      : env(1, LocalTime{} + 960_h, LocalTime{}),
        api(env, 1_ms),
        lock(kLease, "baz", api),
        elector(config(mode), lock, api, callbacks(), env.tag_space("elector")) {}

  void step() {
    const auto fired = env.advance_to_next_timer();
    REQUIRE(fired.has_value());
    REQUIRE(elector.on_timer(env, fired->second));
  }
  // Monotonic instants of the calls of `verb` that reached the FakeApi.
  std::vector<LocalTime> times_of(Verb verb) const {
    std::vector<LocalTime> out;
    for (const auto& call : api.api.log()) {
      if (call.verb == verb) out.push_back(call.at);
    }
    return out;
  }
  // A challenger took over: the Lease now names "bing".
  void taken_over() {
    LeaderElectionRecord record;
    record.holderIdentity = "bing";
    record.leaseDurationSeconds = 15;
    record.leaderTransitions = 1;
    api::Object object;
    object.key = kLease;
    object.lease = to_lease_spec(record);
    api.api.put(std::move(object));
  }

  FakeEnv env;
  HoldingApi api;
  ObjectLock lock;
  std::optional<LocalTime> started, context_done, stopped;
  LeaderElector elector;

 private:
  LeaderCallbacks callbacks() {
    LeaderCallbacks c;
    c.onStartedLeading = [this](Env& e) { started = e.monotonic_now(); };
    c.onLeadingContextDone = [this](Env& e) { context_done = e.monotonic_now(); };
    c.onStoppedLeading = [this](Env& e) { stopped = e.monotonic_now(); };
    return c;
  }
};

LocalTime at(Duration d) { return LocalTime{} + d; }

}  // namespace

// --- the elector, driven by hand ----------------------------------------------------------------

TEST_CASE("unbounded: wait.Poll's first try is one RP after the poll starts, every round",
          "[election][legacy]") {
  Rig rig(RenewRequests::unbounded);
  rig.elector.run(rig.env);  // get (404) and create: leading at 2 ms
  REQUIRE(rig.started == at(2_ms));
  for (int i = 0; i < 4; ++i) rig.step();
  // Until(period 0) starts the next poll at once; its first tick comes RP later. Today's
  // PollImmediate renews at once after acquiring (conformance: "renew loop: ...").
  CHECK(rig.times_of(Verb::update) ==
        std::vector<LocalTime>{at(2002_ms), at(4003_ms), at(6004_ms), at(8005_ms)});
  CHECK(rig.times_of(Verb::get) == std::vector<LocalTime>{at(0_ms)});  // the fast path
  CHECK_FALSE(rig.context_done.has_value());
}

TEST_CASE("unbounded: a hung renewal keeps the leader leading past RD until the 504",
          "[election][legacy]") {
  Rig rig(RenewRequests::unbounded);
  rig.api.hold(Verb::update, 2);  // the second renewal hangs
  rig.elector.run(rig.env);
  rig.step();  // 2.002: the first renewal
  rig.step();  // 4.003: the second, held
  REQUIRE(rig.api.holding());
  const LocalTime sent = rig.api.held_at();
  CHECK(sent == at(4003_ms));
  rig.step();  // the poll's RenewDeadline (10s after the poll began at 2.003) closes the ticks
  CHECK(rig.env.monotonic_now() == at(12003_ms));
  CHECK(rig.api.holding());  // nothing cancels the request
  CHECK_FALSE(rig.context_done.has_value());
  CHECK(rig.elector.is_leader());
  CHECK(rig.env.pending_timers() == 0);  // the loop waits for the try, and only for it

  SECTION("a challenger took over: the 504 ends the try, one more try sees it, the leader stops") {
    rig.taken_over();
    rig.env.advance(sent + 60_s - rig.env.monotonic_now());  // kube-apiserver --request-timeout
    rig.api.answer_held(rig.env, Status::timeout);
    // The fast path's 504, then the slow path's Get sees "bing" (false); the channel is closed,
    // so WaitFor runs the condition once more (another Get, false) and the loop ends.
    CHECK(rig.api.held_answer() == Status::timeout);
    CHECK(rig.times_of(Verb::get) == std::vector<LocalTime>{at(0_ms), at(64003_ms), at(64004_ms)});
    CHECK(rig.context_done == at(64005_ms));
    CHECK(*rig.context_done - sent > 10_s + 15_s);  // past RD, and past the challenger's LD
    CHECK(rig.stopped == rig.context_done);
    const auto lost = rig.env.traces_of("lease-lost");
    REQUIRE(lost.size() == 1);
    CHECK(lost[0].get("reason") == "renewDeadline");
    CHECK(rig.env.pending_timers() == 0);
  }
  SECTION("nobody took over: the late try renews through the slow path and the leader goes on") {
    rig.env.advance(sent + 60_s - rig.env.monotonic_now());
    rig.api.answer_held(rig.env, Status::timeout);
    CHECK_FALSE(rig.context_done.has_value());
    CHECK(rig.times_of(Verb::update).back() == at(64004_ms));  // Get, then Update: ok
    rig.step();  // the next poll's first tick, RP later
    CHECK(rig.times_of(Verb::update).back() == at(66005_ms));
    CHECK(rig.elector.running());
  }
}

TEST_CASE("bounded (today): the same hung renewal is cancelled at RD and the leader stops",
          "[election][legacy]") {
  Rig rig(RenewRequests::bounded);
  rig.api.hold(Verb::update, 2);
  rig.elector.run(rig.env);
  rig.step();  // RP after the first renewal (at once after acquiring): the second, held
  REQUIRE(rig.api.holding());
  const LocalTime sent = rig.api.held_at();
  CHECK(sent == at(2003_ms));
  rig.step();  // RenewDeadline
  CHECK(rig.api.held_answer() == Status::context_canceled);
  CHECK(rig.context_done == sent + 10_s);
  CHECK(rig.stopped == rig.context_done);
  CHECK(rig.env.pending_timers() == 0);
}

TEST_CASE("unbounded: ticks during a slow try are dropped; after RD one last try runs",
          "[election][legacy]") {
  Rig rig(RenewRequests::unbounded);
  rig.api.api.answer(Verb::update, 1, Status::unavailable, FakeApi::kAlways);
  rig.api.hold(Verb::get, 2);  // the first renewal's slow-path Get takes 3.5 s
  rig.elector.run(rig.env);    // the poll starts at 2 ms: ticks at 2.002, 4.002, ...
  rig.step();                  // 2.002: update (503), get (held)
  REQUIRE(rig.api.holding());
  rig.env.advance(3500_ms);
  rig.api.pass_held(rig.env);  // answered at 5.504; the update fails at 5.505
  // The tick of 4.002 came while the try ran and is lost (no buffered tick, unlike today's
  // ticker); the next try waits for 6.002. At 10.002 the deadline, set before that tick's
  // timer, closes the channel first: the try it starts is the last.
  rig.step();
  rig.step();
  rig.step();
  CHECK(rig.times_of(Verb::update) == std::vector<LocalTime>{at(2002_ms), at(5504_ms), at(6002_ms),
                                                             at(6004_ms), at(8002_ms), at(8004_ms),
                                                             at(10002_ms), at(10004_ms)});
  CHECK(rig.context_done == at(10005_ms));
  CHECK(rig.env.pending_timers() == 0);
}

TEST_CASE("unbounded: the deadline while waiting for a tick runs the last try at once",
          "[election][legacy]") {
  Rig rig(RenewRequests::unbounded);
  rig.api.api.answer(Verb::update, 1, Status::unavailable, FakeApi::kAlways);
  rig.elector.run(rig.env);
  // Tries at 2.002, 4.002, 6.002, 8.002 fail; the deadline at 10.002 closes the channel and
  // the last try runs at once; it fails and the loop ends. With RD = 5 RP a tick is due at the
  // same instant: Go's select may take either, the model takes the deadline first.
  for (int i = 0; i < 5; ++i) rig.step();
  CHECK(rig.times_of(Verb::get).size() == 6);  // acquire's, and one per try
  CHECK(rig.times_of(Verb::get).back() == at(10003_ms));
  CHECK(rig.context_done == at(10005_ms));
  CHECK(rig.env.pending_timers() == 0);
}

// --- the scenario format ------------------------------------------------------------------------

namespace {

Json control_plane_doc(Json kcm) {
  return Json{{"name", "t"},
              {"duration", "10m"},
              {"nodes", Json::array({{{"name", "cp-1"}}, {{"name", "cp-2"}}})},
              {"controlPlane", {{"components", {{"kube-controller-manager", std::move(kcm)}}}}}};
}

LoadResult load(const Json& doc) { return load_scenario_text(doc.dump(), "test.json"); }

ScenarioError only_error(const LoadResult& result) {
  INFO(format_errors(result.errors, "test.json"));
  REQUIRE(result.errors.size() == 1);
  CHECK_FALSE(result.scenario.has_value());
  return result.errors[0];
}

const std::string kKcm = "$.controlPlane.components.kube-controller-manager";

}  // namespace

TEST_CASE("renewRequests loads as bounded by default, or unbounded", "[election][legacy]") {
  const LoadResult plain = load(control_plane_doc(Json::object()));
  REQUIRE(plain.scenario.has_value());
  CHECK(plain.scenario->section<hasim::ControlPlaneSpec>()->controllerManager.renewRequests ==
        RenewRequestsMode::bounded);
  CHECK(plain.scenario->section<hasim::ControlPlaneSpec>()->scheduler.renewRequests ==
        RenewRequestsMode::bounded);

  const LoadResult legacy = load(control_plane_doc({{"renewRequests", "unbounded"}}));
  INFO(format_errors(legacy.errors, "test.json"));
  REQUIRE(legacy.scenario.has_value());
  CHECK(legacy.scenario->section<hasim::ControlPlaneSpec>()->controllerManager.renewRequests ==
        RenewRequestsMode::unbounded);
  CHECK(legacy.scenario->section<hasim::ControlPlaneSpec>()->scheduler.renewRequests ==
        RenewRequestsMode::bounded);
  CHECK(load(control_plane_doc({{"renewRequests", "bounded"}, {"clientTimeout", "3s"}}))
            .errors.empty());
}

TEST_CASE("renewRequests errors name the path and the fix", "[election][legacy]") {
  auto e = only_error(load(control_plane_doc({{"renewRequests", "unbound"}})));
  CHECK(e.path == kKcm + ".renewRequests");
  CHECK_THAT(e.message,
             Contains("unknown renewRequests \"unbound\" (did you mean \"unbounded\"?)") &&
                 Contains("use \"bounded\"") && Contains("kubernetes#44887"));

  e = only_error(load(control_plane_doc({{"renewRequests", true}})));
  CHECK(e.path == kKcm + ".renewRequests");

  e = only_error(
      load(control_plane_doc({{"renewRequests", "unbounded"}, {"clientTimeout", "5s"}})));
  CHECK(e.path == kKcm + ".clientTimeout");
  CHECK_THAT(e.message, Contains("client-go up to 1.11") && Contains("remove clientTimeout"));

  Json doc = control_plane_doc({{"renewRequests", "unbounded"}});
  doc["controlPlane"]["election"] = "coordinated";
  e = only_error(load(doc));
  CHECK(e.path == kKcm + ".renewRequests");
  CHECK_THAT(e.message,
             Contains("\"election\" is \"coordinated\"") && Contains("\"election\": \"lease\""));
}

// --- in a control plane -------------------------------------------------------------------------

namespace {

Scenario election_scenario(const std::string& name) {
  const std::string path = std::string(HASIM_SOURCE_DIR) + "/scenarios/election/" + name;
  LoadResult load_result = load_scenario_file(path);
  INFO(format_errors(load_result.errors, path));
  REQUIRE(load_result.scenario.has_value());
  return *load_result.scenario;
}

void set_mode(Scenario& scenario, RenewRequestsMode mode) {
  scenario.section<hasim::ControlPlaneSpec>()->controllerManager.renewRequests = mode;
  scenario.section<hasim::ControlPlaneSpec>()->scheduler.renewRequests = mode;
}

RunResult run(const Scenario& scenario, std::size_t capture = 0) {
  RunOptions options;
  options.capture_lines = capture;
  auto result = run_scenario(scenario, options);
  REQUIRE(result.has_value());
  REQUIRE(result->stats.status == RunStatus::completed);
  return *result;
}

const Violation* single_leader(const RunResult& result) {
  for (std::size_t i = 0; i < result.property_specs.size(); ++i) {
    if (result.property_specs[i] == "single-leader" && result.violations[i]) {
      return &*result.violations[i];
    }
  }
  return nullptr;
}

bool eventually_leader_held(const RunResult& result) {
  for (std::size_t i = 0; i < result.property_specs.size(); ++i) {
    if (result.property_specs[i].rfind("eventually-leader", 0) == 0) {
      return !result.violations[i].has_value();
    }
  }
  FAIL("no eventually-leader property");
  return false;
}

// True time of the first `kind` event of cp-1's kube-controller-manager.
std::optional<std::int64_t> first_kcm_event(const RunResult& result, const std::string& kind) {
  for (const std::string& line : result.captured) {
    const Json event = Json::parse(line);
    if (event.value("node", "") == "cp-1" && event.value("proc", "") == "kube-controller-manager" &&
        event.value("kind", "") == kind) {
      return event.at("t").get<std::int64_t>();
    }
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("in a control plane, the hung renewal ends the leader at RD or at the 504",
          "[election][legacy]") {
  // hung-renew: cp-1's kube-apiserver hangs updates from 2m for 2 minutes; its request
  // timeout is 60s. cp-1's kube-controller-manager leads from the start.
  Scenario scenario = election_scenario("hung-renew.json");
  const std::int64_t hang = (2_min).ns;

  const RunResult bounded = run(scenario, 100000);
  const auto bounded_end = first_kcm_event(bounded, "acting-end");
  REQUIRE(bounded_end.has_value());
  // The last good renewal came before 2m; the leader gives up RP + RD after it at the latest.
  CHECK(*bounded_end > hang);
  CHECK(*bounded_end <= hang + (12_s).ns);

  set_mode(scenario, RenewRequestsMode::unbounded);
  const RunResult unbounded = run(scenario, 100000);
  const auto unbounded_end = first_kcm_event(unbounded, "acting-end");
  REQUIRE(unbounded_end.has_value());
  // The renewal sent just after 2m hangs until the apiserver's 504, 60s later.
  CHECK(*unbounded_end > hang + (60_s).ns);
  CHECK(*unbounded_end < hang + (62_s).ns);
}

TEST_CASE("hung-renew holds; with unbounded renewals single-leader breaks", "[election][legacy]") {
  Scenario hung = election_scenario("hung-renew.json");
  const RunResult today = run(hung);
  CHECK(single_leader(today) == nullptr);
  CHECK(eventually_leader_held(today));

  // The same 2-minute hang with the old loop: two leaders, but the old one's writes hang too.
  set_mode(hung, RenewRequestsMode::unbounded);
  const RunResult old_hung = run(hung);
  const Violation* harmless = single_leader(old_hung);
  REQUIRE(harmless != nullptr);
  CHECK_THAT(harmless->detail, Contains("Harmless: cp-1/kube-controller-manager had no write"));

  // hung-renew-unbounded: a 3s hang catches one renewal; later writes go through.
  Scenario legacy = election_scenario("hung-renew-unbounded.json");
  const RunResult old = run(legacy);
  const Violation* harmful = single_leader(old);
  REQUIRE(harmful != nullptr);
  CHECK_THAT(harmful->detail,
             Contains("cp-1/kube-controller-manager (leading since t=0.000400000s) and "
                      "cp-3/kube-controller-manager both acted as leader for 45.") &&
                 Contains("Harmful: both had writes accepted"));
  CHECK(eventually_leader_held(old));

  // The same 3s hang with today's bounded client: the 5s client timeout frees the loop and the
  // next tick renews.
  set_mode(legacy, RenewRequestsMode::bounded);
  const RunResult bounded = run(legacy);
  CHECK(single_leader(bounded) == nullptr);
  CHECK(eventually_leader_held(bounded));
}
