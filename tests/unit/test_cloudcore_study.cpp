// The cloudcore study (`hasim report cloudcore`, issue 14 part 8): its trial measures the
// kubeedge#2156 pattern from the trace, is a pure function of its seed, the study gives the
// same bytes at any --jobs, and its flags name the fix.
#include <catch2/catch.hpp>

#include "reports/cloudcore_report.hpp"
#include "reports/diff.hpp"
#include "reports/study_runner.hpp"
#include "study_rig.hpp"

using namespace hasim;

namespace {

using cloudcore::CloudCoreMode;

CloudCoreTrial trial_of(CloudCoreFault fault, CloudLoadBalancer balancer, CloudCoreMode mode,
                        std::uint64_t seed) {
  const CloudCoreSettings settings;
  const CloudCoreCell cell{fault, balancer, mode};
  return run_cloudcore_trial(cloudcore_study_scenario(cell, settings), cell, settings, seed);
}

std::unique_ptr<Study> run_cloudcore(std::map<std::string, std::string> flags, std::uint64_t trials,
                                     std::uint64_t seed, unsigned jobs) {
  return hasim::testing::run_study(make_cloudcore_study, trials, seed, jobs, std::move(flags));
}

std::string configure_error(std::map<std::string, std::string> flags) {
  return hasim::testing::configure_error(make_cloudcore_study, std::move(flags));
}

}  // namespace

TEST_CASE("kubeedge#2156: after a crash-restart v1.3 serves from two CloudCores, v1.5 does not",
          "[report][cloudcore]") {
  // This seed (trial 0 of that cell in the default run): the standby takes the lease while
  // the restarted old leader still has its gate True, and nothing was dual before the fault.
  constexpr std::uint64_t kSeed = 15487704817574291750ULL;
  const CloudCoreTrial old = trial_of(CloudCoreFault::crash_restart, CloudLoadBalancer::service,
                                      CloudCoreMode::v1_3, kSeed);
  CHECK(old.dual_serving);
  CHECK_FALSE(old.dual_serving_before);
  CHECK(old.dual_serving_time > seconds(60));  // until the end: nothing resets the gate
  const CloudCoreTrial fixed = trial_of(CloudCoreFault::crash_restart, CloudLoadBalancer::service,
                                        CloudCoreMode::v1_5, kSeed);
  CHECK_FALSE(fixed.dual_serving);
  CHECK(fixed.served);
  CHECK(fixed.converged);
  // The new leader starts about a lease duration after the crash; the edges dial again
  // 2 x heartbeat after the break.
  CHECK(fixed.served_after >= seconds(30));
  CHECK(fixed.served_after <= seconds(60));
  // Behind keepalived, /readyz follows the election, not the gate: no dual serving in v1.3.
  CHECK_FALSE(trial_of(CloudCoreFault::crash_restart, CloudLoadBalancer::keepalived,
                       CloudCoreMode::v1_3, kSeed)
                  .dual_serving);
}

TEST_CASE("active-active: a replica's crash is served again by the others, dual serving n/a",
          "[report][cloudcore]") {
  // The busiest replica crashes and stays down: its edges dial again (2 x heartbeat) and
  // reach the other replica; no single-serving window is counted in active-active.
  const CloudCoreTrial crash =
      trial_of(CloudCoreFault::crash, CloudLoadBalancer::service, CloudCoreMode::v1_7_plus, 7);
  CHECK(crash.served);
  CHECK(crash.served_after > seconds(15));
  CHECK(crash.served_after < seconds(60));
  CHECK(crash.converged);
  CHECK_FALSE(crash.dual_serving);
  CHECK_FALSE(crash.dual_serving_before);
  // Cut off from the apiserver, the replica keeps its sessions: served at once.
  const CloudCoreTrial cut = trial_of(CloudCoreFault::apiserver_partition,
                                      CloudLoadBalancer::service, CloudCoreMode::v1_7_plus, 7);
  CHECK(cut.served);
  CHECK(cut.served_after == Duration{});
}

TEST_CASE("a cloudcore trial is a function of its seed", "[report][cloudcore]") {
  for (const CloudCoreFault fault : kCloudCoreFaults) {
    const CloudCoreTrial a = trial_of(fault, CloudLoadBalancer::service, CloudCoreMode::v1_5, 7);
    const CloudCoreTrial b = trial_of(fault, CloudLoadBalancer::service, CloudCoreMode::v1_5, 7);
    INFO(to_string(fault));
    CHECK(a == b);  // every field
    CHECK(a.served);
  }
}

