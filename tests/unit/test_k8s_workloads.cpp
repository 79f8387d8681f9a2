// The Kubernetes pieces an operator stands on (models/cluster): the StatefulSet controller's
// sync, PodDisruptionBudgets and evictions, and where the scheduler may put a pod.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <algorithm>

#include "models/cluster/disruption.hpp"
#include "models/cluster/pod_placement.hpp"
#include "models/cluster/statefulset_control.hpp"

using namespace hasim;
using namespace hasim::cluster;

namespace {

using Kind = SetAction::Kind;
using Reason = SetAction::Reason;

StatefulPod ready_pod(int ordinal, std::string revision = "r1") {
  return StatefulPod{ordinal, std::move(revision), PodPhase::Running, true, LocalTime{}, false};
}
StatefulPod pending_pod(int ordinal, std::string revision = "r1") {
  return StatefulPod{ordinal, std::move(revision), PodPhase::Pending, false, LocalTime{}, false};
}

StatefulSetSpec spec_of(int replicas, PodManagementPolicy policy) {
  StatefulSetSpec spec;
  spec.replicas = replicas;
  spec.podManagementPolicy = policy;
  spec.currentRevision = "r1";
  spec.updateRevision = "r1";
  return spec;
}

SetAction create(int ordinal, std::string revision = "r1") {
  return {Kind::Create, Reason::Missing, ordinal, std::move(revision)};
}
SetAction remove(int ordinal, Reason reason) { return {Kind::Delete, reason, ordinal, {}}; }

const LocalTime kNow{1'000'000'000'000};

}  // namespace

TEST_CASE("statefulset: Parallel creates every missing ordinal at once", "[k8s-workloads]") {
  const auto spec = spec_of(3, PodManagementPolicy::Parallel);
  CHECK(sync_stateful_set(spec, {}, kNow) ==
        std::vector<SetAction>{create(0), create(1), create(2)});
  // Nothing waits for the others to be Ready: pod 2 is made beside a Pending pod 0.
  CHECK(sync_stateful_set(spec, {pending_pod(0), ready_pod(1)}, kNow) ==
        std::vector<SetAction>{create(2)});
}

TEST_CASE("statefulset: OrderedReady creates one pod after its predecessors are Ready",
          "[k8s-workloads]") {
  const auto spec = spec_of(3, PodManagementPolicy::OrderedReady);
  CHECK(sync_stateful_set(spec, {}, kNow) == std::vector<SetAction>{create(0)});
  CHECK(sync_stateful_set(spec, {pending_pod(0)}, kNow).empty());
  CHECK(sync_stateful_set(spec, {ready_pod(0)}, kNow) == std::vector<SetAction>{create(1)});
}

TEST_CASE("statefulset: minReadySeconds holds OrderedReady until the pod is available",
          "[k8s-workloads]") {
  auto spec = spec_of(2, PodManagementPolicy::OrderedReady);
  spec.minReadySeconds = seconds(10);
  StatefulPod pod0 = ready_pod(0);
  pod0.readySince = kNow - seconds(10);  // exactly 10 s: not yet (Before is strict)
  CHECK(sync_stateful_set(spec, {pod0}, kNow).empty());
  pod0.readySince = kNow - seconds(10) - nanoseconds(1);
  CHECK(sync_stateful_set(spec, {pod0}, kNow) == std::vector<SetAction>{create(1)});
}

TEST_CASE("statefulset: a Failed pod is deleted, then created again on a later sync",
          "[k8s-workloads]") {
  const auto spec = spec_of(3, PodManagementPolicy::Parallel);
  StatefulPod failed = ready_pod(1);
  failed.phase = PodPhase::Failed;
  failed.ready = false;
  CHECK(sync_stateful_set(spec, {ready_pod(0), failed, ready_pod(2)}, kNow) ==
        std::vector<SetAction>{remove(1, Reason::Terminal)});
  failed.terminating = true;  // the delete is in progress: no second call
  CHECK(sync_stateful_set(spec, {ready_pod(0), failed, ready_pod(2)}, kNow).empty());
  CHECK(sync_stateful_set(spec, {ready_pod(0), ready_pod(2)}, kNow) ==
        std::vector<SetAction>{create(1)});
}

