// The seed's etcd-backup-restore initialization table in proposal mode
// (models/druid/proposal_init_table.hpp): one test per case, priority, ambiguities, gaps.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <vector>

#include "models/druid/proposal_init_table.hpp"

using namespace hasim::druid::proposal;

// ---- Init cases, one each -----------------------------------------------------------------

namespace {

InitObservation init(int n, int m, int r) {
  return {.cluster_size = n, .members_total = m, .members_ready = r};
}

InitObservation member_with_data(int n, int m, int r) {
  auto o = init(n, m, r);
  o.status_has_self = true;
  o.wal_has_metadata = true;
  o.data_valid = true;
  o.backup_exists = true;
  return o;
}
}  // namespace

using enum InitialClusterState;
using enum DataPreparation;

TEST_CASE("init case 1: first member of a fresh cluster", "[druid-proposal]") {
  const auto o = init(3, 0, 0);
  CHECK(classify(o) == std::vector{InitCase::FreshBootstrapFirstMember,
                                   InitCase::NonQuorateFirstMemberInvalidData});
  CHECK(decide(o) == InitAction{.from = InitCase::FreshBootstrapFirstMember,
                                .initial_cluster_peers = 3,
                                .initial_cluster_state = New});
}

TEST_CASE("init case 2: following member of a fresh cluster", "[druid-proposal]") {
  const auto o = init(3, 2, 2);
  CHECK(next_case(o) == InitCase::FreshBootstrapFollowingMember);
  CHECK(decide(o) == InitAction{.from = InitCase::FreshBootstrapFollowingMember,
                                .initial_cluster_peers = 3,
                                .initial_cluster_state = New});
}

TEST_CASE("init case 3: restart in a quorate cluster with valid metadata and data",
          "[druid-proposal]") {
  const auto o = member_with_data(3, 3, 3);
  CHECK(classify(o) == std::vector{InitCase::QuorateRestartValid});
  CHECK(decide(o) ==
        InitAction{.from = InitCase::QuorateRestartValid, .reuse_previous_config = true});
}

TEST_CASE("init case 4: restart in a quorate cluster, valid metadata, invalid data",
          "[druid-proposal]") {
  auto o = member_with_data(3, 3, 2);
  o.data_valid = false;
  o.backup_has_incrementals = true;
  CHECK(classify(o) == std::vector{InitCase::QuorateRestartInvalidData});
  InitAction expected{.from = InitCase::QuorateRestartInvalidData,
                      .remove_self = true,
                      .add_self = true,
                      .data = RestoreFullOnly,  // deltas are never replayed when joining
                      .initial_cluster_peers = 3,
                      .initial_cluster_state = Existing};
  CHECK(decide(o) == expected);
  o.backup_exists = false;
  o.backup_has_incrementals = false;
  expected.data = EmptyDirs;
  CHECK(decide(o) == expected);
}

TEST_CASE("init case 5: restart in a quorate cluster without valid metadata", "[druid-proposal]") {
  auto o = member_with_data(3, 3, 2);
  o.wal_has_metadata = false;  // data column N/A: valid data does not help
  CHECK(classify(o) == std::vector{InitCase::QuorateRestartNoMetadata});
  CHECK(decide(o) == InitAction{.from = InitCase::QuorateRestartNoMetadata,
                                .remove_self = true,
                                .add_self = true,
                                .data = RestoreFullOnly,
                                .initial_cluster_peers = 3,
                                .initial_cluster_state = Existing});
}

TEST_CASE("init case 6: restart in a non-quorate cluster with valid metadata and data",
          "[druid-proposal]") {
  const auto o = member_with_data(3, 1, 1);  // the seed's m < n/2, r < n/2
  CHECK(classify(o) == std::vector{InitCase::NonQuorateRestartValid});
  CHECK(decide(o) ==
        InitAction{.from = InitCase::NonQuorateRestartValid, .reuse_previous_config = true});
}

TEST_CASE("init case 7: first member of a non-quorate cluster without valid data",
          "[druid-proposal]") {
  auto o = init(3, 0, 0);
  o.wal_has_metadata = true;
  o.backup_exists = true;
  o.backup_has_incrementals = true;
  CHECK(classify(o) == std::vector{InitCase::NonQuorateFirstMemberInvalidData});
  InitAction expected{.from = InitCase::NonQuorateFirstMemberInvalidData,
                      .data = RestoreFull,
                      .single_member_bootstrap = true,
                      .apply_incrementals = true,
                      .upload_full_snapshot = true,
                      .initial_cluster_peers = 3,
                      .initial_cluster_state = New};
  CHECK(decide(o) == expected);
  o.backup_has_incrementals = false;  // nothing applied: no new full snapshot
  expected.apply_incrementals = false;
  expected.upload_full_snapshot = false;
  CHECK(decide(o) == expected);
  o.backup_exists = false;  // no backup: an empty single-member start
  expected.data = EmptyDirs;
  CHECK(decide(o) == expected);
}

