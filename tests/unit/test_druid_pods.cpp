// etcd-druid's pods in a simulation (scenarios/druid, scenarios/workloads, models/druid): the
// scenarios run end to end and their traces show each step upstream takes: druid's Leases and
// StatefulSet, scheduling, the sidecar's Initialize decision, etcd-wrapper starting etcd,
// readiness, the Lease heartbeat and druid's status.
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "druid_trace_rig.hpp"
#include "scenario_loader_helpers.hpp"
#include "scenarios/loader.hpp"

namespace {

using hasim::druid_test::Json;
using hasim::druid_test::of_kind;
using hasim::druid_test::run_trace;

// The last value of `field` that events of `kind` gave each pod.
std::map<std::string, std::string> last_by_pod(const std::vector<Json>& events,
                                               std::string_view kind, const std::string& field) {
  std::map<std::string, std::string> out;
  for (const Json& e : of_kind(events, kind)) {
    const Json& value = e.at(field);
    out[e.at("pod").get<std::string>()] =
        value.is_string() ? value.get<std::string>() : value.dump();
  }
  return out;
}

}  // namespace

TEST_CASE("druid bootstrap: pods spread, etcd starts fresh, members and conditions Ready",
          "[druid-pods][scenario-rerun]") {
  const auto events = run_trace("scenarios/druid/druid-bootstrap-3.json");
  // Hostname anti-affinity: one pod per worker.
  std::set<std::string> nodes;
  for (const Json& e : of_kind(events, "pod-scheduled")) {
    nodes.insert(e.at("node").get<std::string>());
  }
  CHECK(nodes == std::set<std::string>{"w-1", "w-2", "w-3"});
  CHECK(of_kind(events, "pv-provisioned").size() == 3);
  // No member answers yet and the Leases have no holder: a fresh start, state "new".
  const auto actions = last_by_pod(events, "druid-br-init", "action");
  CHECK(actions == std::map<std::string, std::string>{{"etcd-main-0", "FreshStart"},
                                                      {"etcd-main-1", "FreshStart"},
                                                      {"etcd-main-2", "FreshStart"}});
  const auto states = last_by_pod(events, "druid-etcd-start", "state");
  for (const auto& [pod, state] : states) CHECK(state == "new");
  CHECK(last_by_pod(events, "druid-etcd-start", "member") ==
        std::map<std::string, std::string>{
            {"etcd-main-0", "1"}, {"etcd-main-1", "2"}, {"etcd-main-2", "3"}});
  CHECK(of_kind(events, "pod-ready").size() == 3);
  // druid's status: every member Ready by its Lease, the cluster quorate and all ready.
  std::map<std::string, std::string> status;
  for (const Json& e : of_kind(events, "druid-member-status")) {
    status[e.at("member").get<std::string>()] = e.at("status").get<std::string>();
  }
  CHECK(status == std::map<std::string, std::string>{{"etcd-main-0", "Ready"},
                                                     {"etcd-main-1", "Ready"},
                                                     {"etcd-main-2", "Ready"}});
  std::map<std::string, std::string> conditions;
  for (const Json& e : of_kind(events, "druid-condition")) {
    conditions[e.at("type").get<std::string>()] = e.at("status").get<std::string>();
  }
  CHECK(conditions.at("Ready") == "True");
  CHECK(conditions.at("AllMembersReady") == "True");
}

TEST_CASE("druid: a deleted pod with a PersistentVolumeClaim rejoins with its member ID",
          "[druid-pods][scenario-rerun]") {
  const auto events = run_trace("scenarios/druid/druid-pod-deleted-pvc.json");
  REQUIRE(of_kind(events, "pod-gone").size() == 1);
  // Scheduled again where its volume is: zone c has one worker.
  const auto scheduled = of_kind(events, "pod-scheduled");
  REQUIRE(scheduled.size() == 4);
  CHECK(scheduled.back().at("pod") == "etcd-main-1");
  CHECK(scheduled.back().at("node") == "w-3");
  // Listed, and its data valid: etcd starts on it as member 2 again; no membership change.
  CHECK(last_by_pod(events, "druid-br-init", "action").at("etcd-main-1") == "UseExistingData");
  const auto starts = of_kind(events, "druid-etcd-start");
  REQUIRE(starts.size() == 4);
  CHECK(starts.back().at("pod") == "etcd-main-1");
  CHECK(starts.back().at("member") == 2);
  CHECK(of_kind(events, "druid-br-member-call").empty());
  CHECK(of_kind(events, "pod-ready").size() == 4);
}

