#pragma once
// `hasim report cloudcore` (issue 14 part 8): KubeEdge CloudCore failover over cells of
// (fault, load balancer, mode), each with its trials (reports/cloudcore_trial.hpp): the time
// until every edge is served by the new leader and until every edge store has converged
// (distributions, CDFs), the messages resent and applied twice, and the probabilities of a
// dual-serving window and of no recovery within the horizon, with 95% intervals. A study
// (reports/study.hpp): cloudcore.json (versioned, every sample), cloudcore.md (a table per
// fault, the cells side by side, and findings computed from the numbers), cloudcore.html
// (the same with CDF plots and a bar chart), the CSV files; shards and merge.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "reports/cloudcore_trial.hpp"
#include "reports/stats.hpp"
#include "reports/study.hpp"

namespace hasim {

struct CloudCoreOptions {
  CloudCoreSettings settings;
  std::vector<CloudCoreFault> faults{std::begin(kCloudCoreFaults), std::end(kCloudCoreFaults)};
  std::vector<CloudLoadBalancer> balancers{std::begin(kCloudLoadBalancers),
                                           std::end(kCloudLoadBalancers)};
  std::vector<cloudcore::CloudCoreMode> modes{std::begin(kCloudCoreStudyModes),
                                              std::end(kCloudCoreStudyModes)};
  std::uint64_t trials = 100;  // per cell
  std::uint64_t seed = 1;
  // fault-major, then load balancer, then mode: a fault's cells sit together.
  std::vector<CloudCoreCell> cells() const;
};

struct CloudCoreCellResult {
  CloudCoreCell cell;
  std::uint64_t trials = 0;
  std::vector<Duration> served;     // served trials, in trial order
  std::vector<Duration> converged;  // converged trials
  std::uint64_t not_served = 0;
  std::uint64_t not_converged = 0;
  std::uint64_t dual_serving = 0;
  std::uint64_t dual_serving_before = 0;                  // a window already open before the fault
  std::vector<Duration> dual_serving_time;                // of the dual-serving trials
  std::vector<std::int64_t> resent, duplicated, dropped;  // every trial
};

struct CloudCoreResults {
  CloudCoreOptions options;
  std::vector<CloudCoreCellResult> cells;  // in options.cells() order
};

// Trial i of cell c (options.cells() order) at index c * trials + i.
CloudCoreResults summarize_cloudcore(const CloudCoreOptions& options,
                                     const std::vector<CloudCoreTrial>& trials);

// Sentences computed from the figures: where two CloudCores served at once and how much v1.5
// changes that, which load balancer recovers faster, where trials did not recover.
std::vector<std::string> cloudcore_findings(const CloudCoreResults& results);

std::string cloudcore_json(const CloudCoreResults& results);
std::string cloudcore_markdown(const CloudCoreResults& results);
std::string cloudcore_html(const CloudCoreResults& results);
Table cloudcore_cell_table(const CloudCoreResults& results);

std::unique_ptr<Study> make_cloudcore_study();

}  // namespace hasim