TEST_CASE("statefulset: scale down deletes condemned pods, all at once only with Parallel",
          "[k8s-workloads]") {
  const std::vector<StatefulPod> five{ready_pod(0), ready_pod(1), ready_pod(2), ready_pod(3),
                                      ready_pod(4)};
  CHECK(sync_stateful_set(spec_of(3, PodManagementPolicy::Parallel), five, kNow) ==
        std::vector<SetAction>{remove(4, Reason::ScaleDown), remove(3, Reason::ScaleDown)});
  CHECK(sync_stateful_set(spec_of(3, PodManagementPolicy::OrderedReady), five, kNow) ==
        std::vector<SetAction>{remove(4, Reason::ScaleDown)});
  // OrderedReady: an unhealthy condemned pod that is not the first unhealthy one waits.
  const auto ordered = spec_of(3, PodManagementPolicy::OrderedReady);
  std::vector<StatefulPod> blocked = five;
  blocked[4].ready = false;
  blocked[3].ready = false;  // the first unhealthy pod is 3, so 4 waits for it
  CHECK(sync_stateful_set(ordered, blocked, kNow).empty());
  blocked[4].ready = true;
  CHECK(sync_stateful_set(ordered, blocked, kNow) ==
        std::vector<SetAction>{remove(4, Reason::ScaleDown)});
  blocked[4].ready = false;  // the first unhealthy pod itself may go
  blocked[3].ready = true;
  CHECK(sync_stateful_set(ordered, blocked, kNow) ==
        std::vector<SetAction>{remove(4, Reason::ScaleDown)});
}

TEST_CASE("statefulset: RollingUpdate goes from the highest ordinal, one pod at a time",
          "[k8s-workloads]") {
  auto spec = spec_of(3, PodManagementPolicy::Parallel);
  spec.updateRevision = "r2";
  std::vector<StatefulPod> pods{ready_pod(0), ready_pod(1), ready_pod(2)};
  CHECK(sync_stateful_set(spec, pods, kNow) == std::vector<SetAction>{remove(2, Reason::Update)});
  pods[2].terminating = true;  // waiting for it to go
  CHECK(sync_stateful_set(spec, pods, kNow).empty());
  pods[2] = pending_pod(2, "r2");  // recreated at r2, not Ready yet: wait
  CHECK(sync_stateful_set(spec, pods, kNow).empty());
  pods[2] = ready_pod(2, "r2");
  CHECK(sync_stateful_set(spec, pods, kNow) == std::vector<SetAction>{remove(1, Reason::Update)});
}

TEST_CASE("statefulset: RollingUpdate ignores unhealthy pods below its target (Parallel)",
          "[k8s-workloads]") {
  // Pod 0 is down, yet pod 2 is deleted for the update: with 3 etcd members that is quorum
  // lost for as long as both are away (why druid's DEP-07 proposes a health-aware updater).
  auto spec = spec_of(3, PodManagementPolicy::Parallel);
  spec.updateRevision = "r2";
  StatefulPod down = ready_pod(0);
  down.ready = false;
  CHECK(sync_stateful_set(spec, {down, ready_pod(1), ready_pod(2)}, kNow) ==
        std::vector<SetAction>{remove(2, Reason::Update)});
}

