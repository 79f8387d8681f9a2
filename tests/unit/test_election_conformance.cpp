// client-go's leader-election conformance vectors (tools/leaderelection/leaderelection_test.go
// at HEAD; the MultiLock table at 27bbe7653^), run against the sans-IO LeaderElector.
// Reference: shared/reference/client-go-leader-election.md §4.0-4.4 for the vectors,
// §1.5-1.9 for the loops they come from, §2 for the locks.
//
// The fake API answers inside request() and each answer takes 1 ms of both clocks unless a
// test says otherwise. Go's tests rely on time passing during a Get on the real clock: with
// LDS 0, a record observed after `now` was captured still counts as valid (§4.1 row 7).
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "fake_api.hpp"
#include "fake_env.hpp"
#include "models/election/leader_elector.hpp"
#include "models/election/multi_lock.hpp"
#include "models/election/object_lock.hpp"

using namespace hasim;
using namespace hasim::election;
using namespace hasim::literals;
using hasim::api::Kind;
using hasim::api::Status;
using hasim::api::Verb;
using hasim::testing::FakeApi;
using hasim::testing::FakeEnv;

namespace {

constexpr std::uint64_t kTag = std::uint64_t{7} << 56;
// The wall clock reads differently from the monotonic one: decisions must use the latter.
constexpr LocalTime kWallStart = LocalTime{} + 960_h;  // 40 days
const std::string kSelf = "baz";
const std::string kUnknown(kUnknownLeader);
const std::string kBecame = "Normal LeaderElection baz became leader";
const std::string kStopped = "Normal LeaderElection baz stopped leading";

LeaderElectionRecord held_by(const std::string& holder, int lds = 0) {
  LeaderElectionRecord record;
  record.holderIdentity = holder;
  record.leaseDurationSeconds = lds;
  return record;
}

api::ObjectKey key_of(Kind kind) { return {kind, "foo", "bar"}; }

// A lock object as the API holds it (createLockObject): none, bare (no annotation, empty
// spec), or carrying a record.
struct InApi {
  bool exists = false;
  std::optional<LeaderElectionRecord> record;
};
const InApi kNone{};
const InApi kBare{true, std::nullopt};
InApi holding(const LeaderElectionRecord& record) { return {true, record}; }
InApi holding(const std::string& holder, int lds = 0) { return holding(held_by(holder, lds)); }

void put(FakeApi& api, Kind kind, const InApi& state) {
  if (!state.exists) return;
  api::Object object;
  object.key = key_of(kind);
  if (state.record.has_value()) {
    if (kind == Kind::lease) {
      object.lease = to_lease_spec(*state.record);
    } else {
      object.annotations[std::string(kLeaderAnnotation)] = marshal(*state.record);
    }
  }
  api.put(std::move(object));
}

// The record in the stored object, read the way its lock kind reads it.
std::optional<LeaderElectionRecord> stored(const FakeApi& api, Kind kind) {
  const api::Object* object = api.find(key_of(kind));
  if (object == nullptr) return std::nullopt;
  if (kind == Kind::lease) return from_lease_spec(object->lease);
  const auto it = object->annotations.find(std::string(kLeaderAnnotation));
  if (it == object->annotations.end()) return LeaderElectionRecord{};
  return unmarshal(it->second);
}

// The monotonic instants the vectors name (§4.0), relative to T0, the start of the case.
enum class When { zero, past, future };
LocalTime at(When when, LocalTime t0) {
  switch (when) {
    case When::zero:
      return LeaderElector::kZeroTime;
    case When::past:
      return t0 - 1000_h;
    case When::future:
      return t0 + 1000_h;
  }
  return t0;
}

// "getP" / "updateS" / "create" as client-go action strings: P (or no suffix) is the
// primary lock's resource, S the MultiLock's Lease.
std::vector<std::string> expand(const std::vector<std::string>& tokens, Kind primary) {
  std::vector<std::string> out;
  for (const std::string& token : tokens) {
    const char last = token.back();
    const bool suffixed = last == 'P' || last == 'S';
    const Kind kind = last == 'S' ? Kind::lease : primary;
    out.push_back(token.substr(0, token.size() - (suffixed ? 1 : 0)) + " " +
                  FakeApi::resource(kind));
  }
  return out;
}

std::string stamp(const std::string& what, LocalTime t) {
  return what + "@" + format_seconds(t.ns);
}

// An elector for identity baz on lock foo/bar (an ObjectLock of `primary`'s kind, or a
// MultiLock of it and a Lease), with a fake API and every callback recorded.
class Rig {
 public:
  Rig(LeaderElectionConfig config, Kind primary, bool multi = false, Duration latency = 1_ms)
      : coordinated_(config.coordinated),
        env(1, kWallStart, LocalTime{}),
        api(&env, latency),
        lock(make_lock(api, primary, multi)),
        elector(std::move(config), *lock, api, callbacks(), kTag) {}

