// The proposal's (seed 004) druid decision table: one test per case (1-13), the priority
// order, each reading of an ambiguous row, the PDB and rolling-update rules, and a property
// that every consistent observation is classified (the init table: test_druid_proposal_init.cpp).
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "models/druid/proposal_druid_table.hpp"

using namespace hasim::druid::proposal;

namespace {

// An n-member cluster in the pink of health.
DruidObservation healthy(int n) {
  return {n, n, n, n, n, n, 0, 0, 0, Tri::True, Tri::True, Tri::True};
}

std::vector<DruidStep> steps(std::initializer_list<DruidStep> list) { return list; }
}  // namespace

// ---- Druid cases, one each ----------------------------------------------------------------

TEST_CASE("druid case 1: pink of health, nothing to do", "[druid-proposal]") {
  const auto o = healthy(3);
  CHECK(classify(o) == std::vector{DruidCase::PinkOfHealth});
  CHECK(decide(o) == DruidAction{DruidCase::PinkOfHealth, steps({Nothing{}})});
}

TEST_CASE("druid case 2: member status out of sync with the leases", "[druid-proposal]") {
  auto o = healthy(3);
  o.members_expired_lease = 1;  // one lease expired, its entry still Ready
  const auto cases = classify(o);
  CHECK(cases.front() == DruidCase::MemberStatusOutOfSync);
  CHECK(decide(o).steps ==
        steps({MarkMembers{MemberSelector::ExpiredLease, 1, MemberStatus::Unknown,
                           MemberReason::LeaseExpired, true},
               MarkMembers{MemberSelector::ActiveLease, 2, MemberStatus::Ready,
                           MemberReason::LeaseSucceeded, true}}));
  // Marked: the Unknown entry matches its expired lease and the row no longer holds.
  o.members_ready = 2;
  CHECK_FALSE(matches(DruidCase::MemberStatusOutOfSync, o));
}

TEST_CASE("druid case 3: all members Ready but AllMembersReady stale", "[druid-proposal]") {
  auto o = healthy(3);
  o.all_members_ready = Tri::False;
  CHECK(classify(o) == std::vector{DruidCase::AllMembersReadyStaleFalse});
  CHECK(decide(o).steps == steps({SetCondition{ConditionType::AllMembersReady, Tri::True}}));
}

TEST_CASE("druid case 4: not all members Ready but AllMembersReady stale", "[druid-proposal]") {
  auto o = healthy(3);
  o.sts_ready_replicas = 2;
  o.members_ready = 2;
  o.members_not_ready_past_grace = 1;
  const auto cases = classify(o);
  CHECK(cases.front() == DruidCase::AllMembersReadyStaleTrue);
  CHECK(decide(o).steps == steps({SetCondition{ConditionType::AllMembersReady, Tri::False}}));
}

TEST_CASE("druid case 5: majority Ready but Ready condition stale", "[druid-proposal]") {
  auto o = healthy(3);
  o.members_ready = 2;
  o.members_expired_lease = 1;
  o.ready = Tri::False;
  o.all_members_ready = Tri::False;
  // nr + u + h = 1: inside the seed's 0 < . < n/2 only with a real half (1.5).
  CHECK(classify(o) == std::vector{DruidCase::ReadyStaleFalse});
  CHECK(decide(o).steps == steps({SetCondition{ConditionType::Ready, Tri::True}}));
}

TEST_CASE("druid case 6: majority NotReady but Ready condition stale", "[druid-proposal]") {
  auto o = healthy(3);
  o.sts_ready_replicas = 1;
  o.members_ready = 1;
  o.members_not_ready_past_grace = 2;
  o.all_members_ready = Tri::False;
  CHECK(classify(o).front() == DruidCase::ReadyStaleTrue);
  CHECK(decide(o).steps == steps({SetCondition{ConditionType::Ready, Tri::False}}));
}

