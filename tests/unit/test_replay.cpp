// Replay files: round trip, bad replay input, and naming the first differing event.
#include <catch2/catch.hpp>

#include "properties/replay.hpp"

using namespace hasim;

namespace {
const char* kScenario = R"({"name": "r", "duration": "30s", "nodes": 2,
  "heartbeat": {"interval": "1s", "timeout": "3s"},
  "faults": [{"at": "10s", "kind": "crash", "node": "n2", "for": "5s"}],
  "properties": ["detect-crash:5s"]})";

RunResult run(const Scenario& scenario, std::size_t capture = 0) {
  RunOptions options;
  options.capture_lines = capture;
  auto result = run_scenario(scenario, options);
  REQUIRE(result.has_value());
  return *result;
}
}  // namespace

TEST_CASE("a replay file round-trips and reproduces the recorded hash", "[replay]") {
  const LoadResult load = load_scenario_text(kScenario, "test");
  REQUIRE(load.scenario.has_value());
  const RunResult recorded = run(*load.scenario);
  const Json replay_json = make_replay(Json::parse(kScenario), recorded, "");
  const ReplayLoad replay = load_replay_text(replay_json.dump(), "replay");
  INFO(format_errors(replay.errors, "replay"));
  REQUIRE(replay.replay.has_value());
  CHECK(replay.replay->seed == recorded.seed);
  CHECK(replay.replay->trace_hash == recorded.trace_hash);
  CHECK(replay.replay->checkpoints == recorded.checkpoints);
  CHECK(run(replay.replay->scenario).trace_hash == recorded.trace_hash);
}

TEST_CASE("a bad replay file gets errors naming the JSON path", "[replay]") {
  Json replay = make_replay(Json::parse(kScenario), RunResult{}, "");
  replay["expected"]["traceHash"] = "xyz";
  replay["scenario"]["duration"] = "-1s";
  replay["sede"] = 3;
  const ReplayLoad load = load_replay_text(replay.dump(), "replay");
  REQUIRE_FALSE(load.replay.has_value());
  const std::string text = format_errors(load.errors, "replay");
  CHECK_THAT(text, Catch::Contains("$.expected.traceHash"));
  CHECK_THAT(text, Catch::Contains("$.scenario.duration"));
  CHECK_THAT(text, Catch::Contains("did you mean \"seed\""));
  CHECK_FALSE(load_replay_text("{", "replay").replay.has_value());
}

TEST_CASE("first_difference names the first differing event exactly when lines are known",
          "[replay]") {
  const LoadResult load = load_scenario_text(kScenario, "test");
  REQUIRE(load.scenario.has_value());
  const RunResult a = run(*load.scenario, 100000);
  Scenario changed = *load.scenario;
  changed.faults[0].at = seconds(12);  // the model "changed": the crash happens later
  const RunResult b = run(changed, 100000);
  REQUIRE(a.trace_hash != b.trace_hash);
  const TraceDifference d = first_difference(a.captured, a.checkpoints, b.captured, b.checkpoints);
  REQUIRE(d.exact);
  CHECK(a.captured[d.first_event] == d.expected_line);
  CHECK(b.captured[d.first_event] == d.actual_line);
  for (std::size_t i = 0; i < d.first_event; ++i) CHECK(a.captured[i] == b.captured[i]);
  // Without lines, checkpoints bound the difference to a block of 1024 events.
  const TraceDifference coarse = first_difference({}, a.checkpoints, {}, b.checkpoints);
  CHECK_FALSE(coarse.exact);
  CHECK(coarse.first_event <= d.first_event);
  CHECK(d.first_event < coarse.first_event + TraceHash::kCheckpointEvery);
}
