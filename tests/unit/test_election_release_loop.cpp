// client-go's leader-election conformance vectors for release, configuration checks, the
// fast path, the healthz check and the acquire/renew loop timing
// (tools/leaderelection/leaderelection_test.go), run against the sans-IO LeaderElector.
// Reference: shared/reference/client-go-leader-election.md §4.3, §1.5. Rig:
// election_conformance_rig.hpp.
#include <catch2/catch.hpp>

#include "election_conformance_rig.hpp"

using namespace hasim;
using namespace hasim::election;
using namespace hasim::election::conformance_test;

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