TEST_CASE("druid case 7: members Unknown past the grace period", "[druid-proposal]") {
  auto o = healthy(3);
  o.members_ready = 2;
  o.members_unknown_past_grace = 1;
  o.members_expired_lease = 1;
  CHECK(classify(o).front() == DruidCase::UnknownPastGracePeriod);
  CHECK(decide(o).steps ==
        steps({MarkMembers{MemberSelector::UnknownPastGrace, 1, MemberStatus::NotReady,
                           MemberReason::UnknownGracePeriodExceeded, false}}));
  o.members_unknown_past_grace = 0;  // "u where u <= n" with u = 0: nothing to mark
  CHECK_FALSE(matches(DruidCase::UnknownPastGracePeriod, o));
}

TEST_CASE("druid case 8: pods not Ready, status not yet updated", "[druid-proposal]") {
  auto o = healthy(3);
  o.sts_ready_replicas = 2;  // entry still Ready
  CHECK(classify(o).front() == DruidCase::PodsNotReadyStatusStale);
  CHECK(decide(o).steps ==
        steps({MarkMembers{MemberSelector::PodNotReady, 1, MemberStatus::NotReady,
                           MemberReason::PodNotReady, false}}));
  o.members_ready = 2;  // marked: the row clears, so it cannot starve case 9
  CHECK_FALSE(matches(DruidCase::PodsNotReadyStatusStale, o));
}

TEST_CASE("druid case 9: quorate cluster with a minority NotReady", "[druid-proposal]") {
  auto o = healthy(3);
  o.sts_ready_replicas = 2;
  o.members_ready = 2;
  o.members_not_ready_past_grace = 1;
  o.all_members_ready = Tri::False;
  CHECK(classify(o) == std::vector{DruidCase::QuorateMinorityNotReady});
  CHECK(decide(o).steps == steps({DeletePods{MemberSelector::NotReadyPastGrace, 1, true}}));
  o.backup_ready = Tri::False;  // disruptive actions wait for a good backup
  CHECK_FALSE(matches(DruidCase::QuorateMinorityNotReady, o));
}

TEST_CASE("druid case 10: quorum lost with a majority NotReady", "[druid-proposal]") {
  auto o = healthy(3);
  o.sts_ready_replicas = 1;
  o.members_ready = 1;
  o.members_not_ready_past_grace = 2;
  o.ready = Tri::False;
  o.all_members_ready = Tri::False;
  CHECK(classify(o) == std::vector{DruidCase::QuorumLostMajorityNotReady});
  CHECK(decide(o).steps ==
        steps({ScaleStatefulSet{0}, DeletePods{MemberSelector::All, 3, false}, ClearStatusMembers{},
               DeleteLeases{{0, 1, 2}}, CreateLeases{{0, 1, 2}}, SetClusterSize{3},
               ScaleStatefulSet{1}, WaitForReadyMembers{1}, ScaleStatefulSet{3}}));
  o.backup_ready = Tri::False;  // nothing to restore from: no row
  CHECK(classify(o) == std::vector{DruidCase::Unclassified});
}

TEST_CASE("druid case 11: scale up of a healthy cluster", "[druid-proposal]") {
  auto o = healthy(3);
  o.desired_cluster_size = 5;
  CHECK(classify(o) == std::vector{DruidCase::ScaleUpHealthy});
  CHECK(decide(o).steps == steps({ScaleStatefulSet{5}, CreateLeases{{3, 4}}}));
}

TEST_CASE("druid case 12: scale down of a healthy cluster", "[druid-proposal]") {
  auto o = healthy(5);
  o.desired_cluster_size = 3;
  CHECK(classify(o) == std::vector{DruidCase::ScaleDownHealthy});
  // Ordinals 3 and 4, not the seed's "d - n members numbered d ... n".
  CHECK(decide(o).steps == steps({ScaleStatefulSet{3}, DeleteLeases{{3, 4}}}));
}

TEST_CASE("druid case 13: superfluous member entries after a scale-down", "[druid-proposal]") {
  auto o = healthy(5);
  o.desired_cluster_size = 3;
  o.sts_desired_replicas = 3;
  o.sts_ready_replicas = 3;  // status.clusterSize still 5: the row must not need it to be 3
  CHECK(classify(o) == std::vector{DruidCase::SuperfluousMemberEntries});
  CHECK(decide(o).steps == steps({RemoveStatusEntries{3, 2}, DeleteLeases{{3, 4}}}));
  o.members_total = 3;
  o.members_ready = 3;
  CHECK(cluster_size_update(o) == 3);  // then clusterSize follows the member list
}

