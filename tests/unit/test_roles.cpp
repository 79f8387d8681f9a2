// Faults aimed at a role ("leader:NAMESPACE/NAME"): resolved when the fault fires to the
// process acting as that lease's leader, whichever node won the election; the trace and the
// replay file record whom it hit; a role the scenario cannot hold is a load error.
#include <catch2/catch.hpp>

#include "properties/replay.hpp"
#include "properties/run.hpp"
#include "scenarios/json_reader.hpp"
#include "scenarios/loader.hpp"

using namespace hasim;

namespace {

std::string scenario_text(const std::string& fault) {
  return R"({"name": "roles", "duration": "4m",
    "nodes": [{"name": "cp-1"}, {"name": "cp-2"}, {"name": "cp-3"}],
    "controlPlane": {}, "faults": [)" +
         fault + R"(], "properties": ["single-leader", "eventually-leader:25s"]})";
}

Scenario load(const std::string& fault) {
  const LoadResult result = load_scenario_text(scenario_text(fault), "roles");
  INFO(format_errors(result.errors, "roles"));
  REQUIRE(result.scenario.has_value());
  return *result.scenario;
}

std::string first_error(const std::string& text) {
  const LoadResult result = load_scenario_text(text, "roles");
  REQUIRE(!result.errors.empty());
  return result.errors[0].path + ": " + result.errors[0].message;
}

}  // namespace

TEST_CASE("a crash aimed at the leader hits whoever leads at that instant", "[roles]") {
  // cp-1 campaigns first and wins; the first crash moves the lease elsewhere, so the second,
  // aimed at the same role, must hit the new leader.
  const Scenario scenario = load(
      R"({"at": "1m", "kind": "crash", "role": "leader:kube-system/kube-controller-manager"},
         {"at": "2m", "kind": "crash", "role": "leader:kube-system/kube-controller-manager"})");
  std::set<std::string> hit;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    RunOptions options;
    options.seed = seed;
    options.capture_lines = 100000;
    const auto run = run_scenario(scenario, options);
    REQUIRE(run.has_value());
    REQUIRE(run->resolved_roles.size() == 2);
    CHECK(run->resolved_roles[0].process == "cp-1/kube-controller-manager");
    for (const ResolvedRole& r : run->resolved_roles) {
      CHECK(r.role == "leader:kube-system/kube-controller-manager");
      CHECK(r.fault == "crash");
      hit.insert(r.process);
      // The process it named was the last to start acting for the lease before then, and it
      // crashed then.
      std::string last_leader;
      bool crashed = false;
      for (const std::string& line : run->captured) {
        const Json event = Json::parse(line);
        const std::int64_t t = event["t"].get<std::int64_t>();
        const std::string process = event.value("node", "") + "/" + event.value("proc", "");
        if (t < r.at.ns && event["kind"] == "acting-start" &&
            event["lease"] == "kube-system/kube-controller-manager") {
          last_leader = process;
        }
        crashed = crashed || (t == r.at.ns && event["kind"] == "crash" && process == r.process);
      }
      CHECK(last_leader == r.process);
      CHECK(crashed);
    }
    CHECK(run->all_held());
  }
  CHECK(hit.size() >= 3);  // cp-1 first, then cp-2 or cp-3 depending on the seed
}

TEST_CASE("a node-level fault aimed at a role hits the leader's node", "[roles]") {
  const Scenario scenario = load(
      R"({"at": "2m", "kind": "node-down", "role": "leader:kube-system/kube-scheduler", "for": "30s"})");
  const auto run = run_scenario(scenario, RunOptions{});
  REQUIRE(run.has_value());
  REQUIRE(run->resolved_roles.size() == 1);
  CHECK(run->resolved_roles[0].process.find("/kube-scheduler") != std::string::npos);
  CHECK(run->all_held());
}

TEST_CASE("the replay file records whom a role hit, and replays exactly", "[roles]") {
  const std::string text = scenario_text(
      R"({"at": "2m", "kind": "pause", "role": "leader:kube-system/kube-scheduler", "for": "2s"})");
  const Scenario scenario = *load_scenario_text(text, "roles").scenario;
  const auto run = run_scenario(scenario, RunOptions{});
  REQUIRE(run.has_value());
  const Json replay = make_replay(Json::parse(text), *run, "");
  REQUIRE(replay["expected"].contains("resolvedRoles"));
  CHECK(replay["expected"]["resolvedRoles"][0]["process"] == run->resolved_roles[0].process);
  const ReplayLoad back = load_replay_text(replay.dump(), "replay");
  REQUIRE(back.replay.has_value());
  RunOptions rerun;
  rerun.seed = back.replay->seed;
  const auto again = run_scenario(back.replay->scenario, rerun);
  REQUIRE(again.has_value());
  CHECK(again->trace_hash == run->trace_hash);
}

TEST_CASE("bad roles are load errors naming the fix", "[roles]") {
  CHECK_THAT(first_error(scenario_text(R"({"at": "2m", "kind": "crash", "role": "boss:x/y"})")),
             Catch::Contains("unknown role \"boss\"") && Catch::Contains("the roles are"));
  CHECK_THAT(first_error(scenario_text(R"({"at": "2m", "kind": "crash", "role": "leader:kcm"})")),
             Catch::Contains("NAMESPACE/NAME"));
  CHECK_THAT(
      first_error(scenario_text(
          R"({"at": "2m", "kind": "crash", "role": "leader:a/b", "process": "cp-1/kube-scheduler"})")),
      Catch::Contains("takes only one of"));
  // Apiserver faults name nodes: no role.
  CHECK_THAT(
      first_error(scenario_text(
          R"({"at": "2m", "kind": "apiserver-slow", "latency": "1s", "role": "leader:a/b"})")),
      Catch::Contains("role"));
  const std::string no_control_plane =
      R"({"name": "r", "duration": "4m", "nodes": 3, "heartbeat": {},
          "faults": [{"at": "1m", "kind": "crash", "role": "leader:kube-system/x"}]})";
  CHECK_THAT(first_error(no_control_plane), Catch::Contains("no \"controlPlane\""));
}
