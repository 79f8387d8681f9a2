#pragma once
// Scenario files: JSON in the format of scenarios/schema.json, read into a validated
// Scenario. Nothing here throws; every problem becomes a ScenarioError naming the JSON path,
// what was found and how to fix it, and all of a file's problems are reported together.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/json_reader.hpp"
#include "scenarios/scenario.hpp"

namespace hasim {

struct ScenarioError {
  std::string path;  // "$.faults[0].at"; "$" for the whole file
  std::string message;
};

struct LoadResult {
  std::optional<Scenario> scenario;  // set exactly when errors is empty
  std::vector<ScenarioError> errors;
  // What loaded but should change in the file (an old name read as today's), with or
  // without errors; the commands print them as "FILE: PATH: note: MESSAGE".
  std::vector<ScenarioError> notes{};
};

// How to read a file written for an older hasim.
struct LoadOptions {
  // The ideal store's node keeps its name from before issue 11 part 5, "etcd", and "etcd" in
  // the file is not read as "store": for a replay file of format 1, whose recorded trace hash
  // prints that name (properties/replay.cpp).
  bool legacy_store_node = false;
};

LoadResult load_scenario_text(std::string_view json_text, std::string_view source_name,
                              const LoadOptions& options = LoadOptions{});
LoadResult load_scenario_file(const std::string& path);

// Why `text` cannot be read safely as JSON, or nullopt: it nests more than 64 levels deep
// (nlohmann's parser is iterative, but its dump(), copies and comparisons recurse and would
// overflow the stack) or it contains a NUL byte (where nlohmann's parser stops, silently
// ignoring the rest). The loaders check it before parsing.
std::optional<std::string> check_json_text(std::string_view text);

// One line per error: "SOURCE: PATH: MESSAGE\n".
std::string format_errors(const std::vector<ScenarioError>& errors, std::string_view source_name);
// One line per note: "SOURCE: PATH: note: MESSAGE\n".
std::string format_notes(const std::vector<ScenarioError>& notes, std::string_view source_name);

// The allowed keys of every object in the format, named as in scenarios/schema.json:
// "scenario" (the root: the core keys and every registered system's section), "node",
// "clock", "network", "link", "fault" (every kind's keys), each system's key sets (its
// section's objects and "fault:<kind>") and the distribution sets. The loader checks keys
// against exactly these.
const std::vector<KeySet>& scenario_key_sets();

}  // namespace hasim
