// Trace event kinds are declared once, in sim/trace_kinds.hpp and each model folder's
// trace_kinds.hpp: every kind that appears in the trace of every scenario under scenarios/
// is one of them, and no two declarations share a name. Each registered system lists its
// models' kinds (scenarios/system.hpp), so a new system adds nothing here.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/loader.hpp"
#include "properties/run.hpp"
#include "models/apiserver/trace_kinds.hpp"
#include "models/cluster/trace_kinds.hpp"
#include "models/demo/trace_kinds.hpp"
#include "models/election/trace_kinds.hpp"
#include "scenarios/system.hpp"
#include "sim/trace_kinds.hpp"
#include "sim/world.hpp"

namespace fs = std::filesystem;
using namespace hasim;

namespace {

// (system, its kinds): each registered system declares the kinds its models emit
// (scenarios/system.hpp), so a new system adds no line here.
std::vector<std::pair<std::string_view, std::vector<std::string_view>>> declared() {
  std::vector<std::pair<std::string_view, std::vector<std::string_view>>> out;
  for (const ScenarioSystem* system : scenario_systems())
    out.emplace_back(system->name, system->trace_kinds);
  return out;
}

class KindCollector final : public TraceObserver {
 public:
  void on_event(const TraceEvent& event) override { kinds.emplace(event.kind); }
  std::set<std::string> kinds;
};

std::vector<fs::path> scenario_files() {
  std::set<fs::path> files;  // sorted: a stable order
  for (const auto& entry :
       fs::recursive_directory_iterator(fs::path(HASIM_SOURCE_DIR) / "scenarios")) {
    const fs::path& path = entry.path();
    const std::string name = path.filename().string();
    // Not scenarios: the schema, and expected outputs kept beside a scenario.
    const bool output = name.ends_with(".expected.json") || name.ends_with(".golden.json");
    if (path.extension() == ".json" && name != "schema.json" && !output) files.insert(path);
  }
  return {files.begin(), files.end()};
}

}  // namespace

TEST_CASE("every trace kind is declared once", "[trace-kinds]") {
  std::map<std::string_view, std::string_view> owner;
  for (const auto& [folder, kinds] : declared()) {
    for (const std::string_view kind : kinds) {
      const auto [it, inserted] = owner.emplace(kind, folder);
      INFO(kind << " is declared by " << it->second << " and " << folder);
      CHECK(inserted);
    }
  }
}

TEST_CASE("every kind in every scenario's trace is a declared one", "[trace-kinds]") {
  std::set<std::string_view> known;
  for (const auto& [system, kinds] : declared()) known.insert(kinds.begin(), kinds.end());
  const std::vector<fs::path> files = scenario_files();
  REQUIRE(files.size() >= 10);  // the scan found the scenarios
  std::set<std::string> seen;
  for (const fs::path& file : files) {
    const LoadResult loaded = load_scenario_file(file.string());
    INFO(file.string() << ": " << format_errors(loaded.errors, file.string()));
    REQUIRE(loaded.scenario.has_value());
    KindCollector collector;
    RunOptions options;
    options.hook = [&collector](World& world) { world.trace().add_observer(&collector); };
    REQUIRE(run_scenario(*loaded.scenario, options).has_value());
    for (const std::string& kind : collector.kinds) {
      INFO(file.string() << " traces the undeclared kind " << kind);
      CHECK(known.count(kind) == 1);
    }
    seen.insert(collector.kinds.begin(), collector.kinds.end());
  }
  // The scenarios exercise the kernel's and every model's kinds (not every one of them).
  for (const std::string_view kind :
       {trace_kind::kCrash, trace_kind::kRoleResolved, api::trace_kind::kWrite,
        election::trace_kind::kCleElect, cluster::trace_kind::kActingStart,
        cluster::trace_kind::kUpgradeStop, demo::trace_kind::kSuspect}) {
    INFO(kind);
    CHECK(seen.count(std::string(kind)) == 1);
  }
}