  // One tryAcquireOrRenew (or tryCoordinatedRenew), then maybeReportTransition as the
  // acquire and renew loops do after every try.
  bool attempt() {
    std::optional<bool> result;
    const api::ContextId context = api.new_context();
    const LeaderElector::Result done = [&result](Env&, bool ok) { result = ok; };
    if (coordinated_) {
      elector.try_coordinated_renew(env, context, done);
    } else {
      elector.try_acquire_or_renew(env, context, done);
    }
    REQUIRE(result.has_value());  // the fake answers at once
    elector.maybe_report_transition(env);
    return *result;
  }
  bool release() {
    std::optional<bool> result;
    elector.release(env, [&result](Env&, bool ok) { result = ok; });
    REQUIRE(result.has_value());
    return *result;
  }
  // Fires the next timer into the elector.
  void step() {
    const auto fired = env.advance_to_next_timer();
    REQUIRE(fired.has_value());
    REQUIRE(elector.on_timer(env, fired->second));
  }
  void step_until(const std::function<bool()>& done, int limit = 100) {
    for (int i = 0; !done(); ++i) {
      REQUIRE(i < limit);
      step();
    }
  }
  // The lock's events as client-go's FakeRecorder prints them.
  std::vector<std::string> events() const {
    std::vector<std::string> out;
    for (const auto& line : env.traces_of("event")) {
      out.push_back(line.get("type") + " " + line.get("reason") + " " + line.get("message"));
    }
    return out;
  }

 private:
  static std::unique_ptr<ResourceLock> make_lock(FakeApi& api, Kind primary, bool multi) {
    auto first = std::make_unique<ObjectLock>(key_of(primary), kSelf, api);
    if (!multi) return first;
    return std::make_unique<MultiLock>(
        std::move(first), std::make_unique<ObjectLock>(key_of(Kind::lease), kSelf, api));
  }
  LeaderCallbacks callbacks() {
    LeaderCallbacks c;
    c.onStartedLeading = [this](Env& e) {
      happenings.push_back(stamp("started", e.monotonic_now()));
    };
    c.onLeadingContextDone = [this](Env& e) {
      happenings.push_back(stamp("context-done", e.monotonic_now()));
    };
    c.onStoppedLeading = [this](Env& e) {
      happenings.push_back(stamp("stopped", e.monotonic_now()));
    };
    c.onNewLeader = [this](Env&, const std::string& holder) { new_leaders.push_back(holder); };
    return c;
  }

  bool coordinated_;