TEST_CASE("statefulset: the partition keeps lower ordinals at currentRevision", "[k8s-workloads]") {
  auto spec = spec_of(3, PodManagementPolicy::Parallel);
  spec.updateRevision = "r2";
  spec.partition = 2;
  std::vector<StatefulPod> pods{ready_pod(0), ready_pod(1), ready_pod(2, "r2")};
  CHECK(sync_stateful_set(spec, pods, kNow).empty());
  // A pod below the partition that is recreated comes back at currentRevision.
  CHECK(sync_stateful_set(spec, {ready_pod(0), ready_pod(2, "r2")}, kNow) ==
        std::vector<SetAction>{create(1, "r1")});
  // At the partition itself, updateRevision.
  CHECK(sync_stateful_set(spec, {ready_pod(0), ready_pod(1)}, kNow) ==
        std::vector<SetAction>{create(2, "r2")});
  spec.updateStrategy = UpdateStrategyType::OnDelete;
  spec.partition = 0;
  CHECK(sync_stateful_set(spec, pods, kNow).empty());  // OnDelete: never deleted for update
}

TEST_CASE("statefulset: repeated syncs converge to the spec (property)", "[k8s-workloads]") {
  rc::prop("from any pods, syncs with pods turning Ready reach replicas pods at updateRevision",
           [](bool parallel, bool onDelete) {
             const int replicas = *rc::gen::inRange(0, 6);
             auto spec = spec_of(replicas, parallel ? PodManagementPolicy::Parallel
                                                    : PodManagementPolicy::OrderedReady);
             spec.updateRevision = "r2";
             spec.updateStrategy =
                 onDelete ? UpdateStrategyType::OnDelete : UpdateStrategyType::RollingUpdate;
             std::vector<StatefulPod> pods;
             for (int ordinal = 0; ordinal < 7; ++ordinal) {
               if (*rc::gen::arbitrary<bool>()) pods.push_back(ready_pod(ordinal, "r1"));
             }
             for (int round = 0; round < 100; ++round) {
               const auto actions = sync_stateful_set(spec, pods, kNow);
               if (actions.empty()) break;
               // At most one deletion for the update per sync, as upstream.
               RC_ASSERT(std::count_if(actions.begin(), actions.end(), [](const SetAction& a) {
                           return a.reason == Reason::Update;
                         }) <= 1);
               for (const SetAction& a : actions) {
                 auto it = std::find_if(pods.begin(), pods.end(), [&a](const StatefulPod& p) {
                   return p.ordinal == a.ordinal;
                 });
                 if (a.kind == Kind::Delete)
                   pods.erase(it);  // deleted at once
                 else
                   pods.push_back(ready_pod(a.ordinal, a.revision));
               }
             }
             RC_ASSERT(sync_stateful_set(spec, pods, kNow).empty());
             RC_ASSERT(pods.size() == static_cast<std::size_t>(replicas));
             for (const StatefulPod& p : pods) {
               RC_ASSERT(p.ordinal < replicas);
               if (!onDelete) RC_ASSERT(p.revision == "r2");
             }
           });
}

// --- PodDisruptionBudget --------------------------------------------------------------------

namespace {

BudgetPod budget_pod(std::string name, bool ready = true) {
  return BudgetPod{std::move(name), PodPhase::Running, ready, false};
}

}  // namespace

TEST_CASE("pdb: disruptionsAllowed is currentHealthy minus minAvailable, never negative",
          "[k8s-workloads]") {
  const std::vector<BudgetPod> pods{budget_pod("etcd-0"), budget_pod("etcd-1"),
                                    budget_pod("etcd-2", false)};
  PdbStatus status = compute_pdb_status(2, pods, {}, kNow);
  CHECK(status.expectedPods == 3);
  CHECK(status.currentHealthy == 2);
  CHECK(status.desiredHealthy == 2);
  CHECK(status.disruptionsAllowed == 0);
  CHECK(compute_pdb_status(1, pods, {}, kNow).disruptionsAllowed == 1);
  CHECK(compute_pdb_status(0, {}, {}, kNow).disruptionsAllowed == 0);  // no pods: nothing
}

