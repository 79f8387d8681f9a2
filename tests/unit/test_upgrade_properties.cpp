// RapidCheck: with every component coordinated, the election controller healthy and no fault
// but the upgrade itself, no-skew holds for arbitrary upgrade timings, node orders, stop modes
// and the compatibility-version flow. Then crash/restart and partition faults join the upgrade,
// to find out whether CLE still keeps skew (it does not: see the finding below).
#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include "reports/upgrade_trial.hpp"
#include "scenarios/run.hpp"

using namespace hasim;

namespace {

DurationDistribution gen_range(std::int64_t low_s, std::int64_t high_s) {
  const std::int64_t a = *rc::gen::inRange<std::int64_t>(low_s, high_s + 1);
  const std::int64_t b = *rc::gen::inRange<std::int64_t>(a, high_s + 1);
  return DurationDistribution::uniform(seconds(a), seconds(b));
}

// An upgrade or rollback of a coordinated control plane with arbitrary timings and order.
Scenario gen_coordinated_upgrade() {
  UpgradeSettings settings;
  UpgradeCell cell;
  cell.mode = ElectionMode::coordinated;
  cell.direction = *rc::gen::element(UpgradeDirection::upgrade, UpgradeDirection::rollback);
  cell.nodes = *rc::gen::element(1, 3, 5);
  settings.upgrade.downtime = gen_range(1, 120);
  settings.upgrade.gap = gen_range(0, 90);
  settings.upgrade.startJitter = gen_range(0, 30);
  settings.upgrade.canary = seconds(*rc::gen::inRange<std::int64_t>(0, 120));
  settings.upgrade.randomOrder = true;
  settings.upgrade.stop =
      *rc::gen::element(UpgradeSpec::Stop::terminate, UpgradeSpec::Stop::power_off);
  settings.upgrade.emulation = *rc::gen::arbitrary<bool>();
  Scenario scenario = upgrade_scenario(settings, cell);
  scenario.seed = *rc::gen::inRange<std::uint64_t>(1, 1'000'000'000);
  scenario.properties = {"no-skew", "single-leader"};
  return scenario;
}

std::vector<std::string> nodes_of(const Scenario& scenario) { return scenario.controlPlane->nodes; }

FaultSpec gen_fault(const Scenario& scenario) {
  const std::vector<std::string> nodes = nodes_of(scenario);
  FaultSpec fault;
  fault.at = seconds(*rc::gen::inRange<std::int64_t>(20, 600));
  const std::string node = *rc::gen::elementOf(nodes);
  switch (*rc::gen::inRange(0, 3)) {
    case 0: {  // a component crashes; the kubelet restarts it
      fault.kind = FaultSpec::Kind::crash;
      const char* component =
          *rc::gen::element("kube-apiserver", "kube-controller-manager", "kube-scheduler");
      fault.targets = {node + "/" + component};
      break;
    }
    case 1:
      fault.kind = FaultSpec::Kind::crash;  // the node's processes, restarted after `for`
      fault.targets = {node};
      fault.for_duration = seconds(*rc::gen::inRange<std::int64_t>(1, 60));
      break;
    default:
      fault.kind = FaultSpec::Kind::partition;
      fault.partition_mode = FaultSpec::PartitionMode::isolate;
      fault.targets = {node};
      fault.for_duration = seconds(*rc::gen::inRange<std::int64_t>(1, 60));
      break;
  }
  return fault;
}

}  // namespace

TEST_CASE("with CLE and no fault but the upgrade, no-skew holds for arbitrary timings and orders",
          "[upgrade][property]") {
  rc::prop("a coordinated upgrade never lets a newer leader act beside an older apiserver", [] {
    Scenario scenario = gen_coordinated_upgrade();
    const bool rollback = scenario.upgrade->to < scenario.controlPlane->version;
    RC_PRE(!rollback);  // a node-by-node rollback violates by construction (below)
    const auto result = run_scenario(scenario, {});
    RC_ASSERT(result.has_value());
    for (std::size_t i = 0; i < result->violations.size(); ++i) {
      if (result->violations[i]) RC_FAIL(result->violations[i]->detail);
    }
  });
}

TEST_CASE("a coordinated rollback violates only until the controller preempts the newer leader",
          "[upgrade][property]") {
  // The old apiserver of the first rolled-back node serves the moment it starts; the newer
  // leader acts until CLE has pinged the older candidates, set preferredHolder and the holder
  // has given up after renewDeadline. Bound: the start jitter (the old candidates may start
  // later than their apiserver), 5s requeue + 5s ack window, RP to notice, RD to give up, plus
  // the scheduler's 5s release and slack.
  rc::prop("each violation of a coordinated rollback is short", [] {
    Scenario scenario = gen_coordinated_upgrade();
    RC_PRE(scenario.upgrade->to < scenario.controlPlane->version);
    const std::int64_t jitter_s = scenario.upgrade->startJitter.b.ns / 1'000'000'000;
    const UpgradeTrial trial = run_upgrade_trial(scenario, scenario.seed);
    RC_ASSERT(trial.leaders_at_end);
    RC_ASSERT(trial.violation_time <= seconds(jitter_s + 45) * 2);
  });
}

TEST_CASE("faults during a coordinated upgrade can still break skew (finding)",
          "[upgrade][property][finding]") {
  // Falsifiable, as a finding: when an older candidate is down (crashed and not yet restarted,
  // or cut off) during an election, it does not ack the ping, the controller elects the best
  // candidate that did ack, a newer one, and older apiservers still serve. RapidCheck finds
  // and shrinks such a schedule; its minimal form is kept as
  // scenarios/upgrade/coordinated-old-candidate-crash.json with a tested verdict.
  const bool held = rc::check("no-skew under faults during a coordinated upgrade", [] {
    UpgradeSettings settings;
    Scenario scenario = upgrade_scenario(
        settings, UpgradeCell{ElectionMode::coordinated, UpgradeDirection::upgrade, 3});
    scenario.seed = *rc::gen::inRange<std::uint64_t>(1, 1'000'000'000);
    scenario.properties = {"no-skew"};
    const int count = *rc::gen::inRange(1, 6);
    for (int i = 0; i < count; ++i) scenario.faults.push_back(gen_fault(scenario));
    const auto result = run_scenario(scenario, {});
    RC_ASSERT(result.has_value());
    RC_ASSERT(!result->violations.front().has_value());
  });
  CHECK(!held);
}
