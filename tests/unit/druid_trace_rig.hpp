#pragma once
// A druid scenario's whole trace as JSON events, for the tests that check what its steps did
// (test_druid_pods.cpp, test_druid_scale.cpp).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "properties/run.hpp"
#include "scenario_loader_helpers.hpp"
#include "scenarios/loader.hpp"

namespace hasim::druid_test {

using Json = nlohmann::json;

// Runs the scenario at `file` (relative to the source tree) and returns every trace event.
inline std::vector<Json> run_trace(const std::string& file) {
  const LoadResult loaded = load_scenario_file(loader_test::source_path(file));
  REQUIRE(loaded.scenario.has_value());
  RunOptions options;
  options.capture_lines = 10'000'000;
  const auto result = run_scenario(*loaded.scenario, options);
  REQUIRE(result.has_value());
  REQUIRE(result->captured.size() == result->trace_events);  // nothing left out
  std::vector<Json> events;
  for (const std::string& line : result->captured) events.push_back(Json::parse(line));
  return events;
}

inline std::vector<Json> of_kind(const std::vector<Json>& events, std::string_view kind) {
  std::vector<Json> out;
  for (const Json& e : events) {
    if (e.at("kind") == kind) out.push_back(e);
  }
  return out;
}

}  // namespace hasim::druid_test