 public:
  FakeEnv env;
  FakeApi api;
  std::unique_ptr<ResourceLock> lock;
  std::vector<std::string> new_leaders;  // OnNewLeader calls
  std::vector<std::string> happenings;   // "started@<monotonic s>", "context-done@", "stopped@"
  LeaderElector elector;
};

// What a try-table row expects; `reported` is every OnNewLeader call in order.
struct Outcome {
  bool result;
  std::string holder;
  int transitions;
  std::vector<std::string> calls;
  std::vector<std::string> reported;
};

void check_outcome(const Rig& rig, bool result, const Outcome& want, Kind primary,
                   const std::vector<Kind>& written) {
  CHECK(result == want.result);
  CHECK(rig.elector.observed_record().holderIdentity == want.holder);
  CHECK(rig.elector.observed_record().leaderTransitions == want.transitions);
  CHECK(rig.api.calls() == expand(want.calls, primary));
  CHECK(rig.new_leaders == want.reported);
  CHECK(rig.env.traces_of("event").empty());  // "became leader" belongs to acquire()
  if (!want.result) return;
  for (const Kind kind : written) {  // what a successful try left in the API
    const auto record = stored(rig.api, kind);
    REQUIRE(record.has_value());
    CHECK(record->holderIdentity == kSelf);
    CHECK(record->leaseDurationSeconds == 10);
    CHECK(record->leaderTransitions == want.transitions);
  }
}

// §4.0-4.2: one lock object, the observed state, the expected outcome.
struct TryRow {
  const char* name;
  InApi object;
  LeaderElectionRecord observed;  // observedRawRecord = marshal(observed)
  When observed_at;
  Duration retry_after;  // non-zero: the first try gives !result, then the clock moves on
  Outcome want;
};

void run_try_table(const std::vector<TryRow>& table, Kind kind, bool coordinated) {
  for (const TryRow& row : table) {
    INFO(row.name << " (" << FakeApi::resource(kind) << (coordinated ? ", coordinated" : "")
                  << ")");
    LeaderElectionConfig config;
    config.leaseDuration = 10_s;  // RD and RP unset upstream: these tests skip validation
    config.coordinated = coordinated;
    Rig rig(config, kind);
    put(rig.api, kind, row.object);
    const LocalTime t0 = rig.env.monotonic_now();
    rig.elector.set_observed_for_test(row.observed, marshal(row.observed), at(row.observed_at, t0));
    bool result = rig.attempt();
    if (row.retry_after > Duration{}) {
      CHECK(result == !row.want.result);
      rig.env.advance(row.retry_after);
      result = rig.attempt();
    }
    check_outcome(rig, result, row.want, kind, {kind});
  }
}

const std::vector<TryRow>& try_acquire_or_renew_table() {
  static const std::vector<TryRow> table{
      {"acquire from no object",
       kNone,
       {},
       When::zero,
       {},
       {true, "baz", 0, {"get", "create"}, {"baz"}}},
      {"acquire from object without annotations",
       kBare,
       {},
       When::zero,
       {},
       {true, "baz", 1, {"get", "update"}, {"baz"}}},
      // First try: held by bing for 3 s from now. After 3 s the bytes are unchanged, so
      // observedTime stays and observedTime + 3 s <= now: take over.
      {"acquire from led object with the lease duration seconds",
       holding("bing", 3),
       {},
       When::zero,
       3_s,
       {true, "baz", 1, {"get", "get", "update"}, {"bing", "baz"}}},
      {"acquire from unled object",
       holding(""),
       {},
       When::zero,
       {},
       {true, "baz", 1, {"get", "update"}, {"baz"}}},
      {"acquire from led, unacked object",
       holding("bing"),
       held_by("bing"),
       When::past,
       {},
       {true, "baz", 1, {"get", "update"}, {"baz"}}},
      {"acquire from empty led, acked object",
       holding(""),
       {},
       When::future,
       {},
       {true, "baz", 1, {"get", "update"}, {"baz"}}},
      {"don't acquire from led, acked object",
       holding("bing"),
       {},
       When::future,
       {},
       {false, "bing", 0, {"get"}, {"bing"}}},
      // The fast path applies but the lock has no cached object: it fails with no call.
      {"renew already acquired object",
       holding("baz"),
       held_by("baz"),
       When::future,
       {},
       {true, "baz", 0, {"get", "update"}, {"baz"}}},
  };
  return table;
}

// §4.4: MultiLock(primary annotation lock, secondary Lease).
enum class Raw { nil, primary, secondary, concat };
std::string raw_of(Raw raw, const LeaderElectionRecord& record) {
  switch (raw) {
    case Raw::nil:
      return {};
    case Raw::primary:
    case Raw::secondary:  // json(R) either way
      return marshal(record);
    case Raw::concat:
      return marshal(record) + "," + marshal(record);
  }
  return {};
}

struct MultiRow {
  const char* name;
  InApi primary;
  InApi secondary;
  LeaderElectionRecord observed;
  Raw raw;
  When observed_at;
  Outcome want;  // reported: OnNewLeader once, with the holder
};

void run_multi_table(const std::vector<MultiRow>& table, Kind primary) {
  for (const MultiRow& row : table) {
    INFO(row.name << " (" << FakeApi::resource(primary) << "leases)");
    LeaderElectionConfig config;
    config.leaseDuration = 10_s;
    Rig rig(config, primary, /*multi=*/true);
    put(rig.api, primary, row.primary);
    put(rig.api, Kind::lease, row.secondary);
    const LocalTime t0 = rig.env.monotonic_now();
    rig.elector.set_observed_for_test(row.observed, raw_of(row.raw, row.observed),
                                      at(row.observed_at, t0));
    const bool result = rig.attempt();
    check_outcome(rig, result, row.want, primary, {primary, Kind::lease});
  }
}

LeaderElectionConfig loop_config() {  // the loop tests' timing: LD 15 s, RD 2 s, RP 1 s
  LeaderElectionConfig config;
  config.leaseDuration = 15_s;
  config.renewDeadline = 2_s;
  config.retryPeriod = 1_s;
  return config;
}

LeaderElectionConfig default_config() {  // the core components' 15/10/2
  LeaderElectionConfig config;
  config.leaseDuration = 15_s;
  config.renewDeadline = 10_s;
  config.retryPeriod = 2_s;
  config.name = "kube-scheduler";
  return config;
}

}  // namespace

