// The Kubernetes pieces an operator stands on (models/cluster): the StatefulSet controller's
// sync, PodDisruptionBudgets and evictions, and where the scheduler may put a pod.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <algorithm>

#include "models/cluster/disruption.hpp"
#include "models/cluster/drain.hpp"
#include "models/cluster/pod_placement.hpp"
#include "models/cluster/probe_worker.hpp"
#include "models/cluster/service_endpoints.hpp"
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

// --- probes ---------------------------------------------------------------------------------

namespace {

ProbedContainer running_container(std::string id, LocalTime startedAt, bool started = true) {
  return ProbedContainer{std::move(id), true, false, startedAt, started};
}

}  // namespace

TEST_CASE("probes: readiness starts as Failure, liveness as Success; thresholds hold results",
          "[k8s-workloads]") {
  ProbeSpec spec;
  spec.successThreshold = 2;
  ProbeWorker readiness(ProbeType::Readiness, spec);
  const ProbedPod pod;
  const auto c = running_container("c1", kNow);
  REQUIRE(readiness.before(pod, c, kNow).probe);
  CHECK(readiness.result() == ProbeResult::Failure);
  readiness.after(ProbeResult::Success);
  CHECK(readiness.result() == ProbeResult::Failure);  // 1 of 2 successes
  readiness.after(ProbeResult::Success);
  CHECK(readiness.result() == ProbeResult::Success);
  readiness.after(ProbeResult::Failure);
  readiness.after(ProbeResult::Failure);
  CHECK(readiness.result() == ProbeResult::Success);  // 2 of 3 failures
  readiness.after(ProbeResult::Failure);
  CHECK(readiness.result() == ProbeResult::Failure);
  CHECK_FALSE(readiness.restart_needed());  // readiness never restarts anything

  ProbeWorker liveness(ProbeType::Liveness, ProbeSpec{});
  REQUIRE(liveness.before(pod, c, kNow).probe);
  CHECK(liveness.result() == ProbeResult::Success);
  for (int i = 0; i < 3; ++i) liveness.after(ProbeResult::Failure);
  CHECK(liveness.restart_needed());
  // On hold until a new container: no probe for the old one.
  CHECK_FALSE(liveness.before(pod, c, kNow + seconds(10)).probe);
  const auto again = running_container("c2", kNow + seconds(12));
  CHECK(liveness.before(pod, again, kNow + seconds(20)).probe);
  CHECK(liveness.result() == ProbeResult::Success);
  CHECK_FALSE(liveness.restart_needed());
}

TEST_CASE("probes: initialDelaySeconds counts whole seconds; startup gates the others",
          "[k8s-workloads]") {
  ProbeSpec spec;
  spec.initialDelaySeconds = 15;
  ProbeWorker liveness(ProbeType::Liveness, spec);
  const ProbedPod pod;
  const auto c = running_container("c1", kNow);
  CHECK_FALSE(liveness.before(pod, c, kNow + seconds(15) - nanoseconds(1)).probe);  // 14 s
  CHECK(liveness.before(pod, c, kNow + seconds(15)).probe);
  ProbeWorker startup(ProbeType::Startup, ProbeSpec{});
  ProbeWorker readiness(ProbeType::Readiness, ProbeSpec{});
  const auto starting = running_container("c1", kNow, false);
  CHECK(startup.before(pod, starting, kNow).probe);
  CHECK_FALSE(readiness.before(pod, starting, kNow).probe);
  CHECK_FALSE(startup.before(pod, c, kNow).probe);  // started: the startup probe rests
  CHECK(readiness.before(pod, c, kNow).probe);
}

