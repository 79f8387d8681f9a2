// The kubelet's and kubectl's side of pods (models/cluster): probes, Service endpoints and
// kubectl drain.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <vector>

#include "models/cluster/drain.hpp"
#include "models/cluster/probe_worker.hpp"
#include "models/cluster/service_endpoints.hpp"

using namespace hasim;
using namespace hasim::cluster;

namespace {

const LocalTime kNow{1'000'000'000'000};

}  // namespace

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