TEST_CASE("init case 8: following member of a non-quorate cluster without valid data",
          "[druid-proposal]") {
  auto o = init(5, 2, 2);  // the seed's 1 < m < n
  o.backup_exists = true;
  CHECK(classify(o) == std::vector{InitCase::NonQuorateFollowingMemberInvalidData});
  // add_self: "existing" needs the MemberAdd the seed leaves out.
  CHECK(decide(o) == InitAction{.from = InitCase::NonQuorateFollowingMemberInvalidData,
                                .add_self = true,
                                .data = RestoreFullOnly,
                                .initial_cluster_peers = 5,
                                .initial_cluster_state = Existing});
}

// ---- Init priority and ambiguities ---------------------------------------------------------

TEST_CASE("init priority: fresh bootstrap over recovery when nothing is persisted",
          "[druid-proposal]") {
  CHECK(classify(init(3, 2, 2)) == std::vector{InitCase::FreshBootstrapFollowingMember,
                                               InitCase::NonQuorateFollowingMemberInvalidData});
  std::set<InitCase> seen(kInitPriority.begin(), kInitPriority.end());
  CHECK(seen.size() == 8);
}

TEST_CASE("init ambiguity: the second member of a recovery (m = r = 1) is case 8",
          "[druid-proposal]") {
  auto o = init(3, 1, 1);
  o.backup_exists = true;
  CHECK(next_case(o) == InitCase::NonQuorateFollowingMemberInvalidData);
}

TEST_CASE("init ambiguity: non-quorate means 2r <= n, whatever m", "[druid-proposal]") {
  CHECK(next_case(member_with_data(3, 3, 1)) == InitCase::NonQuorateRestartValid);
  CHECK(next_case(member_with_data(4, 4, 2)) == InitCase::NonQuorateRestartValid);
  CHECK(next_case(member_with_data(3, 3, 2)) == InitCase::QuorateRestartValid);
}

TEST_CASE("init gaps: rows the seed does not have fail initialization", "[druid-proposal]") {
  // Non-quorate, own entry, data lost: wait (by failing) for druid case 10 to clear status.
  auto lost = member_with_data(3, 3, 1);
  lost.data_valid = false;
  CHECK(classify(lost) == std::vector{InitCase::Unclassified});
  CHECK(decide(lost).fail);
  // After druid case 10 cleared the status, a member that kept valid data (persistent
  // volume) is in no row: 7 and 8 need invalid data, 3 and 6 need an own entry.
  auto kept = member_with_data(3, 0, 0);
  kept.status_has_self = false;
  CHECK(next_case(kept) == InitCase::Unclassified);
  // A scale-up joiner while clusterSize is still the old size: no row either.
  auto joiner = init(3, 3, 3);
  joiner.backup_exists = true;
  CHECK(next_case(joiner) == InitCase::Unclassified);
}

TEST_CASE("init names are stable and kebab-case", "[druid-proposal]") {
  CHECK(name(InitCase::FreshBootstrapFirstMember) == "fresh-bootstrap-first-member");
  CHECK(seed_case_number(InitCase::NonQuorateFollowingMemberInvalidData) == 8);
  CHECK(seed_case_number(InitCase::Unclassified) == 0);
  CHECK(name(DataPreparation::RestoreFullOnly) == "restore-full-only");
  CHECK(name(InitialClusterState::Existing) == "existing");
}

TEST_CASE("init: every consistent observation is classified, deterministically",
          "[druid-proposal]") {
  rc::prop("classify is non-empty, ordered, Unclassified only alone, and fails then", [] {
    InitObservation o;
    o.cluster_size = *rc::gen::inRange(0, 8);
    o.members_total = *rc::gen::inRange(0, 8);
    o.members_ready = *rc::gen::inRange(0, o.members_total + 1);
    o.status_has_self = o.members_total > 0 && *rc::gen::arbitrary<bool>();
    o.wal_has_metadata = *rc::gen::arbitrary<bool>();
    o.data_valid = *rc::gen::arbitrary<bool>();
    o.backup_exists = *rc::gen::arbitrary<bool>();
    o.backup_has_incrementals = o.backup_exists && *rc::gen::arbitrary<bool>();
    RC_ASSERT(consistent(o));
    const auto cases = classify(o);
    RC_ASSERT(!cases.empty());
    RC_ASSERT(classify(o) == cases);
    const bool unclassified = cases.front() == InitCase::Unclassified;
    // Whole conditions in parentheses: RC_ASSERT captures the left operand, and an
    // overloaded || would evaluate cases[1] even when there is no second case.
    RC_ASSERT((!unclassified || cases.size() == 1U));
    RC_ASSERT(cases.size() <= 2U);  // the only overlaps: fresh bootstrap with recovery
    const bool overlapIsRecovery = cases.size() == 1U ||
                                   cases[1] == InitCase::NonQuorateFirstMemberInvalidData ||
                                   cases[1] == InitCase::NonQuorateFollowingMemberInvalidData;
    RC_ASSERT(overlapIsRecovery);
    for (std::size_t i = 1; i < cases.size(); ++i) {
      const auto rank = [](InitCase c) {
        return std::find(kInitPriority.begin(), kInitPriority.end(), c) - kInitPriority.begin();
      };
      RC_ASSERT(rank(cases[i - 1]) < rank(cases[i]));
    }
    const InitAction a = decide(o);
    RC_ASSERT(a.from == cases.front());
    RC_ASSERT(a.fail == unclassified);
    RC_ASSERT(decide(o) == a);
  });
}