// --- §4.1 / §4.2 ------------------------------------------------------------------------------

TEST_CASE("TestTryAcquireOrRenewLeases: the 8 vectors on a LeaseLock", "[conformance]") {
  run_try_table(try_acquire_or_renew_table(), Kind::lease, false);
}

TEST_CASE("TestTryAcquireOrRenew on the legacy Endpoints and ConfigMap annotation locks",
          "[conformance]") {
  // Upstream ran the same table for every lock kind until the annotation locks were removed.
  const Kind kind = GENERATE(Kind::endpoints, Kind::config_map);
  run_try_table(try_acquire_or_renew_table(), kind, false);
}

TEST_CASE("TestTryCoordinatedRenew: C1, C2 and the steps of §1.9", "[conformance]") {
  LeaderElectionRecord end_of_term = held_by("baz");
  end_of_term.preferredHolder = "bing";
  end_of_term.strategy = "OldestEmulationVersion";
  const std::vector<TryRow> table{
      {"C1 don't acquire from led, acked object",
       holding("bing"),
       {},
       When::future,
       {},
       {false, "bing", 0, {"get"}, {"bing"}}},
      {"C2 renew already acquired object",
       holding("baz"),
       held_by("baz"),
       When::future,
       {},
       {true, "baz", 0, {"get", "update"}, {"baz"}}},
      // [derived §1.9 step 1] the apiserver creates the Lease; a candidate never does.
      {"no Lease: no create", kNone, {}, When::zero, {}, {false, "", 0, {"get"}, {}}},
      // [derived §1.9 step 5] end of term: the holder stops renewing.
      {"preferred holder set: no renewal",
       holding(end_of_term),
       held_by("baz"),
       When::future,
       {},
       {false, "baz", 0, {"get"}, {"baz"}}},
  };
  run_try_table(table, Kind::lease, true);
}

// Not upstream: the KEP's proposed fallback to direct leasing (a named mode, off by default).
TEST_CASE("coordinated elector: no fallback by default, tryAcquireOrRenew after fallbackAfter",
          "[conformance][cle]") {
  LeaderElectionConfig upstream = default_config();
  upstream.coordinated = true;
  Rig plain(upstream, Kind::lease);
  plain.elector.run(plain.env);
  for (int i = 0; i < 60; ++i) plain.step();  // about two minutes of polling
  CHECK(plain.api.find(key_of(Kind::lease)) == nullptr);  // never creates: stays leaderless
  CHECK(plain.happenings.empty());

  LeaderElectionConfig fallback = upstream;
  fallback.coordinatedFallbackAfter = 30_s;
  Rig rig(fallback, Kind::lease);
  rig.elector.run(rig.env);
  const LocalTime start = rig.env.monotonic_now();
  rig.step_until([&rig] { return !rig.happenings.empty(); });
  const api::Object* lease = rig.api.find(key_of(Kind::lease));
  REQUIRE(lease != nullptr);
  CHECK(lease->lease.holderIdentity == std::optional<std::string>(kSelf));
  CHECK(rig.happenings.front().starts_with("started@"));
  CHECK(rig.env.monotonic_now() - start >= 30_s);               // not before fallbackAfter
  CHECK(rig.env.monotonic_now() - start < 30_s + 4400_ms);      // at the first try after it
}

// --- §4.4 -------------------------------------------------------------------------------------