// ---- Priority ------------------------------------------------------------------------------

TEST_CASE("druid priority: every case once, quorum loss first, pink last", "[druid-proposal]") {
  std::set<DruidCase> seen(kDruidPriority.begin(), kDruidPriority.end());
  CHECK(seen.size() == 13);
  CHECK_FALSE(seen.contains(DruidCase::Unclassified));
  CHECK(kDruidPriority.front() == DruidCase::QuorumLostMajorityNotReady);
  CHECK(kDruidPriority.back() == DruidCase::PinkOfHealth);
}

TEST_CASE("druid priority: quorum loss before marking Unknown members", "[druid-proposal]") {
  auto o = healthy(5);
  o.sts_ready_replicas = 1;
  o.members_ready = 1;
  o.members_not_ready_past_grace = 3;
  o.members_unknown_past_grace = 1;
  o.members_expired_lease = 4;
  o.ready = Tri::False;
  o.all_members_ready = Tri::False;
  CHECK(classify(o) ==
        std::vector{DruidCase::QuorumLostMajorityNotReady, DruidCase::UnknownPastGracePeriod});
}

TEST_CASE("druid priority: member statuses before the conditions", "[druid-proposal]") {
  auto o = healthy(3);
  o.members_expired_lease = 1;
  CHECK(classify(o) ==
        std::vector{DruidCase::MemberStatusOutOfSync, DruidCase::AllMembersReadyStaleTrue});
}

TEST_CASE("druid priority: conditions before deleting pods; status before both",
          "[druid-proposal]") {
  // n = 3: one NotReady past grace, one NotReady within grace, Ready still true.
  auto o = healthy(3);
  o.sts_ready_replicas = 1;
  o.members_ready = 1;
  o.members_not_ready_past_grace = 1;
  o.all_members_ready = Tri::False;
  CHECK(classify(o) == std::vector{DruidCase::ReadyStaleTrue, DruidCase::QuorateMinorityNotReady});
  o.members_ready = 2;  // pod 2 not Ready but its entry still is: case 8 first
  CHECK(classify(o) ==
        std::vector{DruidCase::PodsNotReadyStatusStale, DruidCase::QuorateMinorityNotReady});
}

// ---- Ambiguities ---------------------------------------------------------------------------

TEST_CASE("druid ambiguity: n/2 is a real half (n = 3, f = 1 is 9, f = 2 is 10)",
          "[druid-proposal]") {
  auto o = healthy(3);
  o.members_ready = 2;
  o.members_not_ready_past_grace = 1;
  o.sts_ready_replicas = 2;
  o.all_members_ready = Tri::False;
  CHECK(matches(DruidCase::QuorateMinorityNotReady, o));  // integer n/2 = 1: f < 1 fails
  o.ready = Tri::False;
  CHECK_FALSE(matches(DruidCase::QuorumLostMajorityNotReady, o));  // integer: f >= 1 holds
  o.ready = Tri::True;
  o.members_ready = 1;
  o.members_not_ready_past_grace = 2;
  o.sts_ready_replicas = 1;
  CHECK_FALSE(matches(DruidCase::QuorateMinorityNotReady, o));
  o.ready = Tri::False;
  CHECK(matches(DruidCase::QuorumLostMajorityNotReady, o));
}

TEST_CASE("druid ambiguity: Ready false with every member Ready is still stale (case 5)",
          "[druid-proposal]") {
  auto o = healthy(3);
  o.ready = Tri::False;  // the seed's where clause (0 < nr + u + h) would leave this stuck
  CHECK(classify(o) == std::vector{DruidCase::ReadyStaleFalse});
}

TEST_CASE("druid ambiguity: case 4's where clause governs its column ranges", "[druid-proposal]") {
  auto o = healthy(3);
  o.members_ready = 2;  // r < n with nr = u = h = 0, which the columns' 0 < nr exclude
  CHECK(matches(DruidCase::AllMembersReadyStaleTrue, o));
}

