#include "properties/fault_space.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "scenarios/fault_text.hpp"
#include "scenarios/build.hpp"
#include "sim/assert.hpp"
#include "sim/clock.hpp"
#include "sim/text.hpp"

namespace hasim {
namespace {

constexpr std::array<std::string_view, kFaultChoices> kChoiceNames{"crash",
                                                                   "pause",
                                                                   "node-down",
                                                                   "partition-isolate",
                                                                   "partition-groups",
                                                                   "partition-oneway",
                                                                   "clock-step",
                                                                   "clock-rate",
                                                                   "apiserver-slow",
                                                                   "apiserver-hang",
                                                                   "apiserver-unavailable",
                                                                   "drop-connections",
                                                                   "upgrade-timing"};

bool names_property(const Scenario& scenario, std::string_view name) {
  return std::any_of(
      scenario.properties.begin(), scenario.properties.end(),
      [name](const std::string& spec) { return spec.substr(0, spec.find(':')) == name; });
}

std::vector<ElectionBounds> elections_of(const Scenario& scenario) {
  std::vector<ElectionBounds> out;
  if (!scenario.controlPlane) return out;
  const ControlPlaneSpec& cp = *scenario.controlPlane;
  const auto add = [&out](std::string who, const ElectionSpec& e) {
    out.push_back({std::move(who), e.leaseDuration, e.renewDeadline, e.retryPeriod,
                   e.renewRequests == RenewRequestsMode::unbounded});
  };
  add("kube-controller-manager", cp.controllerManager);
  add("kube-scheduler", cp.scheduler);
  if (cp.election != ElectionMode::lease) {
    out.push_back({"leader-election-controller", cp.coordination.leaseDuration,
                   cp.coordination.renewDeadline, cp.coordination.retryPeriod, false});
  }
  return out;
}

const ElectionBounds* unbounded_election(const std::vector<ElectionBounds>& elections) {
  for (const ElectionBounds& e : elections) {
    if (e.unbounded_requests) return &e;
  }
  return nullptr;
}

// Faults that can leave a request unanswered until kube-apiserver's request timeout (60s):
// a cut request or response, a hung apiserver, or a node powered off mid-request (no RST).
bool can_hold_requests(FaultChoice choice) {
  return choice == FaultChoice::partition_isolate || choice == FaultChoice::partition_groups ||
         choice == FaultChoice::partition_oneway || choice == FaultChoice::apiserver_hang ||
         choice == FaultChoice::node_down;
}

std::string rate_text(std::int64_t rate_ppb) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", static_cast<double>(rate_ppb) / 1e9);
  return buffer;
}

}  // namespace

std::string_view to_string(FaultChoice choice) {
  return kChoiceNames[static_cast<std::size_t>(choice)];
}

std::optional<FaultChoice> parse_fault_choice(std::string_view name) {
  for (std::size_t i = 0; i < kChoiceNames.size(); ++i) {
    if (kChoiceNames[i] == name) return static_cast<FaultChoice>(i);
  }
  return std::nullopt;
}

std::vector<std::string> fault_choice_names() { return {kChoiceNames.begin(), kChoiceNames.end()}; }

std::optional<FaultChoice> choice_of(const FaultSpec& fault) {
  switch (fault.kind) {
    case FaultSpec::Kind::crash:
      return FaultChoice::crash;
    case FaultSpec::Kind::pause:
      return FaultChoice::pause;
    case FaultSpec::Kind::node_down:
      return FaultChoice::node_down;
    case FaultSpec::Kind::partition:
      switch (fault.partition_mode) {
        case FaultSpec::PartitionMode::isolate:
          return FaultChoice::partition_isolate;
        case FaultSpec::PartitionMode::groups:
          return FaultChoice::partition_groups;
        case FaultSpec::PartitionMode::oneway:
          return FaultChoice::partition_oneway;
      }
      return std::nullopt;
    case FaultSpec::Kind::clock_step:
      return FaultChoice::clock_step;
    case FaultSpec::Kind::clock_rate:
      return FaultChoice::clock_rate;
    case FaultSpec::Kind::apiserver_slow:
      return FaultChoice::apiserver_slow;
    case FaultSpec::Kind::apiserver_hang:
      return FaultChoice::apiserver_hang;
    case FaultSpec::Kind::apiserver_unavailable:
      return FaultChoice::apiserver_unavailable;
    case FaultSpec::Kind::drop_connections:
      return FaultChoice::drop_connections;
    default:
      return std::nullopt;
  }
}

