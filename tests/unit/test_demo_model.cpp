// The heartbeat demo model and its properties: expected verdicts, and properties that can fail.
#include <catch2/catch.hpp>

#include "scenarios/loader.hpp"
#include "properties/run.hpp"

using namespace hasim;

namespace {

RunResult run_text(const std::string& text) {
  LoadResult load = load_scenario_text(text, "test");
  INFO(format_errors(load.errors, "test"));
  REQUIRE(load.scenario.has_value());
  auto result = run_scenario(*load.scenario, {});
  REQUIRE(result.has_value());
  return *result;
}

RunResult run_example(const std::string& name) {
  LoadResult load =
      load_scenario_file(std::string(HASIM_SOURCE_DIR) + "/scenarios/examples/" + name);
  REQUIRE(load.scenario.has_value());
  auto result = run_scenario(*load.scenario, {});
  REQUIRE(result.has_value());
  return *result;
}

std::string three_nodes(const std::string& faults, const std::string& properties,
                        const std::string& n1_clock = "") {
  return R"({"name": "t", "duration": "2m", "heartbeat": {"interval": "1s", "timeout": "3s"},
             "nodes": [{"name": "n1")" +
         n1_clock + R"(}, {"name": "n2"}, {"name": "n3"}],
             "faults": [)" +
         faults + R"(], "properties": [)" + properties + "]}";
}

}  // namespace

TEST_CASE("the demo scenario holds both properties through crash, partition and pause", "[demo]") {
  const RunResult result = run_example("demo-heartbeat.json");
  CHECK(result.all_held());
  CHECK(result.property_specs ==
        std::vector<std::string>{"detect-crash:10s", "no-false-suspicion"});
}

TEST_CASE("the fast-clock demo violates no-false-suspicion", "[demo]") {
  const RunResult result = run_example("demo-fast-clock.json");
  REQUIRE(result.violated_count() == 1);
  const Violation& v = *result.violations[0];
  CHECK(v.property == "no-false-suspicion");
  CHECK_THAT(v.detail, Catch::Contains("n1/heartbeat suspected"));
}

TEST_CASE("detect-crash fails when its bound is shorter than the detector's timeout", "[demo]") {
  const auto faults = R"({"at": "30s", "kind": "crash", "node": "n2"})";
  CHECK(run_text(three_nodes(faults, R"("detect-crash:5s")")).all_held());
  const RunResult tight = run_text(three_nodes(faults, R"("detect-crash:2s")"));
  REQUIRE(tight.violated_count() == 1);
  CHECK(tight.violations[0]->at.ns == 32'000'000'000);
  CHECK_THAT(tight.violations[0]->detail,
             Catch::Contains("did not suspect n2/heartbeat within 2s"));
  CHECK_THAT(tight.violations[0]->causes.at(0), Catch::Contains("crash"));
}

TEST_CASE("a crash that is undone before the timeout needs no detection", "[demo]") {
  const auto faults = R"({"at": "30s", "kind": "crash", "node": "n2", "for": "1s"})";
  CHECK(run_text(three_nodes(faults, R"("detect-crash:2s", "no-false-suspicion")")).all_held());
}

TEST_CASE("no-false-suspicion holds under loss, partitions and pauses, which explain suspicions",
          "[demo]") {
  const auto faults =
      R"({"at": "10s", "kind": "partition", "from": ["n2"], "to": ["n1"], "for": "10s"},
                         {"at": "40s", "kind": "pause", "node": "n3", "for": "10s"},
                         {"at": "70s", "kind": "node-down", "node": "n1", "for": "10s"})";
  CHECK(run_text(three_nodes(faults, R"("no-false-suspicion")")).all_held());
}

TEST_CASE("a clock running faster than timeout/interval makes suspicions false", "[demo]") {
  CHECK(run_text(three_nodes("", R"("no-false-suspicion")", R"(, "clock": {"rate": 2.0})"))
            .all_held());
  const RunResult fast =
      run_text(three_nodes("", R"("no-false-suspicion")", R"(, "clock": {"rate": 4.0})"));
  CHECK(fast.violated_count() == 1);
  // And as a fault in the middle of a run, undone later.
  const auto faults =
      R"({"at": "30s", "kind": "clock-rate", "node": "n1", "rate": 4.0, "for": "10s"})";
  const RunResult drift = run_text(three_nodes(faults, R"("no-false-suspicion")"));
  REQUIRE(drift.violated_count() == 1);
  CHECK(drift.violations[0]->at.ns > 30'000'000'000);
  CHECK(drift.violations[0]->at.ns < 40'000'000'000);
}
