// The Coordinated Leader Election controller on an existing Lease and its candidate garbage
// collector, on fakes: §9.8 D12-D15 (end of term, preferredHolder takeover, no renewal,
// release) and §9.7 TestLeaseCandidateGCController of
// shared/reference/coordinated-leader-election.md. Rigs: cle_controller_rig.hpp.
#include <catch2/catch.hpp>

#include "cle_controller_rig.hpp"

using namespace hasim;
using namespace hasim::election;
using namespace hasim::election::cle_test;

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
