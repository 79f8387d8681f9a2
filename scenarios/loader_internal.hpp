#pragma once
// Shared by the loader (loader*.cpp) and the systems' section and fault readers
// (scenarios/*/); not for other users.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <set>

#include "scenarios/loader.hpp"
#include "scenarios/sections.hpp"
#include "sim/did_you_mean.hpp"

namespace hasim::scenario_loader {

// The allowed keys of set `name` from scenario_key_sets(); the name must exist.
const std::vector<std::string>& keys(std::string_view name);

struct NodeTable {
  bool known = false;  // nodes were read without error, so references can be checked
  std::vector<std::string> names;
  std::map<std::string, std::string, std::less<>> zone_of;  // every node; "" if none
  std::map<std::string, std::vector<std::string>, std::less<>> disks_of;  // every node
};

struct Context {
  JsonReader& reader;
  Scenario& scenario;
  NodeTable nodes;
  std::optional<Duration> duration;  // the run's length, if valid
  // The registered sections the file has, whether or not they read without error.
  std::set<std::string, std::less<>> present;
  // What a system's reader leaves for the readers after it (the control plane's nodes and
  // version for the upgrade and the apiserver faults), one typed entry per system.
  Sections notes;
  LoadOptions options{};  // how to read a file written for an older hasim

  bool has(std::string_view section) const { return present.count(section) > 0; }
};

// Reports `name` unless it is a valid name; `what` says whose ("the scenario name").
void check_name(JsonReader& r, const std::string& name, const std::string& path,
                std::string_view what);
// "[A-Za-z0-9._-]+": names appear in file names, traces and "node/process" targets.
bool is_valid_name(std::string_view name);
// Reports `name` at `path` unless it is a node; true if it is (or nodes are unknown).
bool check_node(Context& c, const std::string& name, const std::string& path);
// Reports `disk` at `path` unless every node in `nodes` has a disk by that name.
bool check_disk(Context& c, const std::vector<std::string>& nodes, const std::string& disk,
                const std::string& path);
// A non-empty list of distinct node names; each must exist.
std::optional<std::vector<std::string>> read_node_list(Context& c, const Json& value,
                                                       const std::string& path);
// "drift": "+50ppm" or "rate": 2.5 of `object` (at most one) as parts per billion; nullopt
// if neither is given or one is invalid. `given` tells which.
std::optional<std::int64_t> read_rate(JsonReader& r, const Json& object, const std::string& path,
                                      bool& given);

// "nodes": fills c.scenario.nodes and c.nodes.
void read_nodes(Context& c, const Json& value, const std::string& path);
void read_network(Context& c, const Json& value, const std::string& path);
void read_faults(Context& c, const Json& value, const std::string& path);
// A duration field of `object` into `target`; false if it was given and is invalid.
bool read_duration_field(JsonReader& r, const Json& object, const std::string& path,
                         std::string_view key, DurationSign sign, Duration& target);
// A boolean field of `object` into `target`; false if it was given and is invalid.
bool read_bool_field(JsonReader& r, const Json& object, const std::string& path,
                     std::string_view key, bool& target);
// Exactly one of `forms` must be present in `fault`; reports none or several. Returns the
// one, or "". `examples` completes "add ..." when none is given.
std::string one_of(JsonReader& r, const Json& fault, const std::string& path,
                   const std::vector<std::string>& forms, const std::string& kind,
                   std::string_view examples);
// "a", "b" or "c" (with `last_joiner` before the last).
std::string join_quoted(const std::vector<std::string>& words, std::string_view last_joiner);

// The targets of a fault: "node", "nodes" or (for process-level kinds) "process"
// ("node/process", which must run there) into spec.targets; or, where the kind allows it, a
// "role" resolved when the fault fires (into spec.role; for a node-level kind, the node of the
// process holding the role).
// "role": "KIND:ARGUMENT" at `at` into spec.role, checked against the registered roles.
void read_role(Context& c, const Json& value, const std::string& at, FaultSpec& spec);
enum class TargetForms { nodes, nodes_or_role, nodes_or_process, process_only };
void read_targets(Context& c, const Json& fault, const std::string& path, FaultSpec& spec,
                  TargetForms forms);

// Reads `key` of `object` as one of `names` (in enum order) into `target`; false if it was
// given and is not one of them (the error names the choices and the nearest one).
template <typename Enum>
bool read_choice(Context& c, const Json& object, const std::string& path, std::string_view key,
                 const std::vector<std::string>& names, Enum& target) {
  const Json* v = JsonReader::field(object, key);
  if (v == nullptr) return true;
  const std::string at = JsonReader::key_path(path, key);
  const auto text = c.reader.string(*v, at);
  if (!text) return false;
  const auto it = std::find(names.begin(), names.end(), *text);
  if (it == names.end()) {
    c.reader.error(at, "expected " + join_quoted(names, " or ") + ", found \"" + *text + "\"" +
                           did_you_mean(*text, names));
    return false;
  }
  target = static_cast<Enum>(it - names.begin());
  return true;
}

}  // namespace hasim::scenario_loader
