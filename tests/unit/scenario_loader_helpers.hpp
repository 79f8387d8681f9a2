#pragma once
// What the scenario loader tests share (test_scenario_loader.cpp,
// test_scenario_loader_schema.cpp, test_scenario_loader_control_plane.cpp): a minimal valid
// scenario and helpers to load it and read its errors.
#include <catch2/catch.hpp>

#include <string>

#include "scenarios/control_plane/spec.hpp"
#include "scenarios/heartbeat/spec.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/system.hpp"

namespace hasim::loader_test {

using Catch::Matchers::Contains;
using hasim::Json;
using hasim::LoadResult;
using hasim::ScenarioError;

// A valid scenario to which each test adds one mistake.
inline Json base() {
  return Json{{"name", "t"},
              {"duration", "10m"},
              {"nodes", Json::array({{{"name", "n1"}, {"zone", "a"}},
                                     {{"name", "n2"}, {"zone", "b"}},
                                     {{"name", "n3"}, {"zone", "c"}}})}};
}

inline LoadResult load_text(const std::string& text) {
  return hasim::load_scenario_text(text, "test.json");
}
inline LoadResult load(const Json& doc) { return load_text(doc.dump()); }

inline LoadResult load_with_fault(Json fault) {
  Json doc = base();
  doc["faults"] = Json::array({std::move(fault)});
  return load(doc);
}

// The only error of `result`; fails the test if there is not exactly one.
inline ScenarioError only_error(const LoadResult& result) {
  INFO(hasim::format_errors(result.errors, "test.json"));
  REQUIRE(result.errors.size() == 1);
  CHECK_FALSE(result.scenario.has_value());
  return result.errors[0];
}

inline std::string all_messages(const LoadResult& result) {
  return hasim::format_errors(result.errors, "test.json");
}

inline std::string source_path(const std::string& relative) {
  return std::string(HASIM_SOURCE_DIR) + "/" + relative;
}

}  // namespace hasim::loader_test