TEST_CASE("TestTryAcquireOrRenewMultiLock: M1-M11 for endpointsleases and configmapsleases",
          "[conformance]") {
  // The secondary (S) Lease is absent where upstream's first S reactor answers 404; its
  // fake answered every later S get the same, so an absent S is read twice then created.
  const std::string u = kUnknown;
  const std::vector<MultiRow> table{
      {"M1 acquire from no object",
       kNone,
       kNone,
       {},
       Raw::nil,
       When::zero,
       {true, "baz", 0, {"getP", "createP", "createS"}, {"baz"}}},
      {"M2 acquire from unled old object",
       holding(""),
       kNone,
       {},
       Raw::nil,
       When::zero,
       {true, "baz", 1, {"getP", "getS", "updateP", "getS", "createS"}, {"baz"}}},
      {"M3 acquire from unled transition object",
       holding(""),
       holding(""),
       {},
       Raw::nil,
       When::zero,
       {true, "baz", 1, {"getP", "getS", "updateP", "getS", "updateS"}, {"baz"}}},
      {"M4 acquire from led, unack old object",
       holding("bing"),
       kNone,
       held_by("bing"),
       Raw::primary,
       When::past,
       {true, "baz", 1, {"getP", "getS", "updateP", "getS", "createS"}, {"baz"}}},
      {"M5 acquire from led, unack transition object",
       holding("bing"),
       holding("bing"),
       held_by("bing"),
       Raw::concat,
       When::past,
       {true, "baz", 1, {"getP", "getS", "updateP", "getS", "updateS"}, {"baz"}}},
      {"M6 acquire from conflict led, ack transition object",
       holding("bing"),
       holding("baz"),
       held_by("bing"),
       Raw::concat,
       When::future,
       {false, u, 0, {"getP", "getS"}, {u}}},
      {"M7 acquire from led, unack unknown object",
       holding(u),
       holding(u),
       held_by(u),
       Raw::concat,
       When::past,
       {true, "baz", 1, {"getP", "getS", "updateP", "getS", "updateS"}, {"baz"}}},
      {"M8 don't acquire from led, ack old object",
       holding("bing"),
       kNone,
       held_by("bing"),
       Raw::primary,
       When::future,
       {false, "bing", 0, {"getP", "getS"}, {"bing"}}},
      {"M9 don't acquire from led, acked new object, observe new record",
       holding("baz"),
       holding("bing"),
       held_by("bing"),
       Raw::secondary,
       When::future,
       {false, u, 0, {"getP", "getS"}, {u}}},
      {"M10 don't acquire from led, acked new object, observe transition record",
       holding("bing"),
       holding("bing"),
       held_by("bing"),
       Raw::concat,
       When::future,
       {false, "bing", 0, {"getP", "getS"}, {"bing"}}},
      {"M11 renew already required object",
       holding("baz"),
       holding("baz"),
       held_by("baz"),
       Raw::concat,
       When::future,
       {true, "baz", 0, {"getP", "getS", "updateP", "getS", "updateS"}, {"baz"}}},
  };
  const Kind primary = GENERATE(Kind::endpoints, Kind::config_map);
  run_multi_table(table, primary);
}

// --- §4.3 release -----------------------------------------------------------------------------

TEST_CASE("testReleaseLease: release acquired lock from no object", "[conformance]") {
  LeaderElectionConfig config;
  config.leaseDuration = 10_s;
  Rig rig(config, Kind::lease);
  put(rig.api, Kind::lease, holding("baz"));
  rig.elector.set_observed_for_test({}, marshal({}), LeaderElector::kZeroTime);
  CHECK(rig.attempt());  // the bytes differ, the holder is self: the update path, no transition
  CHECK(rig.release());
  rig.elector.maybe_report_transition(rig.env);
  CHECK(rig.elector.observed_record().holderIdentity == "");
  CHECK(rig.elector.observed_record().leaderTransitions == 0);
  CHECK(rig.api.calls() == expand({"get", "update", "get", "update"}, Kind::lease));
  CHECK(rig.new_leaders == std::vector<std::string>{"baz", ""});
  CHECK(rig.env.traces_of("event").empty());
  const auto record = stored(rig.api, Kind::lease);
  REQUIRE(record.has_value());
  CHECK(record->holderIdentity == "");
  CHECK(record->leaseDurationSeconds == 1);  // for clients older than 1.14
  CHECK(rig.env.pending_timers() == 0);      // release's RD timeout was stopped
}