TEST_CASE("druid: a deleted pod with an emptyDir is repaired as a new learner and promoted",
          "[druid-pods][scenario-rerun]") {
  const auto events = run_trace("scenarios/druid/druid-pod-deleted-emptydir.json");
  CHECK(last_by_pod(events, "druid-br-init", "action").at("etcd-main-1") == "MemberRepair");
  // remove the old ID, add a new one as a learner, then promote it: in that order.
  std::vector<std::string> calls;
  for (const Json& e : of_kind(events, "druid-br-member-call")) {
    calls.push_back(e.at("call").get<std::string>() + " " + e.at("member").dump() + " " +
                    e.at("outcome").get<std::string>());
  }
  CHECK(calls == std::vector<std::string>{"member-remove 2 Removed", "member-add-learner 4 Added",
                                          "member-promote 4 Promoted"});
  const auto starts = of_kind(events, "druid-etcd-start");
  REQUIRE(starts.size() == 4);
  CHECK(starts.back().at("member") == 4);
  CHECK(starts.back().at("state") == "existing");
  CHECK(of_kind(events, "pod-ready").size() == 4);
  // druid's status follows the Lease to the new member ID.
  std::string id;
  for (const Json& e : of_kind(events, "druid-member-status")) {
    if (e.at("member") == "etcd-main-1") id = e.at("id").get<std::string>();
  }
  CHECK(id == "4");
}

TEST_CASE("druid: a drain evicts within the PodDisruptionBudget and waits on its 429s",
          "[druid-pods][scenario-rerun]") {
  const auto events = run_trace("scenarios/druid/druid-drain-blocked-by-pdb.json");
  std::map<std::string, int> outcomes;
  for (const Json& e : of_kind(events, "pod-eviction")) {
    ++outcomes[e.at("pod").get<std::string>() + " " + e.at("outcome").get<std::string>()];
  }
  // One eviction allowed at first; the second drain is refused until the first pod is back.
  CHECK(outcomes.at("etcd-main-2 deleted-within-budget") == 1);
  CHECK(outcomes.at("etcd-main-0 deleted-within-budget") == 1);
  CHECK(outcomes.at("etcd-main-0 too-many-requests") == 50);
  // Once the cluster is up, the budget never lets the healthy pods fall below minAvailable.
  bool up = false;
  for (const Json& e : of_kind(events, "pdb-status")) {
    CHECK(e.at("desired_healthy").get<int>() == 2);
    up = up || e.at("current_healthy").get<int>() == 3;
    if (up) CHECK(e.at("current_healthy").get<int>() >= 2);
  }
  CHECK(up);
  // The evicted pod cannot come back while its node is cordoned: its volume pins the zone.
  const auto pending = of_kind(events, "pod-unschedulable");
  REQUIRE_FALSE(pending.empty());
  CHECK(pending.front().at("message") ==
        "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) had no available "
        "volume zone.");
  CHECK(of_kind(events, "pod-ready").size() == 5);
}