FaultSpace fault_space(const Scenario& scenario, bool within_assumptions) {
  FaultSpace space;
  space.duration = scenario.duration;
  space.within_assumptions = within_assumptions;
  space.upgrade = scenario.upgrade;
  space.elections = elections_of(scenario);
  for (const NodeSpec& node : scenario.nodes) {
    space.nodes.push_back(node.name);
    // The store stands for an external etcd: its outages are partitions (isolate "etcd").
    if (!scenario.controlPlane || node.name != kStoreNode) space.hosts.push_back(node.name);
  }
  if (scenario.controlPlane) space.control_plane = scenario.controlPlane->nodes;
  const auto world = build_world(scenario, scenario.seed);
  for (ProcessId p = 0; p < world->process_count(); ++p) {
    const std::string& host = world->node_name(world->process_node(p));
    if (std::find(space.hosts.begin(), space.hosts.end(), host) != space.hosts.end()) {
      space.processes.push_back(world->process_name(p));
    }
  }

  if (within_assumptions) {
    // single-leader: what can stall one renewal -- a pause, API latency, clock-rate skew --
    // must add up to less than LD - RP - RD. Each gets a third of the tightest margin, so any
    // one fault of each kind together stay inside it.
    for (const ElectionBounds& e : space.elections) {
      const Duration third = e.margin() / 3 - milliseconds(1);
      space.max_pause = std::min(space.max_pause, third);
      space.max_api_latency = std::min(space.max_api_latency, third);
      // Rates in [1/s, s] differ by at most s^2 = 1 + third/(RP + RD).
      const double q = 1.0 + static_cast<double>(std::max<std::int64_t>(0, third.ns)) /
                                 static_cast<double>((e.retryPeriod + e.renewDeadline).ns);
      const double sq = std::sqrt(q);
      space.max_rate_ppb =
          std::min(space.max_rate_ppb, static_cast<std::int64_t>(std::floor(sq * 1e6 - 1)) * 1000);
      space.min_rate_ppb =
          std::max(space.min_rate_ppb, static_cast<std::int64_t>(std::ceil(1e6 / sq + 1)) * 1000);
    }
  }

  const bool cp = !space.control_plane.empty();
  const bool pause_ok = space.max_pause >= milliseconds(10);
  const bool rates_ok = !(within_assumptions && names_property(scenario, "no-false-suspicion")) &&
                        space.min_rate_ppb < space.max_rate_ppb;
  const bool partitions_ok = space.nodes.size() >= 2;
  for (std::size_t i = 0; i < kFaultChoices; ++i) {
    const auto choice = static_cast<FaultChoice>(i);
    bool ok = true;
    switch (choice) {
      case FaultChoice::crash:
        ok = !space.processes.empty();
        break;
      case FaultChoice::pause:
        ok = !space.processes.empty() && pause_ok;
        break;
      case FaultChoice::node_down:
      case FaultChoice::clock_step:
      case FaultChoice::drop_connections:
        ok = !space.hosts.empty();
        break;
      case FaultChoice::clock_rate:
        ok = !space.hosts.empty() && rates_ok;
        break;
      case FaultChoice::partition_isolate:
      case FaultChoice::partition_groups:
      case FaultChoice::partition_oneway:
        ok = partitions_ok;
        break;
      case FaultChoice::apiserver_slow:
        ok = cp && space.max_api_latency >= milliseconds(1);
        break;
      case FaultChoice::apiserver_hang:
        ok = cp;
        break;
      case FaultChoice::apiserver_unavailable:
        ok = cp;
        break;
      case FaultChoice::upgrade_timing:
        ok = space.upgrade.has_value();
        break;
    }
    // Unbounded renewals wait for a request however long it takes: within the assumptions no
    // fault may leave one unanswered.
    if (within_assumptions && unbounded_election(space.elections) != nullptr &&
        can_hold_requests(choice)) {
      ok = false;
    }
    if (ok) space.applicable.push_back(choice);
  }
  return space;
}