TEST_CASE("TestReleaseMethodCallsGet and TestReleaseRetriesOnConflict", "[conformance]") {
  // Lease {baz, LDS 10}; observed {baz} at now. A 409 on the first update is retried.
  const bool conflict = GENERATE(false, true);
  INFO((conflict ? "the first update answers 409" : "plain release"));
  LeaderElectionConfig config;
  config.leaseDuration = 10_s;
  config.renewDeadline = 5_s;
  Rig rig(config, Kind::lease);
  put(rig.api, Kind::lease, holding("baz", 10));
  if (conflict) rig.api.answer(Verb::update, 1, Status::conflict);
  rig.elector.set_observed_for_test(held_by("baz"), marshal(held_by("baz")),
                                    rig.env.monotonic_now());
  CHECK(rig.release());
  const std::vector<std::string> want =
      conflict ? std::vector<std::string>{"get", "update", "get", "update"}
               : std::vector<std::string>{"get", "update"};
  CHECK(rig.api.calls() == expand(want, Kind::lease));
  if (conflict) CHECK(rig.api.log()[1].answer == Status::conflict);
  const auto record = stored(rig.api, Kind::lease);
  REQUIRE(record.has_value());
  CHECK(record->holderIdentity == "");
  CHECK(rig.elector.observed_record().holderIdentity == "");
}

TEST_CASE("TestReleaseOnCancellation_Leases: cancel during a blocked renewal, then release",
          "[conformance]") {
  struct Variant {
    const char* name;
    std::function<void(FakeApi&)> script;
    std::vector<std::string> calls;
    bool released;
  };
  const auto odd_updates_fail = [](FakeApi& api) {  // every fast-path renewal fails
    for (int nth = 1; nth < 20; nth += 2) api.answer(Verb::update, nth, Status::context_canceled);
  };
  const std::vector<Variant> variants{
      {"release acquired lock on cancellation of update",
       [](FakeApi& api) {
         api.answer(Verb::update, 1, Status::context_canceled);
         api.answer(Verb::update, 3, Status::context_canceled);
         api.block(Verb::update, 4);
       },
       {"get", "create", "update", "get", "update",  // acquire; renew: fast fails, slow path
        "update", "get", "update",                   // 1 s later: the slow update blocks
        "get", "update"},                            // release
       true},
      {"release acquired lock on cancellation of get",
       [&](FakeApi& api) {
         odd_updates_fail(api);
         api.block(Verb::get, 4);
       },
       {"get", "create", "update", "get", "update", "update", "get", "update", "update",
        "get",             // the third round's slow-path get blocks
        "get", "update"},  // release
       true},
      // Upstream's get reactor also fails every later get, so its release stops at the Get
      // (its test passes because the round-2 renewal already signalled "released").
      {"cancellation of get, every later get failing as upstream's reactor does",
       [&](FakeApi& api) {
         odd_updates_fail(api);
         api.block(Verb::get, 4);
         api.answer(Verb::get, 5, Status::context_canceled, FakeApi::kAlways);
       },
       {"get", "create", "update", "get", "update", "update", "get", "update", "update", "get",
        "get"},
       false},
  };
  for (const Variant& variant : variants) {
    INFO(variant.name);
    LeaderElectionConfig config = loop_config();
    config.releaseOnCancel = true;
    Rig rig(config, Kind::lease);
    variant.script(rig.api);
    rig.elector.run(rig.env);
    rig.step_until([&] { return rig.api.blocked() == 1; });
    rig.elector.cancel(rig.env);
    CHECK(rig.api.blocked() == 0);
    CHECK(rig.api.calls() == expand(variant.calls, Kind::lease));
    const auto record = stored(rig.api, Kind::lease);
    REQUIRE(record.has_value());
    CHECK((record->holderIdentity == "") == variant.released);
    CHECK(rig.events() == std::vector<std::string>{kBecame, kStopped});
    REQUIRE(rig.happenings.size() == 3);
    CHECK(rig.happenings[1].rfind("context-done@", 0) == 0);
    CHECK(rig.happenings[2].rfind("stopped@", 0) == 0);
    CHECK_FALSE(rig.elector.running());
    CHECK(rig.env.pending_timers() == 0);
  }
}

