#pragma once
// The rig shared by client-go's leader-election conformance tests
// (test_election_conformance.cpp: tryAcquireOrRenew and MultiLock tables;
// test_election_release_loop.cpp: release, validation, fast path and loop timing).
// Reference: shared/reference/client-go-leader-election.md §4.0-4.4 for the vectors,
// §1.5-1.9 for the loops they come from, §2 for the locks.
//
// The fake API answers inside request() and each answer takes 1 ms of both clocks unless a
// test says otherwise. Go's tests rely on time passing during a Get on the real clock: with
// LDS 0, a record observed after `now` was captured still counts as valid (§4.1 row 7).
#include <algorithm>
#include <set>

#include "fake_api.hpp"
#include "fake_env.hpp"
#include "models/election/leader_elector.hpp"
#include "models/election/multi_lock.hpp"
#include "models/election/object_lock.hpp"

namespace hasim::election::conformance_test {

using namespace hasim::literals;
using hasim::api::Kind;
using hasim::api::Status;
using hasim::api::Verb;
using hasim::testing::FakeApi;
using hasim::testing::FakeEnv;

// The wall clock reads differently from the monotonic one: decisions must use the latter.
constexpr LocalTime kWallStart = LocalTime{} + 960_h;  // 40 days
const std::string kSelf = "baz";
const std::string kUnknown(kUnknownLeader);
const std::string kBecame = "Normal LeaderElection baz became leader";
const std::string kStopped = "Normal LeaderElection baz stopped leading";

inline LeaderElectionRecord held_by(const std::string& holder, int lds = 0) {
  LeaderElectionRecord record;
  record.holderIdentity = holder;
  record.leaseDurationSeconds = lds;
  return record;
}

inline api::ObjectKey key_of(Kind kind) { return {kind, "foo", "bar"}; }

// A lock object as the API holds it (createLockObject): none, bare (no annotation, empty
// spec), or carrying a record.
struct InApi {
  bool exists = false;
  std::optional<LeaderElectionRecord> record;
};
const InApi kNone{};
const InApi kBare{true, std::nullopt};
inline InApi holding(const LeaderElectionRecord& record) { return {true, record}; }
inline InApi holding(const std::string& holder, int lds = 0) {
  return holding(held_by(holder, lds));
}

inline void put(FakeApi& api, Kind kind, const InApi& state) {
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
inline std::optional<LeaderElectionRecord> stored(const FakeApi& api, Kind kind) {
  const api::Object* object = api.find(key_of(kind));
  if (object == nullptr) return std::nullopt;
  if (kind == Kind::lease) return from_lease_spec(object->lease);
  const auto it = object->annotations.find(std::string(kLeaderAnnotation));
  if (it == object->annotations.end()) return LeaderElectionRecord{};
  return unmarshal(it->second);
}

// The monotonic instants the vectors name (§4.0), relative to T0, the start of the case.
enum class When { zero, past, future };
inline LocalTime at(When when, LocalTime t0) {
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
inline std::vector<std::string> expand(const std::vector<std::string>& tokens, Kind primary) {
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

inline std::string stamp(const std::string& what, LocalTime t) {
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
        elector(std::move(config), *lock, api, callbacks(), env.tag_space("elector")) {}

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

inline void check_outcome(const Rig& rig, bool result, const Outcome& want, Kind primary,
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

inline void run_try_table(const std::vector<TryRow>& table, Kind kind, bool coordinated) {
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

inline LeaderElectionConfig loop_config() {  // the loop tests' timing: LD 15 s, RD 2 s, RP 1 s
  LeaderElectionConfig config;
  config.leaseDuration = 15_s;
  config.renewDeadline = 2_s;
  config.retryPeriod = 1_s;
  return config;
}

inline LeaderElectionConfig default_config() {  // the core components' 15/10/2
  LeaderElectionConfig config;
  config.leaseDuration = 15_s;
  config.renewDeadline = 10_s;
  config.retryPeriod = 2_s;
  config.name = "kube-scheduler";
  return config;
}

}  // namespace hasim::election::conformance_test
