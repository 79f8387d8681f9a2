#pragma once
// Shared by the loader_*.cpp files and loader.cpp; not for other users.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/election/semver.hpp"
#include "scenarios/loader.hpp"

namespace hasim::scenario_loader {

// The allowed keys of set `name` from scenario_key_sets(); the name must exist.
const std::vector<std::string>& keys(std::string_view name);

struct NodeTable {
  bool known = false;  // nodes were read without error, so references can be checked
  std::vector<std::string> names;
  std::map<std::string, std::string, std::less<>> zone_of;  // every node; "" if none
};

struct Context {
  JsonReader& reader;
  Scenario& scenario;
  NodeTable nodes;
  std::optional<Duration> duration;  // the run's length, if valid
  bool control_plane = false;        // the scenario has a "controlPlane" section
  // Its nodes, when they were read without error (so fault targets can be checked).
  std::optional<std::vector<std::string>> control_plane_nodes;
  bool upgrade = false;  // the scenario has an "upgrade" section ("election": "mixed" needs it)
  // controlPlane.version (given or the default) and emulationVersion (if given), parsed, when
  // valid, so the upgrade can be checked against them.
  std::optional<election::SemVer> version;
  std::optional<election::SemVer> emulation_version;
};

// Reports `name` unless it is a valid name; `what` says whose ("the scenario name").
void check_name(JsonReader& r, const std::string& name, const std::string& path,
                std::string_view what);
// "[A-Za-z0-9._-]+": names appear in file names, traces and "node/process" targets.
bool is_valid_name(std::string_view name);
// Reports `name` at `path` unless it is a node; true if it is (or nodes are unknown).
bool check_node(Context& c, const std::string& name, const std::string& path);
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
// Adds the store's node kStoreNode ("etcd") to c.scenario.nodes and c.nodes unless a node has
// that name; a scenario with a control plane has it. Idempotent.
void add_store_node(Context& c);
// "controlPlane": fills c.scenario.controlPlane and c.control_plane*, and adds the store's
// node. Read after "nodes" and before "faults".
void read_control_plane(Context& c, const Json& value, const std::string& path);
void read_faults(Context& c, const Json& value, const std::string& path);
// "upgrade": fills c.scenario.upgrade. Read after "controlPlane" (it needs its nodes and
// version).
void read_upgrade(Context& c, const Json& value, const std::string& path);

// "a, b, c"
std::string join(const std::vector<std::string>& words);
// A duration field of `object` into `target`; false if it was given and is invalid.
bool read_duration_field(JsonReader& r, const Json& object, const std::string& path,
                         std::string_view key, DurationSign sign, Duration& target);
// A boolean field of `object` into `target`; false if it was given and is invalid.
bool read_bool_field(JsonReader& r, const Json& object, const std::string& path,
                     std::string_view key, bool& target);
// A Kubernetes version in strict semver (blang/semver Parse, as API validation of a
// LeaseCandidate's versions): "1.31.0", "1.32.0-rc.1". Reports anything else with the
// tolerant reading as the fix ("v1.31" -> "1.31.0"). `target` is set only when valid.
std::optional<election::SemVer> read_version(JsonReader& r, const Json& value,
                                             const std::string& path, std::string& target);
// The next minor version up (or down; "" below x.0) from `v`, for examples in messages.
std::string neighbour_minor(const election::SemVer& v, bool up);
// "lease", "coordinated", "mixed", in the order of ElectionMode.
const std::vector<std::string>& election_mode_names();

}  // namespace hasim::scenario_loader
