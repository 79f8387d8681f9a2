// RapidCheck: client-go's election under its documented assumptions (equal clock rates, no
// pauses, small bounded latency). single-leader holds for arbitrary crash, restart and
// partition schedules, and a crashed leader is replaced within the bound derived from LD,
// RD and RP.
//
// A finding excluded here: kube-scheduler's ReleaseOnCancel lets a cut-off leader act for
// RP + RD + the client timeout (17s) after its last renewal, longer than LD, even within
// these assumptions (scenarios/election/scheduler-release-blocks.json shows it). So these
// properties run both components with releaseOnCancel false.
#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include "reports/failover_trial.hpp"
#include "properties/run.hpp"

using namespace hasim;

namespace {

Scenario control_plane(std::uint64_t seed) {
  FailoverSettings settings;
  Scenario scenario = failover_scenario(settings);
  scenario.seed = seed;
  scenario.network.latency = DurationDistribution::uniform(microseconds(200), milliseconds(20));
  scenario.section<hasim::ControlPlaneSpec>()->scheduler.releaseOnCancel = false;
  scenario.duration = minutes(8);
  scenario.properties = {"single-leader", "eventually-leader:90s"};
  return scenario;
}

FaultSpec random_fault(const std::vector<std::string>& nodes) {
  FaultSpec fault;
  fault.at = seconds(*rc::gen::inRange<std::int64_t>(1, 300));
  const std::string node = *rc::gen::elementOf(nodes);
  switch (*rc::gen::inRange(0, 3)) {
    case 0: {
      fault.kind = "crash";
      const char* component = *rc::gen::element("kube-controller-manager", "kube-scheduler");
      fault.targets = {node + "/" + component};
      break;
    }
    case 1:
      fault.kind = "crash";  // the whole node's processes, restarted after `for`
      fault.targets = {node};
      fault.for_duration = seconds(*rc::gen::inRange<std::int64_t>(1, 90));
      break;
    default:
      fault.kind = "partition";
      fault.partition_mode = FaultSpec::PartitionMode::isolate;
      fault.targets = {
          *rc::gen::elementOf(std::vector<std::string>{"cp-1", "cp-2", "cp-3", "store"})};
      fault.for_duration = seconds(*rc::gen::inRange<std::int64_t>(1, 90));
      break;
  }
  return fault;
}

}  // namespace

TEST_CASE(
    "single-leader holds for arbitrary crash and partition schedules within client-go's "
    "assumptions",
    "[election][property]") {
  rc::prop("no dual leader, and a leader returns once faults heal", [] {
    Scenario scenario = control_plane(*rc::gen::inRange<std::uint64_t>(1, 1'000'000));
    const std::vector<std::string> nodes{"cp-1", "cp-2", "cp-3"};
    const int count = *rc::gen::inRange(0, 7);
    for (int i = 0; i < count; ++i) scenario.faults.push_back(random_fault(nodes));
    const auto result = run_scenario(scenario, {});
    RC_ASSERT(result.has_value());
    for (std::size_t i = 0; i < result->violations.size(); ++i) {
      if (result->violations[i]) RC_FAIL(result->violations[i]->detail);
    }
  });
}

TEST_CASE("a crashed leader is replaced within [LD - RP, LD + 4.4 RP] plus latency",
          "[election][property]") {
  // Derivation: the leader renewed at most RP (+ a round trip) before the crash; each
  // challenger tries every RP..2.2RP, so it saw that renewal within 2.2RP and takes over at
  // its first try at least LD after seeing it: LD - RP <= unavailable <= LD + 4.4RP, plus a
  // few request latencies (at most 20 ms each here).
  FailoverSettings settings;
  Scenario scenario = control_plane(1);
  const Duration slack = milliseconds(200);
  rc::prop("failover after a crash stays within the bound", [&] {
    const auto seed = *rc::gen::inRange<std::uint64_t>(1, 1'000'000'000);
    const FailoverTrial trial = run_failover_trial(scenario, settings, FailoverFault::crash, seed);
    RC_ASSERT(trial.recovered);
    RC_ASSERT(!trial.dual_leader);
    RC_ASSERT(trial.unavailable >= settings.leaseDuration - settings.retryPeriod - slack);
    RC_ASSERT(trial.unavailable <=
              settings.leaseDuration + Duration{settings.retryPeriod.ns * 22 / 5} + slack);
  });
}
