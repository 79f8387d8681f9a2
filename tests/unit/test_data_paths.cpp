// Where hasim finds its built-in scenarios (cli/data_paths): $HASIM_DATA_DIR, then
// share/hasim beside the executable, then the source tree; and `hasim run NAME`'s names.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "cli/data_paths.hpp"

namespace fs = std::filesystem;
using hasim::BuiltinScenario;
using hasim::DataDirInputs;

namespace {

// A fresh folder under the system's temporary directory, removed afterwards.
class TempTree {
 public:
  TempTree() : root_(fs::temp_directory_path() / ("hasim-data-paths-" + std::to_string(getpid()))) {
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  ~TempTree() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  // Creates ROOT/relative (and its folders) with a little content; returns its path.
  fs::path file(const std::string& relative) const {
    const fs::path path = root_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << "{}\n";
    return path;
  }
  const fs::path& root() const { return root_; }

 private:
  fs::path root_;
};

std::vector<BuiltinScenario> scenarios_named(const std::vector<std::string>& names) {
  std::vector<BuiltinScenario> scenarios;
  for (const std::string& name : names) scenarios.push_back({name, "/data/" + name + ".json"});
  return scenarios;
}

}  // namespace

TEST_CASE("data dir: $HASIM_DATA_DIR, then beside the executable, then the source tree") {
  TempTree tree;
  tree.file("env/scenarios/a.json");
  tree.file("prefix/share/hasim/scenarios/a.json");
  tree.file("src/scenarios/a.json");
  DataDirInputs inputs{tree.root() / "env", tree.root() / "prefix/bin/hasim", "../share/hasim",
                       tree.root() / "src"};
  CHECK(hasim::find_data_dir(inputs).dir == tree.root() / "env");
  inputs.env.reset();
  CHECK(hasim::find_data_dir(inputs).dir == tree.root() / "prefix/share/hasim");
  inputs.executable = tree.root() / "build/hasim";  // a build-tree binary: no share/ beside it
  CHECK(hasim::find_data_dir(inputs).dir == tree.root() / "src");
  inputs.executable.clear();  // /proc/self/exe unreadable
  CHECK(hasim::find_data_dir(inputs).dir == tree.root() / "src");
}

TEST_CASE("data dir: a wrong $HASIM_DATA_DIR is an error, not skipped") {
  TempTree tree;
  tree.file("src/scenarios/a.json");
  const DataDirInputs inputs{tree.root() / "nowhere", "", "../share/hasim", tree.root() / "src"};
  const hasim::DataDirLookup lookup = hasim::find_data_dir(inputs);
  CHECK(lookup.dir.empty());
  CHECK_THAT(lookup.error, Catch::Contains("$HASIM_DATA_DIR is") &&
                               Catch::Contains("no scenarios/ folder") &&
                               Catch::Contains("or unset it"));
}

TEST_CASE("data dir: none found names every place tried and the fix") {
  TempTree tree;
  const DataDirInputs inputs{std::nullopt, tree.root() / "prefix/bin/hasim", "../share/hasim",
                             tree.root() / "gone"};
  const hasim::DataDirLookup lookup = hasim::find_data_dir(inputs);
  CHECK(lookup.dir.empty());
  CHECK_THAT(lookup.error, Catch::Contains((tree.root() / "prefix/share/hasim").string()) &&
                               Catch::Contains((tree.root() / "gone").string()) &&
                               Catch::Contains("HASIM_DATA_DIR"));
}

TEST_CASE("builtin scenarios: every .json at any depth but the schema, sorted by name") {
  TempTree tree;
  for (const char* file : {"scenarios/b/y.json", "scenarios/a/x.json", "scenarios/b/x.json",
                           "scenarios/top.json", "scenarios/schema.json", "scenarios/notes.txt"})
    tree.file(file);
  std::vector<std::string> names;
  for (const BuiltinScenario& s : hasim::builtin_scenarios(tree.root())) {
    names.push_back(s.name);
    CHECK(s.file == tree.root() / "scenarios" / (s.name + ".json"));
  }
  CHECK(names == std::vector<std::string>{"a/x", "b/x", "b/y", "top"});
  CHECK(hasim::builtin_scenarios(tree.root() / "missing").empty());
}

TEST_CASE("scenario names: full, short when unique, with .json or scenarios/") {
  const auto scenarios = scenarios_named({"a/x", "b/x", "b/leader-crash"});
  for (const char* name : {"b/leader-crash", "leader-crash", "leader-crash.json",
                           "scenarios/b/leader-crash.json", "scenarios/b/leader-crash"}) {
    const hasim::NameMatch match = hasim::match_scenario_name(name, scenarios);
    REQUIRE(match.scenario);
    CHECK(match.scenario->name == "b/leader-crash");
  }
  CHECK(hasim::match_scenario_name("a/x", scenarios).scenario->name == "a/x");
}

TEST_CASE("scenario names: an ambiguous or unknown name is an error with the close names") {
  const auto scenarios = scenarios_named({"a/x", "b/x", "b/leader-crash", "c/node-crash-3"});
  const hasim::NameMatch ambiguous = hasim::match_scenario_name("x", scenarios);
  CHECK_FALSE(ambiguous.scenario);
  CHECK(ambiguous.error ==
        "\"x\" names 2 built-in scenarios: a/x, b/x; give the full name, "
        "e.g. a/x");
  const hasim::NameMatch typo = hasim::match_scenario_name("leadr-crash", scenarios);
  CHECK_FALSE(typo.scenario);
  CHECK_THAT(typo.error, Catch::StartsWith("no scenario file or built-in scenario "
                                           "\"leadr-crash\" (close names: b/leader-crash)"));
  CHECK_THAT(hasim::match_scenario_name("crash", scenarios).error,
             Catch::Contains("(close names: b/leader-crash, c/node-crash-3)"));
  CHECK_THAT(hasim::match_scenario_name("zzzzzzzz", scenarios).error,
             !Catch::Contains("close names") && Catch::Contains("`hasim list`"));
}

TEST_CASE("the source tree's scenarios resolve by name") {
  const auto scenarios = hasim::builtin_scenarios(HASIM_SOURCE_DIR);
  const hasim::NameMatch match = hasim::match_scenario_name("leader-crash", scenarios);
  REQUIRE(match.scenario);
  CHECK(match.scenario->file ==
        fs::path(HASIM_SOURCE_DIR) / "scenarios/election/leader-crash.json");
}
