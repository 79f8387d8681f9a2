#pragma once
// `hasim report failover`: how long a control plane goes without a working
// kube-controller-manager leader after its leader crashes, is partitioned away, or pauses,
// as distributions over trials, with the count of trials in which two leaders acted at once.
// A study (reports/study.hpp) whose cells are the three faults; it writes failover.json
// (versioned, with every sample), failover.md and failover.html, and runs as shards.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "reports/failover_trial.hpp"
#include "reports/study.hpp"

namespace hasim {

struct FailoverOptions {
  FailoverSettings settings;
  std::uint64_t trials = 1000;  // per fault kind
  std::uint64_t seed = 1;
  // The cells, in kAllFailoverFaults order (--faults); the default three by default.
  std::vector<FailoverFault> faults{std::begin(kFailoverFaults), std::end(kFailoverFaults)};
  // Whether `faults` is the default (the JSON then says nothing about it, as before).
  bool default_faults() const;
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

// Trial i of fault kind k (in options.faults order) at index k * trials + i.
FailoverResults summarize_failover(const FailoverOptions& options,
                                   const std::vector<FailoverTrial>& trials);

std::string failover_json(const FailoverResults& results);
std::string failover_markdown(const FailoverResults& results);
std::string failover_html(const FailoverResults& results);
// Per fault: trials, the unavailability summary in ns, dual-leader and harmful counts.
Table failover_cell_table(const FailoverResults& results);

std::unique_ptr<Study> make_failover_study();

}  // namespace hasim
