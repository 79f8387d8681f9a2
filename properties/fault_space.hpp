#pragma once
// What `hasim check` may do to a scenario: the fault choices that apply to it (the swarm's
// menu, from every registered system: properties/check_system.hpp), whom each can hit, how
// intense it may be, and the assumptions the scenario's properties rest on, in numbers, so a
// schedule can be kept within them or be told which one it breaks.
#include <optional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/scenario.hpp"
#include "scenarios/sections.hpp"

namespace hasim {

// A fault choice's name, as `--kinds` and the summary name it ("crash", "partition-isolate",
// "apiserver-hang", "upgrade-timing"); registered by a system.
using FaultChoice = std::string;
std::vector<std::string> fault_choice_names();
// The choice a fault counts as; nullopt for kinds the generator does not draw.
std::optional<FaultChoice> choice_of(const FaultSpec& fault);

struct FaultSpace {
  Duration duration{};                 // the run's
  std::vector<std::string> nodes;      // partitions may cut any node, the store's too
  std::vector<std::string> hosts;      // nodes whose processes may crash or power off
  std::vector<std::string> processes;  // "node/process" on the hosts
  std::vector<std::string> mounts;     // those of them that mount a volume (sim/disk.hpp)
  // What each system adds for its own choices (the control plane's apiservers and
  // elections, the upgrade to redraw), one typed entry per system.
  Sections facts;
  std::vector<FaultChoice> applicable;  // in registry order
  bool within_assumptions = true;

  // Envelope (inclusive bounds), narrowed to the assumptions when within_assumptions.
  Duration max_outage = minutes(3);  // crash, node-down, partition, apiserver faults
  Duration max_pause = minutes(1);
  Duration max_api_latency = seconds(20);
  Duration max_clock_step = minutes(1);
  std::int64_t min_rate_ppb = 500'000'000;  // clock-rate faults: rates in [min, max]
  std::int64_t max_rate_ppb = 1'999'000'000;
  // Crash downtimes of particular processes ("node/process"), below max_outage: a system's
  // assumption that a process restarts soon enough (the control plane's only candidate of a
  // lease, for eventually-leader's bound).
  std::map<std::string, Duration> max_restart;
};

// Builds the space for `scenario` (its nodes, processes and every system's additions).
// `within_assumptions` keeps every drawn fault inside the assumptions of the properties.
FaultSpace fault_space(const Scenario& scenario, bool within_assumptions);

// The documented assumptions the scenario with this schedule breaks, as sentences naming the
// fault (or the configuration) and the bound, e.g. "cp-1/kube-controller-manager is paused
// for 3.5s, longer than leaseDuration - retryPeriod - renewDeadline = 3s of
// kube-controller-manager". Empty: every assumption holds, so a violation is a finding.
std::vector<std::string> broken_assumptions(const Scenario& scenario);

// The spread of clock rates a scenario runs with: every node's configured rate and every
// clock-rate fault's, with who has the lowest and the highest (for sentences).
struct RateSpread {
  bool any = false;  // some rate is not perfect
  std::int64_t low = 0;
  std::int64_t high = 0;
  std::string low_who;
  std::string high_who;
  double ratio() const;  // high / low, 1 if !any
};
RateSpread rate_spread(const Scenario& scenario);
// "1.55", as a rate reads in a sentence.
std::string rate_text(std::int64_t rate_ppb);

// Whether the scenario names property `name` (with or without an argument).
bool names_property(const Scenario& scenario, std::string_view name);

}  // namespace hasim
