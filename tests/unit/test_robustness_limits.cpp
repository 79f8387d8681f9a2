// Robustness at scale and at the limits: 10,000 faults load and run in bounded time, faults
// aimed at processes that do not run, 64-bit time overflow, and partitions that cut too many
// links get errors or bounded runs, never a crash or a hang. The regression tests cover what
// fuzz/fuzz_load.cpp (scripts/fuzz.sh) found.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "robustness_helpers.hpp"

using namespace hasim::robustness_test;

TEST_CASE("10,000 faults load and run to completion in bounded time", "[robustness]") {
  Json doc = control_plane_base();
  const std::vector<std::string> nodes{"cp-1", "cp-2", "cp-3"};
  Json faults = Json::array();
  for (int i = 0; i < 10'000; ++i) {
    const std::string at = std::to_string(i * 60) + "ms";  // spread over the 10m run
    const std::string& node = nodes[i % 3];
    switch (i % 6) {
      case 0:
        faults.push_back({{"at", at}, {"kind", "pause"}, {"node", node}});
        break;
      case 1:
        faults.push_back({{"at", at}, {"kind", "resume"}, {"node", nodes[(i - 1) % 3]}});
        break;
      case 2:
        faults.push_back({{"at", at},
                          {"kind", "crash"},
                          {"process", node + "/kube-controller-manager"},
                          {"for", "30ms"}});
        break;
      case 3:
        faults.push_back(
            {{"at", at}, {"kind", "partition"}, {"isolate", Json::array({node})}, {"for", "40ms"}});
        break;
      case 4:
        faults.push_back(
            {{"at", at}, {"kind", "clock-step"}, {"node", node}, {"by", i % 4 ? "1ms" : "-1ms"}});
        break;
      default:
        faults.push_back({{"at", at},
                          {"kind", "apiserver-slow"},
                          {"node", node},
                          {"latency", "5ms"},
                          {"for", "20ms"}});
    }
  }
  doc["faults"] = faults;
  const auto start = std::chrono::steady_clock::now();
  const Scenario scenario = loaded(doc);
  REQUIRE(scenario.faults.size() == 10'000);
  const RunResult result = run_to_end(scenario);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(result.stats.events << " events in " << seconds << " s");
  CHECK(result.stats.events > 20'000);  // every fault was applied
  CHECK(seconds < 60.0);                // about 0.1 s in a release build

  // The same 10,000 faults all wrong: the errors are capped, and the last says how many more.
  for (Json& f : doc["faults"]) f["at"] = "soon";
  const auto errors = rejected_json(doc);
  REQUIRE(errors.size() == JsonReader::kMaxErrors + 1);
  CHECK(errors[0].path == "$.faults[0].at");
  CHECK_THAT(errors.back().message, Contains("and 9950 more errors not shown"));
}

// Regressions found by fuzz/fuzz_load.cpp and the robustness review.

TEST_CASE("a fault aimed at a process that does not run is an error, not a builder crash",
          "[robustness]") {
  // Found by the fuzzer: "process": "cp-1/kube-controller-manager" without a control plane
  // passed the loader and tripped an assertion in build_world.
  Json doc = Json::parse(R"({"name": "p", "duration": "1m", "nodes": [{"name": "cp-1"}],
    "faults": [{"at": "1s", "kind": "crash", "process": "cp-1/kube-controller-manager"}]})");
  const auto none = error_at(rejected_json(doc), "$.faults[0].process");
  CHECK_THAT(none.message,
             Contains("unknown process \"kube-controller-manager\" on node \"cp-1\""));
  CHECK_THAT(none.message, Contains("no process runs on \"cp-1\""));

  doc["heartbeat"] = {{"interval", "1s"}, {"timeout", "3s"}};
  const auto hb = error_at(rejected_json(doc), "$.faults[0].process");
  CHECK_THAT(hb.message, Contains("the processes on \"cp-1\" are \"heartbeat\""));
  doc["faults"][0]["process"] = "cp-1/heartbaet";
  CHECK_THAT(error_at(rejected_json(doc), "$.faults[0].process").message,
             Contains("did you mean \"heartbeat\"?"));
  doc["faults"][0]["process"] = "cp-1/heartbeat";
  run_to_end(loaded(doc));

  Json cp = control_plane_base();
  cp["faults"] = Json::array(
      {{{"at", "1m"}, {"kind", "terminate"}, {"process", "cp-2/kube-schedular"}},
       {{"at", "1m"}, {"kind", "pause"}, {"process", "store/kube-apiserver"}, {"for", "1s"}}});
  const auto errors = rejected_json(cp);
  CHECK_THAT(error_at(errors, "$.faults[0].process").message,
             Contains("did you mean \"kube-scheduler\"?"));
  CHECK_THAT(error_at(errors, "$.faults[1].process").message,
             Contains("no process runs on \"store\""));
  cp["faults"][0]["process"] = "cp-2/kube-scheduler";
  cp["faults"][1]["process"] = "cp-3/kube-apiserver";
  run_to_end(loaded(cp));
}

TEST_CASE("durations, clock readings and samples stay within 64-bit time", "[robustness]") {
  // Found by fuzzing with UBSan: durations up to the parser's 292 years overflowed "at" +
  // "for", clock steps and rates overflowed clock readings, and wide distributions sampled
  // up to INT64_MAX nanoseconds, overflowing "now + latency".
  const auto error_for = [](const std::string& text, const std::string& path) {
    return error_at(rejected(text), path).message;
  };
  CHECK_THAT(error_for(R"({"name": "c", "duration": "10000h",
                          "nodes": [{"name": "a", "clock": {"rate": 1000}}]})",
                       "$.duration"),
             Contains("the wall clock of node \"a\" could read about 10000000h"));
  CHECK_THAT(error_for(R"({"name": "c", "duration": "10000h", "nodes": 1,
                          "faults": [{"at": "1h", "kind": "clock-rate", "node": "n1",
                                      "rate": 1000}]})",
                       "$.duration"),
             Contains("fastest rate 1000"));
  Json steps = Json::parse(R"({"name": "c", "duration": "1h", "nodes": 2})");
  for (int i = 0; i < 11; ++i) {
    steps["faults"].push_back({{"at", std::to_string(i) + "s"},
                               {"kind", "clock-step"},
                               {"node", "n2"},
                               {"by", "100000h"}});
  }
  CHECK_THAT(error_at(rejected_json(steps), "$.faults[0].by").message,
             Contains("clock steps adding up to 1100000h"));
  steps["faults"].erase(10);  // 1000000h of steps, plus the hour: still beyond
  CHECK(has_error_at(rejected_json(steps), "$.faults[0].by"));
  steps["faults"].erase(9);
  run_to_end(loaded(steps));

  // At the limits everything loads and runs: faults undone long after the run, a heartbeat
  // every 50000h, offsets of 100000h either way, samples capped at 100000h.
  run_to_end(loaded(Json::parse(R"({"name": "l", "duration": "100000h", "nodes": 3,
    "faults": [{"at": "99999h", "kind": "crash", "node": "n1", "for": "100000h"},
               {"at": "99999h", "kind": "partition", "isolate": ["n1"], "for": "100000h"},
               {"at": "99999h", "kind": "pause", "node": "n2", "for": "100000h"},
               {"at": "99999h", "kind": "node-down", "node": "n3", "for": "100000h"},
               {"at": "99999h", "kind": "clock-rate", "node": "n3", "rate": 8, "for": "100000h"},
               {"at": "99999h", "kind": "disk-loss", "node": "n2", "for": "100000h"}]})")));
  run_to_end(loaded(Json::parse(R"({"name": "l", "duration": "100000h",
    "nodes": [{"name": "n1", "clock": {"offset": "100000h", "rate": 8}},
              {"name": "n2", "clock": {"offset": "-100000h", "drift": "-999999ppm"}}],
    "heartbeat": {"interval": "50000h", "timeout": "100000h"},
    "network": {"latency": {"dist": "lognormal", "median": "1ns", "p99": "100000h"},
                "loopbackLatency": {"dist": "exponential", "mean": "100000h"}},
    "faults": [{"at": "1h", "kind": "clock-step", "node": "n1", "by": "-100000h"},
               {"at": "2h", "kind": "clock-step", "node": "n2", "by": "-100000h"}],
    "properties": ["no-false-suspicion", "detect-crash:100000h"]})")));
  Json cp = control_plane_base();
  cp["nodes"][0]["clock"] = {{"offset", "100000h"}, {"rate", 8}};
  cp["nodes"][1]["clock"] = {{"offset", "-100000h"}};
  cp["network"]["latency"] = {{"dist", "normal"}, {"mean", "100000h"}, {"stddev", "100000h"}};
  cp["controlPlane"]["requestTimeout"] = "100000h";
  cp["controlPlane"]["apiserverLatency"] = {{"dist", "exponential"}, {"mean", "100000h"}};
  cp["controlPlane"]["kubelet"] = {
      {"backoff", "100000h"}, {"maxBackoff", "100000h"}, {"resetAfter", "100000h"}};
  cp["controlPlane"]["components"]["kube-controller-manager"] = {{"leaseDuration", "100000h"},
                                                                 {"renewDeadline", "99999h"},
                                                                 {"retryPeriod", "1h"},
                                                                 {"clientTimeout", "100000h"},
                                                                 {"workInterval", "100000h"}};
  cp["faults"] = Json::array(
      {{{"at", "1m"},
        {"kind", "terminate"},
        {"process", "cp-1/kube-scheduler"},
        {"grace", "100000h"}},
       {{"at", "2m"}, {"kind", "apiserver-slow"}, {"node", "cp-2"}, {"latency", "100000h"}}});
  cp["properties"] = Json::array({"single-leader", "no-skew"});
  run_to_end(loaded(cp));

  Rng rng(1);
  const DurationDistribution wide[] = {
      DurationDistribution::lognormal(nanoseconds(1), kMaxScenarioDuration),
      DurationDistribution::exponential(kMaxScenarioDuration),
      DurationDistribution::normal(kMaxScenarioDuration, kMaxScenarioDuration)};
  for (const DurationDistribution& d : wide) {
    for (int i = 0; i < 10'000; ++i) {
      const Duration sample = d.sample(rng);
      REQUIRE(sample >= Duration{});
      REQUIRE(sample <= kMaxScenarioDuration);
    }
  }
}

TEST_CASE("an upgrade whose timings add up past 64-bit time plans actions that never run",
          "[robustness]") {
  UpgradeSpec spec;
  spec.at = kMaxScenarioDuration - hours(1);
  spec.to = "1.32.0";
  spec.downtime = DurationDistribution::constant(kMaxScenarioDuration);
  spec.gap = DurationDistribution::exponential(kMaxScenarioDuration);
  spec.startJitter = DurationDistribution::lognormal(nanoseconds(1), kMaxScenarioDuration);
  spec.canary = kMaxScenarioDuration;
  spec.emulation = true;
  std::vector<std::string> nodes;
  for (int i = 1; i <= 1000; ++i) nodes.push_back("cp-" + std::to_string(i));
  Rng rng(1);
  const auto actions = cluster::plan_upgrade(spec, nodes, "1.31.0", "1.31.0", false, rng);
  REQUIRE(actions.size() == 2 * 1000 * 5);
  CHECK(actions.front().at == TrueTime{spec.at.ns});
  for (std::size_t i = 1; i < actions.size(); ++i) REQUIRE(actions[i - 1].at <= actions[i].at);
  CHECK(actions.back().at == TrueTime::max());  // saturated, not wrapped to a negative time
}

TEST_CASE("partitions that cut too many links in all are an error, not minutes of set-up",
          "[robustness]") {
  // build_world lists every cut link of every partition up front: 9,000 half-and-half
  // partitions of 1,000 nodes (a 60 MB file) would take half an hour and 80 GB.
  Json doc = Json::parse(R"({"name": "g", "duration": "10m", "nodes": 1000})");
  Json halves = Json::array({Json::array(), Json::array()});
  for (int i = 1; i <= 1000; ++i) halves[i <= 500 ? 0 : 1].push_back("n" + std::to_string(i));
  for (int f = 0; f < 20; ++f) {
    doc["faults"].push_back({{"at", std::to_string(f) + "s"},
                             {"kind", "partition"},
                             {"groups", halves},
                             {"for", "1s"}});
  }
  CHECK(loaded(doc).faults.size() == 20);  // 20 * 500,000 links: the most allowed
  doc["faults"].push_back({{"at", "30s"}, {"kind", "partition"}, {"isolate", Json::array({"n1"})}});
  const auto error = error_at(rejected_json(doc), "$.faults[20]");
  CHECK_THAT(error.message, Contains("cut 10001998 directed links in all, more than the 10000000"));
}
