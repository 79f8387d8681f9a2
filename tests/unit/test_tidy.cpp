// Mechanical style rules that keep runs deterministic, enforced over the source tree:
// no std::random_device, no std::*_distribution, no wall clocks or sleeps, and no unordered
// containers (whose iteration order could leak into a trace) in the simulation code. Wall
// time is allowed only where throughput is measured for a summary or a benchmark.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> sources_under(const std::vector<std::string>& folders) {
  std::set<fs::path> files;  // sorted, so failures are reported in a stable order
  for (const std::string& folder : folders) {
    for (const auto& entry :
         fs::recursive_directory_iterator(fs::path(HASIM_SOURCE_DIR) / folder)) {
      const auto ext = entry.path().extension();
      if (ext == ".cpp" || ext == ".hpp") files.insert(entry.path());
    }
  }
  return {files.begin(), files.end()};
}

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("simulation code uses no nondeterministic sources", "[tidy]") {
  const std::vector<std::pair<std::string, std::regex>> banned{
      {"std::random_device", std::regex(R"(random_device)")},
      {"std:: distributions", std::regex(R"(std::\w+_distribution)")},
      {"rand()", std::regex(R"(\b(s?rand)\s*\()")},
      {"wall clocks",
       std::regex(
           R"((system_clock|steady_clock|high_resolution_clock|\btime\s*\(\s*(NULL|nullptr|0)\s*\)))")},
      {"sleeps", std::regex(R"((sleep_for|sleep_until|usleep|\bsleep\s*\())")},
      {"unordered containers", std::regex(R"(unordered_(map|set))")},
      {"threads", std::regex(R"(std::(thread|jthread|async)\b)")},
  };
  // Measuring throughput for the run summary is the one place a wall clock is read.
  const std::set<std::string> wall_clock_allowed{"run.cpp"};
  for (const fs::path& file : sources_under({"sim", "models", "properties", "scenarios"})) {
    const std::string text = read(file);
    for (const auto& [what, pattern] : banned) {
      if (what == "wall clocks" && wall_clock_allowed.count(file.filename().string())) continue;
      INFO(file.string() << " uses " << what);
      CHECK_FALSE(std::regex_search(text, pattern));
    }
  }
}

TEST_CASE("models include nothing from sim/ but the Env interface", "[tidy]") {
  const std::regex include(R"(#include\s+"sim/(\w+)\.hpp")");
  // distribution: the kernel's portable distributions are values a model may draw from with
  // its own random stream (the upgrade plan's downtimes); trace_kinds: the kernel's trace
  // vocabulary (a process crashed, exited), which the acting-leader tracker reads. Neither is
  // a way into the kernel. fnv: a plain hash function (state-machine and payload digests);
  // id_table: a plain container (a client's requests in flight, by id).
  const std::set<std::string> allowed{"env",          "assert",      "time", "rng",   "trace",
                                      "distribution", "trace_kinds", "fnv",  "id_table"};
  for (const fs::path& file : sources_under({"models"})) {
    const std::string text = read(file);
    for (std::sregex_iterator it(text.begin(), text.end(), include), end; it != end; ++it) {
      INFO(file.string() << " includes sim/" << (*it)[1] << ".hpp");
      CHECK(allowed.count((*it)[1]) == 1);
    }
  }
}
