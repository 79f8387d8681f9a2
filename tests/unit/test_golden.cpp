// Golden outputs: every scenario under scenarios/ has its expected outcome committed beside it
// as NAME.golden (verdict, each property held or violated with the first violation's time,
// the trace's event count and hash). This test runs every scenario and compares; a changed
// behaviour fails here with a line diff, so a reviewer sees it as a diff of .golden files.
//
// Rewrite them all (after reviewing why they changed), as etcd-io/raft's datadriven tests
// do with -rewrite:
//   scripts/rewrite-golden.sh          (builds, then runs this test with HASIM_REWRITE_GOLDEN=1)
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "scenarios/loader.hpp"
#include "properties/run.hpp"
#include "sim/time.hpp"

namespace fs = std::filesystem;
using namespace hasim;

namespace {

// Every scenario file, sorted (directory order is not deterministic). schema.json is the
// format's JSON Schema, not a scenario.
std::vector<fs::path> scenario_files() {
  std::set<fs::path> files;
  for (const auto& entry :
       fs::recursive_directory_iterator(fs::path(HASIM_SOURCE_DIR) / "scenarios")) {
    const fs::path& path = entry.path();
    if (path.extension() == ".json" && path.filename() != "schema.json") files.insert(path);
  }
  return {files.begin(), files.end()};
}

std::string hex(std::uint64_t value) {
  std::ostringstream out;
  out << std::hex;
  out.width(16);
  out.fill('0');
  out << value;
  return out.str();
}

std::string golden_text(const fs::path& file, const Scenario& scenario, const RunResult& run) {
  std::ostringstream out;
  out << "# Expected outcome of " << file.filename().string()
      << "; a change fails tests/unit/test_golden.cpp.\n"
      << "# After reviewing why it changed: scripts/rewrite-golden.sh\n";
  out << "scenario  " << scenario.name << "\n";
  out << "seed      " << run.seed << "\n";
  out << "simulated " << format_duration(run.simulated) << "\n";
  for (std::size_t i = 0; i < run.property_specs.size(); ++i) {
    const auto& violation = run.violations[i];
    // Total violation time per property (issue 18 part 3): a bounded property may hold
    // with windows under its bound.
    const std::string windows =
        run.windows[i].empty() ? std::string() : "; " + describe_windows(summarize(run.windows[i]));
    if (violation) {
      out << "violated  " << run.property_specs[i]
          << " first at t=" << format_seconds(violation->at.ns) << "s" << windows << "\n";
    } else {
      out << "held      " << run.property_specs[i] << windows << "\n";
    }
    // What a property notes (a loss it permits, with its figures) is part of the outcome.
    for (const std::string& note : run.notes[i]) out << "note      " << note << "\n";
  }
  out << "verdict   "
      << (run.all_held() ? std::string("all properties held")
                         : std::to_string(run.violated_count()) + " of " +
                               std::to_string(run.property_specs.size()) + " properties violated")
      << "\n";
  out << "events    " << run.trace_events << "\n";
  out << "trace     " << hex(run.trace_hash) << "\n";
  return out.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// "-expected" / "+actual" for each line that differs, in order: short, and readable in a
// test log. The files are a dozen lines, so a positional diff says enough.
std::string line_diff(const std::string& expected, const std::string& actual) {
  const auto a = lines_of(expected);
  const auto b = lines_of(actual);
  std::string out;
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const std::string* x = i < a.size() ? &a[i] : nullptr;
    const std::string* y = i < b.size() ? &b[i] : nullptr;
    if (x != nullptr && y != nullptr && *x == *y) continue;
    if (x != nullptr) out += "  -" + *x + "\n";
    if (y != nullptr) out += "  +" + *y + "\n";
  }
  return out;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool rewriting() {
  const char* value = std::getenv("HASIM_REWRITE_GOLDEN");
  return value != nullptr && std::string(value) == "1";
}

}  // namespace

TEST_CASE("every scenario matches its golden output", "[golden]") {
  const auto files = scenario_files();
  REQUIRE(files.size() >= 20);
  std::size_t rewritten = 0;
  for (const fs::path& file : files) {
    INFO(file.string());
    const LoadResult load = load_scenario_file(file.string());
    REQUIRE(load.scenario.has_value());
    const auto run = run_scenario(*load.scenario, RunOptions{});
    REQUIRE(run.has_value());
    const std::string actual = golden_text(file, *load.scenario, *run);
    fs::path golden = file;
    golden.replace_extension(".golden");
    const std::string expected = read_file(golden);
    if (rewriting()) {
      if (expected != actual) {
        std::ofstream(golden) << actual;
        ++rewritten;
      }
      continue;
    }
    INFO("golden file " + golden.string() +
         (expected.empty() ? " is missing" : " differs:\n" + line_diff(expected, actual)) +
         "review the change, then run scripts/rewrite-golden.sh");
    CHECK(expected == actual);
  }
  if (rewriting()) WARN("rewrote " << rewritten << " golden files");
}

// Catches what the file-by-file comparison cannot: a golden file left behind by a renamed or
// deleted scenario, which would otherwise go stale unnoticed.
TEST_CASE("every golden file belongs to a scenario", "[golden]") {
  for (const auto& entry :
       fs::recursive_directory_iterator(fs::path(HASIM_SOURCE_DIR) / "scenarios")) {
    if (entry.path().extension() != ".golden") continue;
    fs::path scenario = entry.path();
    scenario.replace_extension(".json");
    INFO(entry.path().string() << " has no scenario " << scenario.filename().string()
                               << "; delete it or restore the scenario");
    CHECK(fs::exists(scenario));
  }
}