TEST_CASE("druid: a zone out keeps quorum; the evicted pod waits for its node",
          "[druid-pods][scenario-rerun]") {
  const auto events = run_trace("scenarios/druid/druid-zone-outage.json");
  // Evicted at 1m40s + 300s, gone only when its node is back at 11m.
  const auto deletions = of_kind(events, "pod-deletion");
  REQUIRE(deletions.size() == 1);
  CHECK(deletions.front().at("reason") == "taint-eviction");
  CHECK(deletions.front().at("t") == 400'000'000'000);
  const auto gone = of_kind(events, "pod-gone");
  REQUIRE(gone.size() == 1);
  CHECK(gone.front().at("t") == 660'000'000'000);
  // The Ready condition never leaves True: two of three members serve throughout.
  for (const Json& e : of_kind(events, "druid-condition")) {
    if (e.at("type") == "Ready" && e.at("t").get<std::int64_t>() > 45'000'000'000) {
      CHECK(e.at("status") == "True");
    }
  }
  CHECK(last_by_pod(events, "druid-br-init", "action").at("etcd-main-0") == "UseExistingData");
}

TEST_CASE("druid: a rolling update replaces the pods from the highest ordinal, one Ready at a time",
          "[druid-pods][scenario-rerun]") {
  const auto events = run_trace("scenarios/druid/druid-rolling-update.json");
  std::vector<std::string> order;
  for (const Json& e : of_kind(events, "pod-deletion")) {
    CHECK(e.at("reason") == "update");
    order.push_back(e.at("pod").get<std::string>());
  }
  CHECK(order == std::vector<std::string>{"etcd-main-2", "etcd-main-1", "etcd-main-0"});
  // Each deletion waits for the pod replaced before it to be Ready again.
  const auto deletions = of_kind(events, "pod-deletion");
  for (std::size_t i = 1; i < deletions.size(); ++i) {
    std::int64_t ready_at = -1;
    for (const Json& e : of_kind(events, "pod-ready")) {
      if (e.at("pod") == deletions[i - 1].at("pod")) ready_at = e.at("t").get<std::int64_t>();
    }
    CHECK(ready_at > deletions[i - 1].at("t").get<std::int64_t>());
    CHECK(ready_at < deletions[i].at("t").get<std::int64_t>());
  }
  // The leader's etcd hands leadership over before it stops (etcd's graceful Stop).
  const auto transfers = of_kind(events, "etcd-move-leader");
  REQUIRE(transfers.size() == 1);
  CHECK(transfers.front().at("result") == "shutdown-transfer");
  CHECK(transfers.front().at("lead") == transfers.front().at("transferee"));
  const auto revisions = of_kind(events, "sts-revision");
  REQUIRE(revisions.size() == 2);
  CHECK(revisions.back().at("current_revision") == "etcd-main-v3.5.17-c3");
}

TEST_CASE("druid: an image that cannot be pulled stops the rollout at the first pod",
          "[druid-pods][scenario-rerun]") {
  const auto events = run_trace("scenarios/druid/druid-image-pull-fails.json");
  CHECK(of_kind(events, "pod-deletion").size() == 1);
  CHECK(of_kind(events, "pod-image-pull-backoff").size() == 1);
  CHECK(of_kind(events, "sts-revision").size() == 1);  // never completes
  std::map<std::string, std::string> status;
  for (const Json& e : of_kind(events, "druid-member-status")) {
    status[e.at("member").get<std::string>()] = e.at("reason").get<std::string>();
  }
  CHECK(status.at("etcd-main-2") == "ContainersNotReady");
}

TEST_CASE("druid: a crash loop backs off 10 s doubling, past the end of the loop",
          "[druid-pods][scenario-rerun]") {
  const auto events = run_trace("scenarios/druid/druid-crash-loop.json");
  std::vector<std::int64_t> waits;
  for (const Json& e : of_kind(events, "kubelet-restart")) {
    if (e.at("process") == "w-3/etcd-main-1.etcd")
      waits.push_back(e.at("after_ns").get<std::int64_t>() / 1'000'000'000);
  }
  CHECK(waits == std::vector<std::int64_t>{0, 10, 20, 40, 80, 160});
  const auto starts = of_kind(events, "druid-etcd-start");
  REQUIRE(starts.size() == 4);
  CHECK(starts.back().at("t") == 372'002'200'000);  // 210 s + 160 s, then the wrapper's init
}
