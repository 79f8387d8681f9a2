// The seed's tables in a running simulation (mode proposal): across the proposal scenarios every
// druid case 1-13 is applied and every reachable init case runs, and what each action did
// shows in the trace (a pod deleted once, the restore and the joins after case 10, members
// removed after a scale-down, a roll-out and a drain held back while BackupReady is false).
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "druid_trace_rig.hpp"

namespace {

using hasim::druid_test::Json;
using hasim::druid_test::of_kind;
using hasim::druid_test::run_trace;

const std::vector<std::string> kProposalScenarios = {"late-member",
                                                     "quorum-lost",
                                                     "recovery-needs-backup-ready",
                                                     "scale-3-5-3",
                                                     "node-down",
                                                     "member-partitioned",
                                                     "outage-restores-backup",
                                                     "short-outage",
                                                     "volume-lost",
                                                     "data-corrupt",
                                                     "backup-failure"};

std::vector<Json> proposal_trace(const std::string& name) {
  return run_trace("scenarios/druid/druid-proposal-" + name + ".json");
}

std::vector<std::string> texts(const std::vector<Json>& events, const char* field) {
  std::vector<std::string> out;
  for (const Json& e : events) out.push_back(e.at(field).get<std::string>());
  return out;
}

}  // namespace

TEST_CASE("proposal: every druid case and every init case is reached", "[druid-proposal-sim][scenario-rerun]") {
  std::set<std::int64_t> druid_cases;
  std::set<std::int64_t> init_cases;
  std::set<std::string> init_names;
  for (const std::string& name : kProposalScenarios) {
    const std::vector<Json> events = proposal_trace(name);
    for (const Json& e : of_kind(events, "druid-case"))
      druid_cases.insert(e.at("case").get<std::int64_t>());
    for (const Json& e : of_kind(events, "druid-br-init-case")) {
      init_cases.insert(e.at("case").get<std::int64_t>());
      init_names.insert(e.at("name").get<std::string>());
    }
  }
  // 0: unclassified (a BackupReady that is Unknown is in no row), traced when it begins.
  CHECK(druid_cases == std::set<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13});
  // 0: the scale-up member (hasim's gap fill) and members that fit no row while they wait.
  CHECK(init_cases == std::set<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(init_names.contains("scale-up-member"));
}

TEST_CASE("proposal case 10: the cluster restored from member 0, the others join",
          "[druid-proposal-sim][scenario-rerun]") {
  const std::vector<Json> events = proposal_trace("quorum-lost");
  const std::vector<Json> recovery = of_kind(events, "druid-case");
  const auto ten = std::find_if(recovery.begin(), recovery.end(),
                                [](const Json& e) { return e.at("case") == 10; });
  REQUIRE(ten != recovery.end());
  CHECK(ten->at("steps") ==
        "scale-statefulset 0; delete-pods all; clear-members; delete-leases 0,1,2; "
        "create-leases 0,1,2; cluster-size 3; scale-statefulset 1; wait-ready 1; "
        "scale-statefulset 3");
  const std::vector<Json> restores = of_kind(events, "druid-br-restore");
  REQUIRE(restores.size() == 1);
  CHECK(restores[0].at("pod") == "etcd-main-0");
  CHECK(restores[0].at("t").get<std::int64_t>() > ten->at("t").get<std::int64_t>());
  std::map<std::string, std::int64_t> last_case;
  for (const Json& e : of_kind(events, "druid-br-init-case")) last_case[e.at("pod")] = e.at("case");
  CHECK(last_case == std::map<std::string, std::int64_t>{
                         {"etcd-main-0", 7}, {"etcd-main-1", 8}, {"etcd-main-2", 8}});
  CHECK(of_kind(events, "pod-ready").size() >= 6);  // three at bootstrap, three after
}

TEST_CASE("proposal case 9 deletes the NotReady pod once", "[druid-proposal-sim][scenario-rerun]") {
  const std::vector<Json> events = proposal_trace("node-down");
  std::vector<Json> by_druid;
  for (const Json& e : of_kind(events, "pod-deletion")) {
    if (e.at("reason") == "etcd-druid") by_druid.push_back(e);
  }
  REQUIRE(by_druid.size() == 1);
  CHECK(by_druid[0].at("pod") == "etcd-main-0");
}

TEST_CASE("proposal cases 11-13: scale up without a roll, down with the members removed",
          "[druid-proposal-sim][scenario-rerun]") {
  const std::vector<Json> events = proposal_trace("scale-3-5-3");
  std::vector<std::string> removed;
  for (const Json& e : of_kind(events, "druid-br-member-call")) {
    if (e.at("call") == "member-remove-superfluous") removed.push_back(e.at("outcome"));
  }
  CHECK(removed == std::vector<std::string>{"Removed", "Removed"});
  std::vector<std::string> joins;
  for (const Json& e : of_kind(events, "druid-br-init-case")) {
    if (e.at("name") == "scale-up-member") joins.push_back(e.at("pod"));
  }
  CHECK(joins == std::vector<std::string>{"etcd-main-3", "etcd-main-4"});
  // The scale-up rolled no running pod: only the scale-down deleted pods.
  for (const Json& e : of_kind(events, "pod-deletion")) CHECK(e.at("reason") == "scale-down");
  std::vector<std::string> absent;
  for (const Json& e : of_kind(events, "druid-member-status")) {
    if (e.at("status") == "Absent") absent.push_back(e.at("member"));
  }
  CHECK(absent == std::vector<std::string>{"etcd-main-3", "etcd-main-4"});
}

TEST_CASE("proposal case 7: an Unknown member turns NotReady after the grace period",
          "[druid-proposal-sim][scenario-rerun]") {
  const std::vector<Json> events = proposal_trace("member-partitioned");
  std::vector<std::string> statuses;
  for (const Json& e : of_kind(events, "druid-member-status")) {
    if (e.at("member") == "etcd-main-0") {
      statuses.push_back(e.at("status").get<std::string>() + "/" +
                         e.at("reason").get<std::string>());
    }
  }
  // Added at its first heartbeat, judged Ready; cut off: Lease expired, then past the grace.
  CHECK(statuses == std::vector<std::string>{
                        "Unknown/LeaseSucceeded", "Ready/LeaseSucceeded", "Unknown/LeaseExpired",
                        "NotReady/UnknownGracePeriodExceeded", "Ready/LeaseSucceeded"});
  CHECK(texts(of_kind(events, "druid-spec-rollout"), "outcome").empty());
}

TEST_CASE("proposal: a roll-out and a drain wait for BackupReady", "[druid-proposal-sim][scenario-rerun]") {
  const std::vector<Json> events = proposal_trace("backup-failure");
  const std::vector<Json> rollout = of_kind(events, "druid-spec-rollout");
  CHECK(texts(rollout, "outcome") == std::vector<std::string>{"pending", "applied"});
  std::vector<std::int64_t> min_available;
  for (const Json& e : of_kind(events, "druid-pdb")) min_available.push_back(e.at("min_available"));
  CHECK(min_available == std::vector<std::int64_t>{3, 2, 3, 2});
  // Every eviction before the roll-out was refused; the first pod the update deleted went
  // after BackupReady turned true again.
  const std::int64_t applied = rollout.back().at("t");
  for (const Json& e : of_kind(events, "pod-eviction")) {
    if (e.at("t").get<std::int64_t>() < applied) CHECK(e.at("outcome") == "too-many-requests");
  }
  for (const Json& e : of_kind(events, "pod-deletion")) {
    if (e.at("reason") == "update") CHECK(e.at("t").get<std::int64_t>() > applied);
  }
}