std::vector<std::string> broken_assumptions(const Scenario& scenario) {
  std::vector<std::string> out;
  const std::vector<ElectionBounds> elections = elections_of(scenario);
  const ElectionBounds* unbounded = unbounded_election(elections);

  // The longest pause and the largest API latency any fault brings.
  Duration pause{}, latency{};
  std::string pause_who, latency_who;
  for (const FaultSpec& fault : scenario.faults) {
    const std::string who = fault.targets.empty() ? "" : fault.targets.front();
    if (fault.kind == FaultSpec::Kind::pause && fault.for_duration && *fault.for_duration > pause) {
      pause = *fault.for_duration;
      pause_who = who;
    }
    if (fault.kind == FaultSpec::Kind::apiserver_slow && fault.latency > latency) {
      latency = fault.latency;
      latency_who = who;
    }
    const auto choice = choice_of(fault);
    if (unbounded != nullptr && choice && can_hold_requests(*choice)) {
      out.push_back("the " + describe_fault(fault) +
                    " can leave a request unanswered until kube-apiserver's request timeout, "
                    "while " +
                    unbounded->who +
                    " renews with renewRequests: unbounded (client-go up to 1.11), which "
                    "waits for it: every request must be answered within leaseDuration - "
                    "retryPeriod - renewDeadline = " +
                    format_duration(unbounded->margin()));
    }
  }

  // Clock rates: every host's configured rate and every clock-rate fault's.
  std::int64_t low = 0, high = 0;
  std::string low_who, high_who;
  const auto consider = [&](std::int64_t rate, const std::string& who) {
    if (low_who.empty() || rate < low) low = rate, low_who = who;
    if (high_who.empty() || rate > high) high = rate, high_who = who;
  };
  bool any_rate = false;
  for (const NodeSpec& node : scenario.nodes) {
    if (node.clock.rate_ppb != kRatePerfect) any_rate = true;
    consider(node.clock.rate_ppb, node.name + "'s clock");
  }
  for (const FaultSpec& fault : scenario.faults) {
    if (fault.kind != FaultSpec::Kind::clock_rate) continue;
    any_rate = true;
    consider(fault.rate_ppb, "the clock-rate fault on " + fault.targets.front() + " at " +
                                 format_duration(fault.at));
  }
  const double skew = any_rate ? static_cast<double>(high) / static_cast<double>(low) : 1.0;

  // single-leader: a leader may act until RP + RD after its last renewal (wait.Until's RP,
  // then the poll's RD), on its own clock; a challenger takes over LD after it saw that
  // renewal, on its clock. A pause of the leader and the renewal's response latency add to
  // the former. So pause + latency + (RP + RD) * (skew - 1) must stay below LD - RP - RD;
  // with skew alone, below LD/(RP + RD) -- tighter than the LD/RD client-go documents.
  for (const ElectionBounds& e : elections) {
    const Duration skew_cost{static_cast<std::int64_t>(
        static_cast<double>((e.retryPeriod + e.renewDeadline).ns) * (skew - 1.0))};
    const Duration total = pause + latency + skew_cost;
    if (total < e.margin()) continue;
    std::vector<std::string> parts;
    if (pause > Duration{})
      parts.push_back("a pause of " + format_duration(pause) + " (" + pause_who + ")");
    if (latency > Duration{}) {
      parts.push_back("API latency of " + format_duration(latency) + " (" + latency_who +
                      "'s kube-apiserver)");
    }
    if (skew_cost > Duration{}) {
      parts.push_back("clock rates differing by " +
                      rate_text(static_cast<std::int64_t>(skew * 1e9)) + "x (" + high_who + " at " +
                      rate_text(high) + ", " + low_who + " at " + rate_text(low) +
                      "), worth (retryPeriod + renewDeadline) x " +
                      rate_text(static_cast<std::int64_t>((skew - 1.0) * 1e9)) + " = " +
                      format_duration(skew_cost));
    }
    out.push_back("what can stall a renewal adds up to " + format_duration(total) +
                  ", not less than leaseDuration - retryPeriod - renewDeadline = " +
                  format_duration(e.margin()) + " of " + e.who + ": " + join_words(parts, " + "));
    break;  // one sentence: the first election whose margin it exhausts
  }
  if (any_rate && low != high && names_property(scenario, "no-false-suspicion")) {
    out.push_back("clock rates are not equal (" + high_who + " at " + rate_text(high) + ", " +
                  low_who + " at " + rate_text(low) + "), as no-false-suspicion assumes");
  }
  return out;
}

}  // namespace hasim
