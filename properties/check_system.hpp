#pragma once
// The system registry, check half. A system tells `hasim run` and `hasim check` what they
// need beyond its scenario half (scenarios/system.hpp): its properties (name, argument,
// assumptions, monitor factory), the fault choices `hasim check` draws for it (applicable
// when, drawn how, matched how), what it adds to the fault space (targets, and the envelope
// narrowed to its properties' assumptions) and which of those assumptions a schedule breaks.
// The list is systems/registry.cpp; this header only declares how to reach it.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "properties/catalog.hpp"
#include "properties/fault_space.hpp"
#include "properties/property.hpp"
#include "properties/schedule_gen.hpp"

namespace hasim {

struct PropertyDef {
  PropertyInfo info;
  // A monitor for `spec` (checked by validate_property_spec); `bound` is its argument if the
  // property takes one.
  std::unique_ptr<Property> (*make)(const std::string& spec, std::optional<Duration> bound);
};

// How hard a run's faults hit: outages up to this share of the envelope's range.
struct Intensity {
  int percent = 100;
  Duration scaled(Duration low, Duration high) const {
    return low + Duration{(high - low).ns / 100 * percent};
  }
};

// How a choice that redraws a section carries its draw (Redraw::value, the choice's own type)
// into the scenario, a summary line, the replay file's JSON and the shrinker, which first
// tries without it (the scenario's own values) and then moves its start earlier.
struct RedrawOps {
  void (*apply)(const std::any& value, Scenario& scenario);
  std::string (*describe)(const std::any& value);
  void (*write)(const std::any& value, Json& scenario);
  Duration (*start)(const std::any& value);
  void (*set_start)(std::any& value, Duration at);
};

struct FaultChoiceDef {
  std::string_view name;  // as `--kinds` and the summary name it: "partition-isolate"
  // Whether the space has targets for it and room in its envelope.
  bool (*applicable)(const FaultSpace& space) = nullptr;
  // One fault, from RapidCheck generators (sampled by hasim check on one thread). Null for
  // a choice that redraws a section instead (`redraw`).
  FaultSpec (*draw)(const FaultSpace& space, const Intensity& intensity) = nullptr;
  // Whether a fault of a scenario counts as this choice.
  bool (*matches)(const FaultSpec& fault) = nullptr;
  // Can leave a request unanswered until kube-apiserver's request timeout (a cut request or
  // response, a hung apiserver, a node powered off mid-request without RST).
  bool holds_requests = false;
  // Redraws the scenario's section timings into `schedule` (the upgrade's start, order, ...),
  // as one Redraw that `redraw_ops` handles.
  void (*redraw)(const FaultSpace& space, Schedule& schedule) = nullptr;
  const RedrawOps* redraw_ops = nullptr;
};

struct CheckSystem {
  std::string_view name;  // as in its scenario half
  std::vector<PropertyDef> properties;
  std::vector<FaultChoiceDef> choices;
  // Adds its targets to `space` and, when space.within_assumptions, narrows the envelope to
  // what its properties assume. May be null.
  void (*fill_space)(const Scenario& scenario, FaultSpace& space) = nullptr;
  // Whether `choice` must not be drawn within its properties' assumptions. May be null.
  bool (*forbids)(const Scenario& scenario, const FaultSpace& space,
                  const FaultChoiceDef& choice) = nullptr;
  // The assumptions of its properties that `scenario` (with its faults) breaks, as sentences.
  void (*broken)(const Scenario& scenario, std::vector<std::string>& out) = nullptr;
};

// Every registered system's check half, in registry order (systems/registry.cpp).
const std::vector<const CheckSystem*>& check_systems();

// Every fault choice in registry order, and lookups.
const std::vector<const FaultChoiceDef*>& fault_choices();
const FaultChoiceDef* find_fault_choice(std::string_view name);
std::size_t fault_choice_index(std::string_view name);  // into fault_choices(); must exist

// Draw helpers for choices, on a millisecond grid so schedules read well and shrink in
// whole ms. RapidCheck generators: call only while a schedule is being sampled.
Duration draw_duration(Duration low, Duration high);
const std::string& pick(const std::vector<std::string>& items);
std::vector<std::string> shuffled(std::vector<std::string> items);
// A non-empty proper subset, in the given order (a partition must leave someone out).
std::vector<std::string> proper_subset(const std::vector<std::string>& items);
// An outage of 1s up to the intensity's share of space.max_outage.
Duration draw_outage(const FaultSpace& space, const Intensity& intensity);
// A fault of `kind` on one of `targets`, lasting an outage (drawn in that order).
FaultSpec draw_outage_fault(std::string kind, const std::vector<std::string>& targets,
                            const FaultSpace& space, const Intensity& intensity);

}  // namespace hasim