TEST_CASE("pdb: an evicted pod stays out of currentHealthy for 2 minutes unless it goes",
          "[k8s-workloads]") {
  const std::vector<BudgetPod> pods{budget_pod("etcd-0"), budget_pod("etcd-1"),
                                    budget_pod("etcd-2")};
  const std::map<std::string, LocalTime> evicted{{"etcd-1", kNow}};
  CHECK(compute_pdb_status(2, pods, evicted, kNow).currentHealthy == 2);
  CHECK(compute_pdb_status(2, pods, evicted, kNow + minutes(2) - nanoseconds(1)).currentHealthy ==
        2);
  // At exactly 2 minutes the entry is kept but no longer After now: counted again.
  const PdbStatus at = compute_pdb_status(2, pods, evicted, kNow + minutes(2));
  CHECK(at.currentHealthy == 3);
  CHECK(at.disruptedPods.size() == 1);
  // Past it, "NotDeleted": dropped from the map.
  CHECK(compute_pdb_status(2, pods, evicted, kNow + minutes(2) + nanoseconds(1))
            .disruptedPods.empty());
}

TEST_CASE("eviction: the budget decides for a Ready pod", "[k8s-workloads]") {
  const std::vector<BudgetPod> pods{budget_pod("etcd-0"), budget_pod("etcd-1"),
                                    budget_pod("etcd-2")};
  const PdbStatus status = compute_pdb_status(2, pods, {}, kNow);
  REQUIRE(status.disruptionsAllowed == 1);
  const EvictionDecision first =
      evict(pods[0], status, UnhealthyPodEvictionPolicy::IfHealthyBudget, true, kNow);
  CHECK(first.outcome == EvictionOutcome::DeletedWithinBudget);
  CHECK(first.status.disruptionsAllowed == 0);
  CHECK(first.status.disruptedPods.at("etcd-0") == kNow);
  const EvictionDecision second =
      evict(pods[1], first.status, UnhealthyPodEvictionPolicy::IfHealthyBudget, true, kNow);
  CHECK(second.outcome == EvictionOutcome::TooManyRequests);
  CHECK_FALSE(second.deleted());
  // A budget the controller has not observed yet refuses too.
  CHECK(evict(pods[0], status, UnhealthyPodEvictionPolicy::IfHealthyBudget, false, kNow).outcome ==
        EvictionOutcome::TooManyRequests);
}

TEST_CASE("eviction: unhealthy, Pending and terminating pods", "[k8s-workloads]") {
  const std::vector<BudgetPod> pods{budget_pod("etcd-0"), budget_pod("etcd-1"),
                                    budget_pod("etcd-2", false)};
  const PdbStatus met = compute_pdb_status(2, pods, {}, kNow);  // 2 healthy of 2 needed
  CHECK(evict(pods[2], met, UnhealthyPodEvictionPolicy::IfHealthyBudget, true, kNow).outcome ==
        EvictionOutcome::DeletedUnhealthy);
  const PdbStatus short_ = compute_pdb_status(3, pods, {}, kNow);  // 2 healthy of 3 needed
  CHECK(evict(pods[2], short_, UnhealthyPodEvictionPolicy::IfHealthyBudget, true, kNow).outcome ==
        EvictionOutcome::TooManyRequests);
  CHECK(evict(pods[2], short_, UnhealthyPodEvictionPolicy::AlwaysAllow, true, kNow).outcome ==
        EvictionOutcome::DeletedUnhealthy);
  BudgetPod pending = budget_pod("etcd-3", false);
  pending.phase = PodPhase::Pending;
  CHECK(evict(pending, short_, UnhealthyPodEvictionPolicy::IfHealthyBudget, true, kNow).outcome ==
        EvictionOutcome::DeletedIgnoringBudget);
}