TEST_CASE("probes: a stopped container reads as failed; a terminated pod stops the worker",
          "[k8s-workloads]") {
  ProbeWorker readiness(ProbeType::Readiness, ProbeSpec{});
  ProbedPod pod;
  auto c = running_container("c1", kNow);
  REQUIRE(readiness.before(pod, c, kNow).probe);
  readiness.after(ProbeResult::Success);
  REQUIRE(readiness.result() == ProbeResult::Success);
  c.running = false;
  c.terminated = true;
  const auto b = readiness.before(pod, c, kNow + seconds(10));
  CHECK(b.keepGoing);
  CHECK_FALSE(b.probe);
  CHECK(readiness.result() == ProbeResult::Failure);
  pod.restartPolicyNever = true;
  CHECK_FALSE(readiness.before(pod, c, kNow + seconds(20)).keepGoing);
  pod.phase = PodPhase::Failed;
  CHECK_FALSE(readiness.before(pod, c, kNow + seconds(30)).keepGoing);
  // Graceful deletion: liveness reports Success and stops, so nothing restarts.
  ProbeWorker liveness(ProbeType::Liveness, ProbeSpec{});
  ProbedPod deleting;
  deleting.deleting = true;
  const auto b2 = liveness.before(deleting, running_container("c9", kNow), kNow);
  CHECK_FALSE(b2.keepGoing);
  CHECK(liveness.result() == ProbeResult::Success);
}

TEST_CASE("probes: ContainersReady and the first delay", "[k8s-workloads]") {
  CHECK_FALSE(containers_ready({}));
  CHECK(containers_ready(
      {{true, true, false, ProbeResult::Unknown}, {true, true, true, ProbeResult::Success}}));
  CHECK_FALSE(containers_ready({{true, false, false, ProbeResult::Unknown}}));  // not started
  CHECK_FALSE(containers_ready({{false, true, true, ProbeResult::Success}}));   // not running
  CHECK_FALSE(containers_ready({{true, true, true, ProbeResult::Failure}}));
  const ProbeWorker w(ProbeType::Readiness, ProbeSpec{});
  CHECK(w.first_delay(false, 0.5) == Duration{});
  CHECK(w.first_delay(true, 0.5) == seconds(5));
}

TEST_CASE("probes: a liveness restart needs failureThreshold consecutive failures (property)",
          "[k8s-workloads]") {
  rc::prop("against a naive count of the trailing failures", []() {
    ProbeSpec spec;
    spec.failureThreshold = *rc::gen::inRange(1, 6);
    ProbeWorker liveness(ProbeType::Liveness, spec);
    const ProbedPod pod;
    RC_ASSERT(liveness.before(pod, running_container("c1", kNow), kNow).probe);
    const auto outcomes = *rc::gen::container<std::vector<bool>>(rc::gen::arbitrary<bool>());
    int trailing = 0;
    for (const bool ok : outcomes) {
      if (liveness.restart_needed()) break;  // on hold: the kubelet kills it
      liveness.after(ok ? ProbeResult::Success : ProbeResult::Failure);
      trailing = ok ? 0 : trailing + 1;
      RC_ASSERT(liveness.restart_needed() == (trailing >= spec.failureThreshold));
    }
  });
}

// --- kubectl drain ----------------------------------------------------------------------------

TEST_CASE("drain: the filters decide which pods go, are ignored or stop the drain",
          "[k8s-workloads]") {
  DrainCandidate etcd{"etcd-main-0", false, false, false, true, false};
  DrainCandidate proxy{"kube-proxy-x", true, false, false, true, false};
  DrainCandidate mirror{"kube-apiserver-w1", false, true, false, false, false};
  DrainCandidate scratch{"cache-0", false, false, true, true, false};
  DrainCandidate bare{"debug", false, false, false, false, false};
  DrainOptions options;
  auto s = select_drain_pods({etcd, proxy, mirror, scratch, bare}, options);
  CHECK(s.evict == std::vector<std::string>{"etcd-main-0", "cache-0"});
  CHECK(s.ignored == std::vector<std::string>{"kube-proxy-x", "kube-apiserver-w1"});
  REQUIRE(s.refused.size() == 1);
  CHECK(s.refused[0].first == "debug");
  options.force = true;
  options.deleteEmptyDirData = false;
  options.ignoreDaemonSets = false;
  s = select_drain_pods({etcd, proxy, scratch, bare}, options);
  CHECK(s.evict == std::vector<std::string>{"etcd-main-0", "debug"});
  REQUIRE(s.refused.size() == 2);
  CHECK(s.refused[0].first == "kube-proxy-x");
  CHECK(s.refused[1].first == "cache-0");
  scratch.terminal = true;  // a finished pod's emptyDir holds nothing worth keeping
  CHECK(select_drain_pods({scratch}, options).evict == std::vector<std::string>{"cache-0"});
}

