// The failover study: identical at any --jobs, plausible figures, and all three files.
#include <catch2/catch.hpp>

#include "reports/failover_report.hpp"

using namespace hasim;

TEST_CASE("the failover study is identical for one and two threads", "[report][failover]") {
  FailoverOptions options;
  options.trials = 6;
  options.seed = 7;
  options.jobs = 1;
  const std::string one = failover_json(run_failover_study(options, {}));
  options.jobs = 2;
  const std::string two = failover_json(run_failover_study(options, {}));
  CHECK(one == two);
  options.seed = 8;
  CHECK(failover_json(run_failover_study(options, {})) != one);
}

TEST_CASE("failover after a crash takes about a lease duration; a long pause gives two leaders",
          "[report][failover]") {
  FailoverOptions options;
  options.trials = 8;
  const FailoverResults results = run_failover_study(options, {});
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