TEST_CASE("pdb: a drain through evictions never takes healthy pods below minAvailable (property)",
          "[k8s-workloads]") {
  rc::prop("evicting every pod in turn, re-syncing the budget in between", []() {
    const int n = *rc::gen::inRange(1, 8);
    const int minAvailable = *rc::gen::inRange(0, n + 1);
    std::vector<BudgetPod> pods;
    for (int i = 0; i < n; ++i) {
      pods.push_back(budget_pod("p" + std::to_string(i), *rc::gen::arbitrary<bool>()));
    }
    PdbStatus status = compute_pdb_status(minAvailable, pods, {}, kNow);
    const auto order = *rc::gen::unique<std::vector<int>>(n, rc::gen::inRange(0, n));
    for (const int i : order) {
      const BudgetPod pod = pods[static_cast<std::size_t>(i)];
      const auto decision =
          evict(pod, status, UnhealthyPodEvictionPolicy::IfHealthyBudget, true, kNow);
      if (decision.deleted()) {
        pods.erase(std::find_if(pods.begin(), pods.end(),
                                [&pod](const BudgetPod& p) { return p.name == pod.name; }));
      }
      status = compute_pdb_status(minAvailable, pods, decision.status.disruptedPods, kNow);
      // Naive: the Ready pods left.
      const int ready = static_cast<int>(
          std::count_if(pods.begin(), pods.end(), [](const BudgetPod& p) { return p.ready; }));
      RC_ASSERT(status.currentHealthy == ready);
      // An unhealthy pod's eviction takes no healthy pod away.
      if (decision.outcome == EvictionOutcome::DeletedUnhealthy) RC_ASSERT(!pod.ready);
      if (decision.outcome == EvictionOutcome::DeletedWithinBudget)
        RC_ASSERT(ready >= minAvailable);
    }
  });
}

// --- scheduling -----------------------------------------------------------------------------

namespace {

SchedulingNode node(std::string name, std::string zone) {
  return SchedulingNode{std::move(name), std::move(zone), true, false, Resources{4000, 8LL << 30}};
}

PodSchedulingSpec etcd_pod(TopologyKey key) {
  PodSchedulingSpec pod;
  pod.labels = {{"app", "etcd"}, {"instance", "main"}};
  pod.requests = Resources{500, 1LL << 30};
  pod.requiredAntiAffinity = {AntiAffinityTerm{pod.labels, key, 0}};
  pod.spreadSelector = pod.labels;
  return pod;
}

}  // namespace

TEST_CASE("scheduling: required anti-affinity by hostname spreads members, then Pending",
          "[k8s-workloads]") {
  const std::vector<SchedulingNode> nodes{node("w1", "a"), node("w2", "b"), node("w3", "c")};
  const PodSchedulingSpec pod = etcd_pod(TopologyKey::Hostname);
  std::vector<ScheduledPod> scheduled{{"w1", pod}, {"w2", pod}};
  const Placement third = place_pod(pod, nodes, scheduled, 0);
  REQUIRE(third.node.has_value());
  CHECK(nodes[*third.node].name == "w3");
  scheduled.push_back({"w3", pod});
  const Placement fourth = place_pod(pod, nodes, scheduled, 0);
  CHECK_FALSE(fourth.node.has_value());
  CHECK(fourth.message ==
        "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules.");
}

TEST_CASE("scheduling: an existing pod's anti-affinity keeps others away", "[k8s-workloads]") {
  const std::vector<SchedulingNode> nodes{node("w1", "a"), node("w2", "a")};
  PodSchedulingSpec plain = etcd_pod(TopologyKey::Zone);
  plain.requiredAntiAffinity.clear();
  const std::vector<ScheduledPod> scheduled{{"w1", etcd_pod(TopologyKey::Zone)}};
  const Placement p = place_pod(plain, nodes, scheduled, 0);
  CHECK_FALSE(p.node.has_value());
  CHECK(p.message ==
        "0/2 nodes are available: 2 node(s) didn't satisfy existing pods anti-affinity rules.");
}