TEST_CASE("TestFastPathLeaderElection: renewals skip the Get until one fails", "[conformance]") {
  struct Variant {
    const char* name;
    int conflict_at;  // this update answers 409 (0: none)
    int cancel_at;    // ctx is cancelled while this update is served, which then succeeds
    std::vector<std::string> calls;
  };
  const std::vector<Variant> variants{
      {"Exercise fast path after lock acquired", 0, 2, {"get", "create", "update", "update"}},
      {"Fallback to slow path after fast path fails",
       2,
       4,
       {"get", "create", "update", "update", "get", "update", "update"}},
  };
  for (const Variant& variant : variants) {
    INFO(variant.name);
    Rig rig(loop_config(), Kind::lease);
    if (variant.conflict_at != 0)
      rig.api.answer(Verb::update, variant.conflict_at, Status::conflict);
    rig.api.on_request = [&](Env& env, const FakeApi::Call& call, int nth) {
      if (call.verb == Verb::update && nth == variant.cancel_at) rig.elector.cancel(env);
    };
    rig.elector.run(rig.env);
    rig.step_until([&] { return !rig.elector.running(); });
    CHECK(rig.api.calls() == expand(variant.calls, Kind::lease));
    CHECK(rig.events() == std::vector<std::string>{kBecame, kStopped});
    CHECK(rig.env.pending_timers() == 0);
  }
}

TEST_CASE("TestLeaderElectionConfigValidation and every NewLeaderElector check in order",
          "[conformance]") {
  struct Row {
    Duration ld, rd, rp;
    std::string identity;
    std::optional<std::string> error;
  };
  const std::string ld_rd = "leaseDuration must be greater than renewDeadline";
  const std::string rd_rp = "renewDeadline must be greater than retryPeriod*JitterFactor";
  const std::vector<Row> rows{
      {15_s, 2_s, 1_s, "baz", std::nullopt},
      {15_s, 2_s, 1_s, "", "Lock identity is empty"},
      {15_s, 10_s, 2_s, "baz", std::nullopt},
      {10_s, 10_s, 2_s, "baz", ld_rd},
      {10_s, 10_s, 2_s, "", ld_rd},  // the identity is checked last
      {15_s, 2400_ms, 2_s, "baz", rd_rp},
      {15_s, 2400_ms + 1_ns, 2_s, "baz", std::nullopt},
      {0_s, -1_ns, -2_ns, "baz", "leaseDuration must be greater than zero"},
      {1_s, 0_s, -1_ns, "baz", "renewDeadline must be greater than zero"},
      {15_s, 2_s, 0_s, "baz", "retryPeriod must be greater than zero"},
  };
  for (const Row& row : rows) {
    INFO("LD " << format_duration(row.ld) << " RD " << format_duration(row.rd) << " RP "
               << format_duration(row.rp) << " identity '" << row.identity << "'");
    LeaderElectionConfig config;
    config.leaseDuration = row.ld;
    config.renewDeadline = row.rd;
    config.retryPeriod = row.rp;
    CHECK(validate(config, row.identity) == row.error);
  }
}

TEST_CASE("Check(maxTolerableExpiredLease): the healthz test of a wedged leader", "[conformance]") {
  Rig rig(default_config(), Kind::lease);
  rig.elector.run(rig.env);
  REQUIRE(rig.elector.is_leader());
  for (int i = 0; i < 30; ++i) {  // a minute of renewals: healthy throughout
    CHECK(rig.elector.check(rig.env, 20_s) == std::nullopt);
    rig.step();
  }
  // Wedged: no timer fires any more. The wall clock is not what Check reads.
  rig.env.set_now(rig.env.now() - 24_h);
  const LocalTime last = rig.elector.observed_time();
  rig.env.advance(last + 15_s + 20_s - rig.env.monotonic_now());
  CHECK(rig.elector.check(rig.env, 20_s) == std::nullopt);  // not yet strictly more
  rig.env.advance(1_ns);
  CHECK(rig.elector.check(rig.env, 20_s) ==
        std::optional<std::string>("failed election to renew leadership on lease kube-scheduler"));
  // A non-leader is never unhealthy, however old its observation.
  rig.elector.set_observed_for_test(held_by("bing", 15), "", LeaderElector::kZeroTime);
  CHECK(rig.elector.check(rig.env, 20_s) == std::nullopt);
}

// --- §1.5 loop timing -------------------------------------------------------------------------

