#pragma once
// Where hasim finds its data (the built-in scenarios and scenarios/schema.json), so that an
// installed hasim works from any directory and a build-tree hasim uses its source tree. In
// order: $HASIM_DATA_DIR, then share/hasim beside the executable (an installed hasim: PREFIX/
// bin/hasim reads PREFIX/share/hasim), then the source tree the binary was built from.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace hasim {

// What the lookup depends on, as data, so tests can give their own.
struct DataDirInputs {
  std::optional<std::string> env;      // $HASIM_DATA_DIR; nullopt when unset or empty
  std::filesystem::path executable;    // this program's file; empty if unknown
  std::filesystem::path install_data;  // the data dir relative to the executable's folder
  std::filesystem::path source_dir;    // the source tree this binary was built from
};

// This process's inputs: the environment, its executable's path and the compiled-in paths.
DataDirInputs current_data_dir_inputs();

struct DataDirLookup {
  std::filesystem::path dir;  // holds scenarios/; empty when none was found
  std::string error;          // otherwise: what was tried and how to fix it
};

// The first candidate that holds a scenarios/ folder. A set $HASIM_DATA_DIR is never skipped:
// when it is wrong the lookup fails, since the user asked for exactly that folder.
DataDirLookup find_data_dir(const DataDirInputs& inputs);

struct BuiltinScenario {
  std::string name;            // path under scenarios/ without ".json": "election/leader-crash"
  std::filesystem::path file;  // the scenario file
};

// Every scenario file under DIR/scenarios (any depth; not schema.json), sorted by name so the
// listing does not depend on directory order.
std::vector<BuiltinScenario> builtin_scenarios(const std::filesystem::path& data_dir);

struct NameMatch {
  std::optional<BuiltinScenario> scenario;  // the one scenario NAME means
  std::string error;                        // otherwise why not, with close names
};

// The built-in scenario NAME means: a full name ("election/leader-crash") or, when only one
// scenario has it, a short one ("leader-crash"); ".json" and a leading "scenarios/" may be
// given too, so a path copied from the README works.
NameMatch match_scenario_name(const std::string& name,
                              const std::vector<BuiltinScenario>& scenarios);

struct ScenarioFile {
  std::string path;   // the file to load; empty on error
  std::string error;  // a full message for the user, without the "hasim: " prefix
};

// A scenario argument as a file: an existing path, or one starting with "/" or ".", is a path;
// anything else is looked up as a built-in scenario name in the data dir.
ScenarioFile resolve_scenario_arg(const std::string& arg);

}  // namespace hasim
