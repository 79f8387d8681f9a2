// The failover study: identical at any --jobs, plausible figures, and all its files.
#include <catch2/catch.hpp>

#include "reports/failover_report.hpp"
#include "reports/study_runner.hpp"
#include "study_rig.hpp"

using namespace hasim;

namespace {

std::unique_ptr<Study> run_failover(std::uint64_t trials, std::uint64_t seed, unsigned jobs) {
  return hasim::testing::run_study(make_failover_study, trials, seed, jobs);
}

FailoverResults results_of(const Study& study, std::uint64_t trials, std::uint64_t seed) {
  FailoverOptions options;
  options.trials = trials;
  options.seed = seed;
  return summarize_failover(options, hasim::testing::study_trials<FailoverTrial>(study));
}

}  // namespace

TEST_CASE("the failover study is identical for one and two threads", "[report][failover]") {
  const std::string one = study_report(*run_failover(6, 7, 1))[0].contents;
  const std::string two = study_report(*run_failover(6, 7, 2))[0].contents;
  CHECK(one == two);
  CHECK(study_report(*run_failover(6, 8, 1))[0].contents != one);
}

TEST_CASE("failover after a crash takes about a lease duration; a long pause gives two leaders",
          "[report][failover]") {
  const FailoverResults results = results_of(*run_failover(8, 1, 2), 8, 1);
  const FailoverCell& crash = results.cells.at(FailoverFault::crash);
  REQUIRE(crash.unavailable.size() == 8);
  for (Duration d : crash.unavailable) {
    CHECK(d >= seconds(13) - milliseconds(100));  // LD - RP
    CHECK(d <= seconds(24));                      // LD + 4.4 RP, plus latency
  }
  CHECK(crash.dual_leader == 0);
  // A 20s pause exceeds LD: a successor takes over, then the old leader resumes and writes.
  const FailoverCell& pause = results.cells.at(FailoverFault::pause);
  CHECK(pause.dual_leader > 0);
  CHECK(pause.harmful > 0);
  for (Duration d : pause.unavailable) CHECK(d <= seconds(20));
  const std::string html = failover_html(results);
  CHECK(html.find("<svg") != std::string::npos);
  CHECK(failover_markdown(results).find("| crash") != std::string::npos);
}

TEST_CASE("failover's flags are checked and name the fix", "[report][failover]") {
  auto study = make_failover_study();
  StudyArgs args;
  args.flags["--pause"] = "5x";
  CHECK_THAT(study->configure(args).value_or(""), Catch::Contains("--pause \"5x\""));
  args.flags = {{"--renew-deadline", "2s"}};
  CHECK_THAT(study->configure(args).value_or(""), Catch::Contains("--renew-deadline"));
  args.flags = {};
  args.trials = 0;
  CHECK_THAT(study->configure(args).value_or(""), Catch::Contains("--trials"));
}