TEST_CASE("druid ambiguity: Unknown conditions count as stale", "[druid-proposal]") {
  auto o = healthy(3);
  o.all_members_ready = Tri::Unknown;
  o.ready = Tri::Unknown;
  CHECK(classify(o) ==
        std::vector{DruidCase::ReadyStaleFalse, DruidCase::AllMembersReadyStaleFalse});
}

TEST_CASE("druid ambiguity: a lease that expires and is renewed returns to pink",
          "[druid-proposal]") {
  // Read literally (all conditions true), case 2 would never mark the member Ready again
  // once case 4 had set AllMembersReady false.
  auto o = healthy(3);
  o.members_expired_lease = 1;
  CHECK(next_case(o) == DruidCase::MemberStatusOutOfSync);  // marks it Unknown
  o.members_ready = 2;
  CHECK(next_case(o) == DruidCase::AllMembersReadyStaleTrue);
  o.all_members_ready = Tri::False;
  CHECK(next_case(o) == DruidCase::Unclassified);  // within the Unknown grace period: wait
  o.members_expired_lease = 0;                     // renewed
  CHECK(decide(o).steps == steps({MarkMembers{MemberSelector::ActiveLease, 3, MemberStatus::Ready,
                                              MemberReason::LeaseSucceeded, true}}));
  o.members_ready = 3;
  CHECK(next_case(o) == DruidCase::AllMembersReadyStaleFalse);
  o.all_members_ready = Tri::True;
  CHECK(next_case(o) == DruidCase::PinkOfHealth);
}

TEST_CASE("druid ambiguity: uncovered states are Unclassified and do nothing", "[druid-proposal]") {
  auto o = healthy(3);
  o.backup_ready = Tri::False;  // a failed backup alone: the sidecar alerts, druid waits
  CHECK(classify(o) == std::vector{DruidCase::Unclassified});
  CHECK(decide(o).steps == steps({Nothing{}}));
  auto hibernated = healthy(0);
  CHECK(next_case(hibernated) == DruidCase::ReadyStaleTrue);  // no members, no quorum
}

TEST_CASE("druid quorum-loss recovery for a one-member cluster skips the wait",
          "[druid-proposal]") {
  auto o = healthy(1);
  o.sts_ready_replicas = 0;
  o.members_ready = 0;
  o.members_not_ready_past_grace = 1;
  o.ready = Tri::False;
  o.all_members_ready = Tri::False;
  CHECK(decide(o).steps ==
        steps({ScaleStatefulSet{0}, DeletePods{MemberSelector::All, 1, false}, ClearStatusMembers{},
               DeleteLeases{{0}}, CreateLeases{{0}}, SetClusterSize{1}, ScaleStatefulSet{1}}));
}

// ---- Rules outside the table ---------------------------------------------------------------

TEST_CASE("druid clusterSize: spec.replicas before bootstrap, member count while quorate",
          "[druid-proposal]") {
  DruidObservation fresh;
  fresh.desired_cluster_size = 3;
  CHECK(cluster_size_update(fresh) == 3);
  auto joined = healthy(3);
  joined.members_total = 4;  // one of two scale-up members joined
  joined.members_ready = 4;
  joined.sts_desired_replicas = 5;
  joined.sts_ready_replicas = 4;
  CHECK(cluster_size_update(joined) == std::nullopt);  // not every pod has its entry yet
  joined.members_total = 5;
  joined.members_ready = 5;
  joined.sts_ready_replicas = 5;
  CHECK(cluster_size_update(joined) == 5);
  joined.ready = Tri::False;
  CHECK(cluster_size_update(joined) == std::nullopt);
  CHECK(cluster_size_update(healthy(3)) == std::nullopt);
}

TEST_CASE("druid PDB: n/2+1, n without a good backup, Ready count without all members",
          "[druid-proposal]") {
  CHECK(pdb_min_available(1, 1, Tri::True, Tri::True) == std::nullopt);
  CHECK(pdb_min_available(3, 3, Tri::True, Tri::True) == 2);
  CHECK(pdb_min_available(5, 5, Tri::True, Tri::True) == 3);
  CHECK(pdb_min_available(3, 3, Tri::True, Tri::False) == 3);
  CHECK(pdb_min_available(3, 3, Tri::True, Tri::Unknown) == 3);
  CHECK(pdb_min_available(5, 4, Tri::False, Tri::True) == 4);  // no eviction of the 4 Ready
  CHECK(pdb_min_available(5, 2, Tri::False, Tri::True) == 3);  // highest applicable value
  CHECK(pdb_min_available(5, 4, Tri::False, Tri::False) == 5);
}

