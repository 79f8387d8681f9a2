#include "properties/fault_space.hpp"

#include <algorithm>
#include <cstdio>

#include "properties/check_system.hpp"
#include "scenarios/build.hpp"
#include "sim/assert.hpp"
#include "sim/clock.hpp"

namespace hasim {
namespace {

// Processes on the hosts, in the order the world numbers them, and those that mount a volume.
// A process a controller starts (a pod's container) is left out: its name at build time
// names a node it may never run on, and a crash's restart would start it outside its pod;
// its system's own choices aim at it (druid-pod-delete, druid-crash-loop).
void add_host_processes(const Scenario& scenario, FaultSpace& space) {
  const auto world = build_world(scenario, scenario.seed);
  for (ProcessId p = 0; p < world->process_count(); ++p) {
    if (!world->starts_with_node(p)) continue;
    const std::string& host = world->node_name(world->process_node(p));
    if (std::find(space.hosts.begin(), space.hosts.end(), host) == space.hosts.end()) continue;
    space.processes.push_back(world->process_name(p));
    if (world->mounts_volume(p)) space.mounts.push_back(world->process_name(p));
  }
}

bool allowed(const Scenario& scenario, const FaultSpace& space, const FaultChoiceDef& choice) {
  if (!choice.applicable(space)) return false;
  if (!space.within_assumptions) return true;
  for (const CheckSystem* system : check_systems()) {
    if (system->forbids != nullptr && system->forbids(scenario, space, choice)) return false;
  }
  return true;
}

}  // namespace

std::vector<std::string> fault_choice_names() {
  std::vector<std::string> names;
  for (const FaultChoiceDef* choice : fault_choices()) names.emplace_back(choice->name);
  return names;
}

std::optional<FaultChoice> choice_of(const FaultSpec& fault) {
  for (const FaultChoiceDef* choice : fault_choices()) {
    if (choice->matches != nullptr && choice->matches(fault)) return std::string(choice->name);
  }
  return std::nullopt;
}

bool names_property(const Scenario& scenario, std::string_view name) {
  return std::any_of(
      scenario.properties.begin(), scenario.properties.end(),
      [name](const std::string& spec) { return spec.substr(0, spec.find(':')) == name; });
}

std::string rate_text(std::int64_t rate_ppb) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", static_cast<double>(rate_ppb) / 1e9);
  return buffer;
}

double RateSpread::ratio() const {
  return any ? static_cast<double>(high) / static_cast<double>(low) : 1.0;
}

RateSpread rate_spread(const Scenario& scenario) {
  RateSpread r;
  const auto consider = [&r](std::int64_t rate, const std::string& who) {
    if (r.low_who.empty() || rate < r.low) r.low = rate, r.low_who = who;
    if (r.high_who.empty() || rate > r.high) r.high = rate, r.high_who = who;
  };
  for (const NodeSpec& node : scenario.nodes) {
    if (node.clock.rate_ppb != kRatePerfect) r.any = true;
    consider(node.clock.rate_ppb, node.name + "'s clock");
  }
  for (const FaultSpec& fault : scenario.faults) {
    if (fault.kind != "clock-rate") continue;
    r.any = true;
    consider(fault.rate_ppb, "the clock-rate fault on " + fault.targets.front() + " at " +
                                 format_duration(fault.at));
  }
  return r;
}

FaultSpace fault_space(const Scenario& scenario, bool within_assumptions) {
  FaultSpace space;
  space.duration = scenario.duration;
  space.within_assumptions = within_assumptions;
  for (const NodeSpec& node : scenario.nodes) {
    space.nodes.push_back(node.name);
    space.hosts.push_back(node.name);
  }
  for (const CheckSystem* system : check_systems()) {
    if (system->fill_space != nullptr) system->fill_space(scenario, space);
  }
  add_host_processes(scenario, space);
  for (const FaultChoiceDef* choice : fault_choices()) {
    if (allowed(scenario, space, *choice)) space.applicable.emplace_back(choice->name);
  }
  return space;
}

std::vector<std::string> broken_assumptions(const Scenario& scenario) {
  std::vector<std::string> out;
  for (const CheckSystem* system : check_systems()) {
    if (system->broken != nullptr) system->broken(scenario, out);
  }
  return out;
}

}  // namespace hasim
