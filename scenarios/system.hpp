#pragma once
// The system registry, scenario half. A system (the kernel's own nodes and faults, the
// control plane, the upgrade orchestrator, the heartbeat demo, ...) tells the scenario format
// everything it contributes: its section (keys, reading with JSON-path errors, defaults), the
// processes it runs, how it builds into a World, its fault kinds (read, apply, write back to
// JSON, describe, shrink) and its fuzz dictionary words. The loader, build_world, fault_json,
// fault_text and the shrinker only walk these entries; none names a system.
//
// The list itself is one explicit list in systems/registry.cpp (the layer above scenarios/
// and properties/), which also joins each system's check half (properties/check_system.hpp).
// This header only declares how to reach it, so scenarios/ includes nothing above itself.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/json_reader.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/sections.hpp"

namespace hasim {

class World;
namespace scenario_loader {
struct Context;
}

// What systems leave for one another while a World is built (e.g. the control plane's
// apiserver conditions, which apiserver faults and the upgrade use), one typed entry per
// system: a type with `static constexpr std::string_view kSection`.
using BuildState = Sections;

// A value of a fault that shrinking makes smaller, on the millisecond grid: its distance
// from harmless (1 ms of latency, a 1 ms clock step, 1 ppm off a perfect clock). `set` keeps
// the sign the fault has.
struct FaultMagnitude {
  std::int64_t (*get)(const FaultSpec&);  // >= 0
  void (*set)(FaultSpec&, std::int64_t);
};

// A role a fault may aim at instead of a named process: "leader:kube-system/kube-scheduler"
// is whichever process acts as that lease's leader when the fault fires. Resolved then, not
// when the scenario is written, so a scenario does not rely on who wins an election; the
// trace records the concrete process ("role-resolved"), and so does a replay file.
struct RoleKind {
  std::string_view name;     // "leader"
  std::string_view example;  // "leader:kube-system/kube-controller-manager"
  std::string_view meaning;  // for messages: "the process acting as the lease's leader"
  // nullopt if `argument` (after "name:") is well-formed, else why not.
  std::optional<std::string> (*check)(std::string_view argument);
  // The process ("node/proc") that holds the role now, if any.
  std::optional<std::string> (*resolve)(const World& world, const BuildState& built,
                                        std::string_view argument);
};

struct FaultKind {
  std::string_view name;  // "kind" in a scenario's faults
  // Reads the kind's targets and parameters (at, kind and for are read already); reports
  // problems on c.reader.
  void (*read)(scenario_loader::Context& c, const Json& fault, const std::string& path,
               FaultSpec& spec);
  // Schedules the fault at spec.at on `world` (and its end at at + for, where it has one).
  void (*apply)(World& world, const Scenario& scenario, const FaultSpec& spec,
                const BuildState& built);
  // The kind's keys back into `out` (at, kind and for are written already): the inverse of
  // read, so a replay file embeds a generated schedule as ordinary faults.
  void (*write)(const FaultSpec& spec, Json& out);
  // "partition isolating cp-1": the fault as a phrase, without its time.
  std::string (*describe)(const FaultSpec& spec);
  std::optional<FaultMagnitude> magnitude;  // besides "for", which every kind shrinks
};

struct ScenarioSystem {
  std::string_view name;     // "control-plane"
  std::string_view section;  // its top-level key, "controlPlane"; "" for none (the kernel)
  // Its objects' allowed keys, named as in scenarios/schema.json's definitions: the section's
  // ("controlPlane", ...) and each fault kind's ("fault:apiserver-hang").
  std::vector<KeySet> key_sets;
  // Before anything is read, for a section present in the file: rewrites in `doc` what an
  // older hasim wrote into today's form (the store's old node name), with a note
  // (c.reader.note) at each place it changed. May be null.
  void (*migrate)(scenario_loader::Context& c, Json& doc) = nullptr;
  // After "nodes", for a section present in the file: nodes it adds (the store's), so links
  // and faults may name them. May be null.
  void (*add_nodes)(scenario_loader::Context& c, const Json& section) = nullptr;
  // Reads the section into c.scenario.sections, after the network and the sections listed
  // before it. May be null (no section).
  void (*read)(scenario_loader::Context& c, const Json& section, const std::string& path) = nullptr;
  // Checks the scenario's faults and properties against its section, once everything is
  // read (e.g. a property or a fault role that the section's mode has no use for). May be null.
  void (*cross_check)(scenario_loader::Context& c) = nullptr;
  // The processes the system runs on `node`, as far as the file read so far says: nullopt
  // if they cannot be known (an error elsewhere is reported). May be null (none).
  std::optional<std::vector<std::string>> (*processes_on)(const scenario_loader::Context& c,
                                                          const std::string& node) = nullptr;
  // Where its processes come from, for messages: "\"heartbeat\" (\"heartbeat\" on every node)".
  std::string_view process_origin;
  // Adds its processes to `world` (section present) and leaves what its faults need.
  void (*build)(World& world, const Scenario& scenario, BuildState& built) = nullptr;
  // Timed actions that come after every system is built and before the faults (the upgrade).
  void (*schedule)(World& world, const Scenario& scenario, BuildState& built) = nullptr;
  std::vector<FaultKind> fault_kinds;
  std::vector<RoleKind> roles;  // fault-target roles it can resolve
  // The trace event kinds its models emit, declared once in their trace_kinds.hpp.
  std::vector<std::string_view> trace_kinds;
  // Words for the fuzzer's dictionary beyond its keys (enumeration values, kinds).
  std::vector<std::string> dictionary;
};

// Every registered system, in the registry's order (systems/registry.cpp).
const std::vector<const ScenarioSystem*>& scenario_systems();

// The fault kind named `name`, or null.
const FaultKind* find_fault_kind(std::string_view name);
// The kind of a loaded fault (its name was checked).
const FaultKind& fault_kind(const FaultSpec& spec);
// The role kind a "name:argument" role names, or null.
const RoleKind* find_role_kind(std::string_view role);
// Every role kind's name, in registry order.
std::vector<std::string> role_kind_names();

// Every fault kind's name, in registry order.
const std::vector<std::string>& fault_kind_names();

// The fuzzer's dictionary: every key of every key set, and every system's words.
std::vector<std::string> scenario_dictionary();

// nullopt if `spec` ("single-leader", "detect-crash:10s") names a registered property with a
// well-formed argument; otherwise the error sentence. The properties are the check half of
// the registry (properties/check_system.hpp); the registry answers for them here, so the
// loader needs nothing above scenarios/.
std::optional<std::string> validate_property_spec(std::string_view spec);

}  // namespace hasim