TEST_CASE("druid rolling updates only when fully healthy", "[druid-proposal]") {
  auto o = healthy(3);
  CHECK(may_roll_out_spec_change(o));
  o.backup_ready = Tri::False;
  CHECK_FALSE(may_roll_out_spec_change(o));
  o = healthy(3);
  o.all_members_ready = Tri::Unknown;
  CHECK_FALSE(may_roll_out_spec_change(o));
  o = healthy(3);
  o.ready = Tri::False;  // Ready alone does not gate; AllMembersReady implies it
  CHECK(may_roll_out_spec_change(o));
}

TEST_CASE("druid names are stable and kebab-case; seed numbers follow the table",
          "[druid-proposal]") {
  CHECK(name(DruidCase::PinkOfHealth) == "pink-of-health");
  CHECK(name(DruidCase::QuorumLostMajorityNotReady) == "quorum-lost-majority-not-ready");
  CHECK(seed_case_number(DruidCase::PinkOfHealth) == 1);
  CHECK(seed_case_number(DruidCase::QuorumLostMajorityNotReady) == 10);
  CHECK(seed_case_number(DruidCase::SuperfluousMemberEntries) == 13);
  CHECK(seed_case_number(DruidCase::Unclassified) == 0);
  std::set<std::string_view> names;
  for (const DruidCase c : kDruidPriority) names.insert(name(c));
  CHECK(names.size() == 13);
  CHECK(name(MemberReason::UnknownGracePeriodExceeded) == "UnknownGracePeriodExceeded");
}

TEST_CASE("druid: every consistent observation is classified, deterministically",
          "[druid-proposal]") {
  rc::prop("classify is non-empty, ordered by priority, and Unclassified only alone", [] {
    const auto small = [] { return *rc::gen::inRange(0, 8); };
    const auto tri = [] { return *rc::gen::element(Tri::False, Tri::True, Tri::Unknown); };
    DruidObservation o;
    o.desired_cluster_size = small();
    o.current_cluster_size = small();
    o.sts_desired_replicas = small();
    o.sts_ready_replicas = *rc::gen::inRange(0, o.sts_desired_replicas + 1);
    o.members_total = small();
    o.members_ready = *rc::gen::inRange(0, o.members_total + 1);
    o.members_not_ready_past_grace = *rc::gen::inRange(0, o.members_total - o.members_ready + 1);
    o.members_unknown_past_grace = *rc::gen::inRange(
        0, o.members_total - o.members_ready - o.members_not_ready_past_grace + 1);
    o.members_expired_lease = *rc::gen::inRange(0, o.members_total + 1);
    o.ready = tri();
    o.all_members_ready = tri();
    o.backup_ready = tri();
    RC_ASSERT(consistent(o));
    const auto cases = classify(o);
    RC_ASSERT(!cases.empty());
    RC_ASSERT(classify(o) == cases);
    if (cases.front() == DruidCase::Unclassified) {
      RC_ASSERT(cases.size() == 1U);
      RC_ASSERT(matches(DruidCase::Unclassified, o));
    } else {
      std::size_t last = 0;
      for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto at = static_cast<std::size_t>(
            std::find(kDruidPriority.begin(), kDruidPriority.end(), cases[i]) -
            kDruidPriority.begin());
        RC_ASSERT(at < kDruidPriority.size());
        RC_ASSERT((i == 0 || at > last));
        last = at;
        RC_ASSERT(matches(cases[i], o));
        RC_ASSERT(action(cases[i], o).from == cases[i]);  // every matching row has an action
      }
    }
    const DruidAction a = decide(o);
    RC_ASSERT(a.from == cases.front());
    RC_ASSERT(!a.steps.empty());
    RC_ASSERT(decide(o) == a);
  });
}
