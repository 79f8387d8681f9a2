// kube-apiserver's Coordinated Leader Election controller running in a World, against
// upstream's vectors: §9.5 TestController (candidates played by test processes, as upstream's
// goroutines) and §9.6 the e2e tests (real LeaderElectors and LeaseCandidates) of
// shared/reference/coordinated-leader-election.md. Rigs: cle_controller_rig.hpp.
#include <catch2/catch.hpp>

#include "cle_controller_rig.hpp"

using namespace hasim;
using namespace hasim::election;
using namespace hasim::election::cle_test;

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
