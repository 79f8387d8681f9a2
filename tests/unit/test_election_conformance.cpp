// client-go's leader-election conformance vectors (tools/leaderelection/leaderelection_test.go
// at HEAD; the MultiLock table at 27bbe7653^), run against the sans-IO LeaderElector.
// Reference: shared/reference/client-go-leader-election.md §4.0-4.4 for the vectors,
// §1.5-1.9 for the loops they come from, §2 for the locks.
//
// The fake API answers inside request() and each answer takes 1 ms of both clocks unless a
// test says otherwise. Go's tests rely on time passing during a Get on the real clock: with
// LDS 0, a record observed after `now` was captured still counts as valid (§4.1 row 7).
#include <catch2/catch.hpp>

#include "election_conformance_rig.hpp"

using namespace hasim;
using namespace hasim::election;
using namespace hasim::election::conformance_test;

namespace {

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
  for (int i = 0; i < 60; ++i) plain.step();              // about two minutes of polling
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
  CHECK(rig.env.monotonic_now() - start >= 30_s);           // not before fallbackAfter
  CHECK(rig.env.monotonic_now() - start < 30_s + 4400_ms);  // at the first try after it
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
