// `hasim check` on etcd-druid scenarios (properties/druid/check_choices.cpp): from the plain
// scale scenario, druid's own fault choices find a superfluous member (the seed's warning)
// and shrink it to a single fault: a pod deleted while the cluster bootstraps leaves its
// never-started bootstrap member in etcd's list for good
// (scenarios/druid/druid-bootstrap-pod-deleted.json). And a kubelet restart of a container of
// a pod already gone, once an assertion, is a run like any other.
#include <catch2/catch.hpp>

#include "properties/run.hpp"
#include "reports/check.hpp"
#include "scenario_loader_helpers.hpp"
#include "scenarios/fault_text.hpp"
#include "scenarios/loader.hpp"

namespace {

hasim::Scenario druid_scenario(const std::string& file) {
  const hasim::LoadResult loaded =
      hasim::load_scenario_file(hasim::loader_test::source_path("scenarios/druid/" + file));
  REQUIRE(loaded.scenario.has_value());
  return *loaded.scenario;
}

}  // namespace

TEST_CASE("hasim check finds the superfluous member from a plain scale scenario",
          "[check][finding]") {
  hasim::CheckOptions options;
  options.runs = 100;
  options.jobs = 2;
  options.generate.kinds = {"druid-pod-delete"};
  options.stop_at_first = true;
  const auto result = hasim::run_check(druid_scenario("druid-scale-3-to-5.json"), options);
  REQUIRE(result.has_value());
  REQUIRE(result->failure.has_value());
  const hasim::CheckFailure& failure = *result->failure;
  CHECK(failure.property == "no-superfluous-members:2m");
  REQUIRE_FALSE(failure.shrunk.minimal.faults.empty());
  CHECK(failure.shrunk.minimal.faults.size() <= 2);
  bool pod_deleted = false;
  for (const hasim::FaultSpec& f : failure.shrunk.minimal.faults) {
    INFO(hasim::describe_fault(f));
    pod_deleted = pod_deleted || f.kind == "druid-pod-delete";
  }
  CHECK(pod_deleted);
  CHECK(failure.broken_assumptions.empty());  // a finding, not a documented limitation
}

TEST_CASE("a volume lost while its pod terminates: the kubelet leaves the gone pod alone",
          "[druid-pods]") {
  hasim::Scenario scenario = druid_scenario("druid-scale-3-to-5.json");
  hasim::FaultSpec drain;
  drain.kind = "druid-drain";
  drain.at = hasim::milliseconds(56'649);
  drain.targets = {"w-3"};
  drain.for_duration = hasim::milliseconds(17'302);
  hasim::FaultSpec lost;
  lost.kind = "druid-volume-loss";
  lost.at = hasim::milliseconds(57'160);
  lost.targets = {"etcd-main-1"};
  scenario.faults.push_back(drain);
  scenario.faults.push_back(lost);
  const auto run = hasim::run_scenario(scenario, hasim::RunOptions{});
  REQUIRE(run.has_value());
  CHECK(run->stats.status == hasim::RunStatus::completed);
}
