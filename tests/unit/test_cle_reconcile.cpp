// One reconcile_election_step of kube-apiserver's Coordinated Leader Election controller on
// fakes, against upstream's vectors: §9.4 TestReconcileElectionStep and §9.8 D8-D11 (the ping
// phase) of shared/reference/coordinated-leader-election.md. Rigs: cle_controller_rig.hpp.
#include <catch2/catch.hpp>

#include "cle_controller_rig.hpp"

using namespace hasim;
using namespace hasim::election;
using namespace hasim::election::cle_test;

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
