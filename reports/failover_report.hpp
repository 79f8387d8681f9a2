#pragma once
// `hasim report failover`: how long a control plane goes without a working
// kube-controller-manager leader after its leader crashes, is partitioned away, or pauses,
// as distributions over trials, with the count of trials in which two leaders acted at once.
// Writes failover.json (versioned, with every sample), failover.md and failover.html.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "reports/failover_trial.hpp"
#include "reports/trials.hpp"

namespace hasim {

struct FailoverOptions {
  FailoverSettings settings;
  std::uint64_t trials = 1000;  // per fault kind
  std::uint64_t seed = 1;
  unsigned jobs = 1;
};

struct FailoverCell {
  std::vector<Duration> unavailable;  // recovered trials, in trial order
  std::uint64_t trials = 0;
  std::uint64_t not_recovered = 0;
  std::uint64_t dual_leader = 0;
  std::uint64_t harmful = 0;
};

struct FailoverResults {
  FailoverOptions options;
  std::map<FailoverFault, FailoverCell> cells;
};

// Trial i of fault kind k uses seed trial_seed(seed, k * trials + i): independent of --jobs.
FailoverResults run_failover_study(const FailoverOptions& options, const TrialProgress& progress);

std::string failover_json(const FailoverResults& results);
std::string failover_markdown(const FailoverResults& results);
std::string failover_html(const FailoverResults& results);

}  // namespace hasim