TEST_CASE("the cloudcore study is identical for one and two threads and writes its tables",
          "[report][cloudcore]") {
  const std::map<std::string, std::string> flags{{"--faults", "crash-restart,node-down"},
                                                 {"--load-balancers", "service"}};
  auto one = run_cloudcore(flags, 4, 3, 1);
  const std::vector<ReportFile> files = study_report(*one);
  const std::vector<ReportFile> two = study_report(*run_cloudcore(flags, 4, 3, 2));
  REQUIRE(files.size() == two.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    INFO(files[i].name);
    CHECK(files[i].contents == two[i].contents);
  }
  REQUIRE(one->cell_count() == 6);
  CHECK(one->cell_name(0) == "crash-restart/service/v1.3");
  CHECK(one->cell_name(2) == "crash-restart/service/v1.7+");
  const auto& trials = hasim::testing::study_trials<CloudCoreTrial>(*one);
  CloudCoreOptions options;
  options.faults = {CloudCoreFault::crash_restart, CloudCoreFault::node_down};
  options.balancers = {CloudLoadBalancer::service};
  options.modes = {CloudCoreMode::v1_3, CloudCoreMode::v1_5, CloudCoreMode::v1_7_plus};
  options.trials = 4;
  options.seed = 3;
  const CloudCoreResults results = summarize_cloudcore(options, trials);
  const std::string md = cloudcore_markdown(results);
  CHECK_THAT(md, Catch::Contains("## crash-restart"));
  CHECK_THAT(md, Catch::Contains("| figure"));
  CHECK_THAT(md, Catch::Contains("service v1.5"));
  CHECK_THAT(md, Catch::Contains("n/a (active-active)"));
  CHECK_THAT(md, Catch::Contains("active-active (v1.7+) served the edges again"));
  CHECK_THAT(md, Catch::Contains("## Findings"));
  CHECK_THAT(cloudcore_html(results), Catch::Contains("<svg"));
  CHECK_THAT(cloudcore_json(results), Catch::Contains("\"servedSamplesNs\""));
}

TEST_CASE("cloudcore's flags are checked and name the fix", "[report][cloudcore]") {
  CHECK_THAT(configure_error({{"--modes", "v1.6"}}),
             Catch::Contains("--modes \"v1.6\": unknown value \"v1.6\"") &&
                 Catch::Contains("v1.3,v1.5,v1.7+"));
  // keepalived polls /readyz, which active-active has not: no cell is left.
  CHECK_THAT(configure_error({{"--modes", "v1.7+"}, {"--load-balancers", "keepalived"}}),
             Catch::Contains("behind the Service only"));
  CHECK(configure_error({{"--modes", "v1.7+"}}).empty());
  CHECK_THAT(configure_error({{"--modes", "v1.5,v1.5"}}), Catch::Contains("given twice"));
  CHECK_THAT(configure_error({{"--load-balancers", "nginx"}}),
             Catch::Contains("--load-balancers") && Catch::Contains("service,keepalived"));
  CHECK_THAT(configure_error({{"--faults", "crash,pause"}}), Catch::Contains("\"pause\""));
  CHECK_THAT(configure_error({{"--edges", "0"}}), Catch::Contains("--edges \"0\""));
  CHECK_THAT(configure_error({{"--horizon", "2m"}}), Catch::Contains("--horizon 2m"));
  CHECK_THAT(configure_error({{"--partition", "soon"}}), Catch::Contains("--partition \"soon\""));
  CHECK(configure_error({}).empty());
}

TEST_CASE("hasim report diff compares two cloudcore reports cell by cell", "[report][cloudcore]") {
  const std::map<std::string, std::string> flags{{"--faults", "crash-restart"},
                                                 {"--load-balancers", "service"}};
  const std::string a = study_report(*run_cloudcore(flags, 6, 1, 2))[0].contents;
  const std::string b = study_report(*run_cloudcore(flags, 6, 2, 2))[0].contents;
  std::string error;
  const auto diff = diff_reports({"A.json", a}, {"B.json", b}, 0.05, &error);
  INFO(error);
  REQUIRE(diff);
  CHECK(diff->study == "cloudcore");
  CHECK(diff->only_in_a.empty());
  // Three cells, each with two samples of durations and three probabilities.
  CHECK(diff->rows.size() + diff->uncompared.size() == 15);
  CHECK(diff->changed() == 0);
}