TEST_CASE("acquire loop: tries at once, then waits RP + [0, 1.2 RP) after each try ends",
          "[conformance]") {
  const Duration latency = 300_ms;  // so "after the try ends" differs from "after it began"
  Rig rig(default_config(), Kind::lease, false, latency);
  put(rig.api, Kind::lease, holding("bing", 3600));  // never expires during the test
  const LocalTime start = rig.env.monotonic_now();
  rig.elector.run(rig.env);
  for (int i = 0; i < 199; ++i) rig.step();
  const auto& log = rig.api.log();
  REQUIRE(log.size() == 200);
  CHECK(log[0].at == start);
  std::vector<std::int64_t> waits;
  for (std::size_t i = 0; i < log.size(); ++i) {
    CHECK(log[i].str() == "get leases");
    if (i + 1 < log.size()) waits.push_back((log[i + 1].at - (log[i].at + latency)).ns);
  }
  const auto [low, high] = std::minmax_element(waits.begin(), waits.end());
  CHECK(*low >= (2_s).ns);
  CHECK(*high < (4400_ms).ns);
  CHECK(std::set<std::int64_t>(waits.begin(), waits.end()).size() > 100);  // jittered
  CHECK(*low < (2240_ms).ns);   // and spread over the whole range
  CHECK(*high > (4160_ms).ns);  // (199 draws from [2 s, 4.4 s))
  CHECK(rig.new_leaders == std::vector<std::string>{"bing"});
  CHECK(rig.happenings.empty());
  CHECK(rig.elector.running());
}

TEST_CASE("renew loop: a fast-path renewal at once after acquiring, then RP after each success",
          "[conformance]") {
  const Duration latency = 100_ms;
  Rig rig(default_config(), Kind::lease, false, latency);
  rig.elector.run(rig.env);
  for (int i = 0; i < 10; ++i) rig.step();
  const auto& log = rig.api.log();
  REQUIRE(log.size() == 13);
  CHECK(log[0].str() == "get leases");
  CHECK(log[1].str() == "create leases");
  CHECK(log[2].at == log[1].at + latency);  // at once after acquiring
  for (std::size_t i = 2; i < log.size(); ++i) {
    CHECK(log[i].str() == "update leases");  // the fast path: no Get
    if (i > 2) CHECK(log[i].at == log[i - 1].at + latency + 2_s);
  }
  CHECK(rig.happenings == std::vector<std::string>{"started@0.200000000"});
  CHECK(rig.events() == std::vector<std::string>{kBecame});
}

TEST_CASE("renew loop: failed renewals retry on the RP ticker; give up at RD, cancelling the call",
          "[conformance]") {
  const Duration latency = 300_ms;  // each failed try (update, get) takes 600 ms
  Rig rig(default_config(), Kind::lease, false, latency);
  rig.api.answer(Verb::update, 2, Status::unavailable, FakeApi::kAlways);
  rig.api.answer(Verb::get, 2, Status::unavailable, 4);
  rig.api.block(Verb::get, 6);
  rig.elector.run(rig.env);
  rig.step_until([&] { return !rig.elector.running(); });
  const auto& log = rig.api.log();
  REQUIRE(log.size() == 13);  // get, create, update; then 5 tries of (update, get)
  const LocalTime round = log[2].at + latency + 2_s;  // RP after the first renewal ended
  CHECK(round.ns == (2900_ms).ns);
  for (std::size_t k = 0; k < 5; ++k) {
    const auto offset = 2_s * static_cast<std::int64_t>(k);
    CHECK(log[3 + 2 * k].str() == "update leases");
    CHECK(log[3 + 2 * k].at == round + offset);  // on the ticker, not RP after the try
    CHECK(log[4 + 2 * k].str() == "get leases");
    CHECK(log[4 + 2 * k].at == round + offset + latency);
  }
  CHECK(log[11].answer == Status::unavailable);
  CHECK(log[12].answer == Status::context_canceled);  // in flight when RD passed
  CHECK(rig.happenings == std::vector<std::string>{"started@0.600000000",
                                                   "context-done@12.900000000",
                                                   "stopped@12.900000000"});
  const auto lost = rig.env.traces_of("lease-lost");
  REQUIRE(lost.size() == 1);
  CHECK(lost[0].get("reason") == "renewDeadline");
  CHECK(rig.events() == std::vector<std::string>{kBecame, kStopped});
  CHECK(rig.env.pending_timers() == 0);
}