TEST_CASE("drain: a 429 waits 5 s and asks again; an accepted eviction polls each second",
          "[k8s-workloads]") {
  using Next = PodEvictionLoop::Next;
  PodEvictionLoop loop(std::nullopt);
  CHECK(loop.next_try(kNow).next == Next::Evict);
  auto step = loop.on_eviction(EvictionResponse::TooManyRequests);
  CHECK(step.next == Next::EvictAfter);
  CHECK(step.wait == seconds(5));
  CHECK(loop.next_try(kNow + seconds(5)).next == Next::Evict);
  CHECK(loop.attempts() == 2);
  step = loop.on_eviction(EvictionResponse::Accepted);
  CHECK(step.next == Next::PollAfter);
  CHECK(step.wait == Duration{});
  step = loop.on_poll(false, kNow + seconds(5));
  CHECK(step.next == Next::PollAfter);
  CHECK(step.wait == seconds(1));
  CHECK(loop.on_poll(true, kNow + seconds(6)).next == Next::Done);
  PodEvictionLoop gone(std::nullopt);
  gone.next_try(kNow);
  CHECK(gone.on_eviction(EvictionResponse::NotFound).next == Next::Done);
  PodEvictionLoop broken(std::nullopt);
  broken.next_try(kNow);
  CHECK(broken.on_eviction(EvictionResponse::OtherError).next == Next::Failed);
}

TEST_CASE("drain: --timeout fails a pod the budget keeps refusing, or one that never goes",
          "[k8s-workloads]") {
  using Next = PodEvictionLoop::Next;
  const LocalTime deadline = kNow + seconds(12);
  PodEvictionLoop blocked(deadline);
  LocalTime t = kNow;
  int tries = 0;
  for (Next next = blocked.next_try(t).next; next == Next::Evict; next = blocked.next_try(t).next) {
    ++tries;
    REQUIRE(tries < 10);
    t = t + blocked.on_eviction(EvictionResponse::TooManyRequests).wait;
  }
  CHECK(tries == 3);  // at 0, 5 and 10 s; the try at 15 s finds the deadline passed
  CHECK(blocked.failure() == "global timeout reached");
  PodEvictionLoop stuck(deadline);
  stuck.next_try(kNow);
  stuck.on_eviction(EvictionResponse::Accepted);
  CHECK(stuck.on_poll(false, kNow + seconds(11)).next == Next::PollAfter);
  CHECK(stuck.on_poll(false, kNow + seconds(12)).next == Next::Failed);
}

// --- Services -------------------------------------------------------------------------------

TEST_CASE("services: the client Service routes to Ready pods, the peer Service lists all",
          "[k8s-workloads]") {
  const std::vector<EndpointPod> pods{
      {"etcd-2", PodPhase::Running, true, true, false},    // ready
      {"etcd-0", PodPhase::Running, true, false, false},   // bootstrapping: not ready
      {"etcd-1", PodPhase::Running, true, true, true},     // ready, being deleted
      {"etcd-3", PodPhase::Pending, false, false, false},  // no IP yet
      {"etcd-4", PodPhase::Failed, true, false, false},    // terminal
  };
  const auto client = service_endpoints(pods, false);
  REQUIRE(client.size() == 3);
  CHECK(client[0] == Endpoint{"etcd-0", false, false, false});
  CHECK(client[1] == Endpoint{"etcd-1", false, true, true});
  CHECK(client[2] == Endpoint{"etcd-2", true, true, false});
  CHECK(proxy_targets(client) == std::vector<std::string>{"etcd-2"});
  CHECK(dns_records(client) == std::vector<std::string>{"etcd-2"});
  const auto peer = service_endpoints(pods, true);
  CHECK(dns_records(peer) == std::vector<std::string>{"etcd-0", "etcd-1", "etcd-2"});
  // With no ready endpoint, kube-proxy falls back to serving terminating ones.
  const auto draining = service_endpoints({pods[1], pods[2]}, false);
  CHECK(proxy_targets(draining) == std::vector<std::string>{"etcd-1"});
  CHECK(dns_records(draining).empty());
}