TEST_CASE("scheduling: the first failing filter is the reason; reasons are counted and sorted",
          "[k8s-workloads]") {
  std::vector<SchedulingNode> nodes{node("w1", "a"), node("w2", "b"), node("w3", "c"),
                                    node("w4", "c")};
  nodes[0].unschedulable = true;
  nodes[1].ready = false;
  nodes[2].allocatable = Resources{100, 1LL << 20};  // neither cpu nor memory fits
  PodSchedulingSpec pod = etcd_pod(TopologyKey::Zone);
  pod.volumeZone = "a";  // its volume is in zone a; w4 is in c
  const Placement p = place_pod(pod, nodes, {}, 0);
  CHECK_FALSE(p.node.has_value());
  CHECK(p.message ==
        "0/4 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 node(s) had no "
        "available volume zone, 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, "
        "1 node(s) were unschedulable.");
}

TEST_CASE("scheduling: a volume's zone pins the pod; requests add up on a node",
          "[k8s-workloads]") {
  const std::vector<SchedulingNode> nodes{node("w1", "a"), node("w2", "b")};
  PodSchedulingSpec pod = etcd_pod(TopologyKey::Hostname);
  pod.volumeZone = "b";
  const Placement p = place_pod(pod, nodes, {}, 1);
  REQUIRE(p.node.has_value());
  CHECK(nodes[*p.node].name == "w2");
  PodSchedulingSpec big;
  big.requests = Resources{3000, 0};
  const std::vector<ScheduledPod> scheduled{{"w1", big}};
  CHECK(filter_node(big, nodes[0], nodes, scheduled) ==
        std::vector<std::string>{"Insufficient cpu"});
  CHECK(filter_node(big, nodes[1], nodes, scheduled).empty());
}

TEST_CASE("scheduling: spreading prefers the zone with fewer of the set's pods",
          "[k8s-workloads]") {
  const std::vector<SchedulingNode> nodes{node("w1", "a"), node("w2", "a"), node("w3", "b"),
                                          node("w4", "b")};
  PodSchedulingSpec pod = etcd_pod(TopologyKey::Hostname);
  const std::vector<ScheduledPod> scheduled{{"w1", pod}};
  // w3 and w4 tie (zone b is empty); the draw picks between them.
  for (std::uint64_t draw : {0, 1, 2, 3}) {
    const Placement p = place_pod(pod, nodes, scheduled, draw);
    REQUIRE(p.node.has_value());
    CHECK(nodes[*p.node].zone == "b");
    CHECK(*p.node == 2 + draw % 2);
  }
}

TEST_CASE("scheduling: a placement never breaks required anti-affinity (property)",
          "[k8s-workloads]") {
  rc::prop("the chosen node has no pod of the set in its domain; Pending only when all do", []() {
    const int nodeCount = *rc::gen::inRange(1, 7);
    std::vector<SchedulingNode> nodes;
    for (int i = 0; i < nodeCount; ++i) {
      nodes.push_back(node("w" + std::to_string(i),
                           std::string(1, static_cast<char>('a' + *rc::gen::inRange(0, 3)))));
    }
    const TopologyKey key = *rc::gen::element(TopologyKey::Hostname, TopologyKey::Zone);
    const PodSchedulingSpec pod = etcd_pod(key);
    std::vector<ScheduledPod> scheduled;
    for (int k = 0; k < 8; ++k) {
      const Placement p = place_pod(pod, nodes, scheduled, *rc::gen::arbitrary<std::uint64_t>());
      // Naive: a node is free when no scheduled pod sits in its domain.
      const auto free = [&](const SchedulingNode& n) {
        return std::none_of(scheduled.begin(), scheduled.end(), [&](const ScheduledPod& s) {
          const auto& where =
              *std::find_if(nodes.begin(), nodes.end(),
                            [&](const SchedulingNode& m) { return m.name == s.node; });
          return key == TopologyKey::Hostname ? where.name == n.name : where.zone == n.zone;
        });
      };
      const bool anyFree = std::any_of(nodes.begin(), nodes.end(), free);
      RC_ASSERT(p.node.has_value() == anyFree);
      if (!p.node) break;
      RC_ASSERT(free(nodes[*p.node]));
      scheduled.push_back({nodes[*p.node].name, pod});
    }
  });
}
