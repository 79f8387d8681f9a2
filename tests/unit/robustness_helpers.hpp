#pragma once
// What the robustness tests of the scenario and replay loaders share
// (test_robustness.cpp, test_robustness_limits.cpp): a full scenario with every section and
// fault kind, and helpers to load, reject and run documents.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "models/cluster/upgrade_plan.hpp"
#include "scenarios/loader.hpp"
#include "properties/replay.hpp"
#include "properties/run.hpp"
#include "sim/distribution.hpp"
#include "sim/rng.hpp"

namespace hasim::robustness_test {

using Catch::Matchers::Contains;
using namespace hasim;

// Every section and every fault kind, valid together.
constexpr std::string_view kFull = R"({
  "$schema": "../schema.json",
  "name": "full",
  "description": "every section",
  "seed": 7,
  "duration": "10m",
  "nodes": [
    {"name": "cp-1", "zone": "a", "clock": {"offset": "-2s", "drift": "+50ppm"}},
    {"name": "cp-2", "zone": "b", "clock": {"rate": 1.00005}},
    {"name": "cp-3", "zone": "c"}
  ],
  "network": {
    "latency": {"dist": "lognormal", "median": "1ms", "p99": "10ms"},
    "loopbackLatency": "100us",
    "loss": 0.001,
    "duplicate": 0.001,
    "links": [{"from": "cp-1", "to": "cp-2", "latency": "1ms..5ms", "loss": 0.01,
               "duplicate": 0.0, "symmetric": true}]
  },
  "heartbeat": {"interval": "1s", "timeout": "3s"},
  "controlPlane": {
    "nodes": ["cp-1", "cp-2", "cp-3"],
    "version": "1.31.0",
    "emulationVersion": "1.31.0",
    "election": "coordinated",
    "coordination": {"strategy": "OldestEmulationVersion", "fallbackAfter": "1m",
                     "candidateRenewInterval": "5m", "leaseDuration": "15s",
                     "renewDeadline": "10s", "retryPeriod": "2s"},
    "access": "local",
    "requestTimeout": "60s",
    "apiserverLatency": {"dist": "exponential", "mean": "1ms"},
    "watchLag": {"dist": "normal", "mean": "1ms", "stddev": "1ms"},
    "components": {
      "kube-controller-manager": {"leaseDuration": "15s", "renewDeadline": "10s",
                                  "retryPeriod": "2s", "releaseOnCancel": false,
                                  "lock": "leases", "clientTimeout": "5s", "workInterval": "1s"},
      "kube-scheduler": {"leaseDuration": "15s", "renewDeadline": "10s", "retryPeriod": "2s",
                         "releaseOnCancel": true}
    },
    "kubelet": {"restart": true, "backoff": "10s", "maxBackoff": "5m", "resetAfter": "10m"}
  },
  "upgrade": {"at": "2m", "to": "1.32.0", "order": ["cp-3", "cp-1", "cp-2"],
              "downtime": "30s..90s", "gap": {"dist": "uniform", "min": "30s", "max": "60s"},
              "startJitter": {"dist": "constant", "value": "1s"}, "canary": "10s",
              "emulation": true, "stop": "terminate", "grace": "30s"},
  "faults": [
    {"at": "10s", "kind": "crash", "process": "cp-1/kube-controller-manager", "for": "5s"},
    {"at": "11s", "kind": "restart", "node": "cp-1"},
    {"at": "12s", "kind": "pause", "nodes": ["cp-2"], "for": "1s"},
    {"at": "13s", "kind": "resume", "node": "cp-2"},
    {"at": "14s", "kind": "node-down", "node": "cp-3", "for": "2s"},
    {"at": "17s", "kind": "node-up", "node": "cp-3"},
    {"at": "18s", "kind": "clock-step", "node": "cp-1", "by": "-1s"},
    {"at": "19s", "kind": "clock-rate", "node": "cp-2", "drift": "+100ppm", "for": "10s"},
    {"at": "20s", "kind": "partition", "isolate": ["cp-1"], "for": "3s"},
    {"at": "24s", "kind": "partition", "isolateZone": "b", "for": "1s"},
    {"at": "26s", "kind": "partition", "groups": [["cp-1"], ["cp-2", "cp-3"]], "for": "1s"},
    {"at": "28s", "kind": "partition", "from": ["cp-1"], "to": ["cp-2"], "for": "1s"},
    {"at": "30s", "kind": "heal"},
    {"at": "31s", "kind": "disk-loss", "node": "cp-3", "for": "1s"},
    {"at": "33s", "kind": "drop-connections", "node": "cp-2"},
    {"at": "34s", "kind": "terminate", "process": "cp-2/kube-scheduler", "grace": "5s",
     "for": "10s"},
    {"at": "45s", "kind": "apiserver-slow", "node": "cp-1", "latency": "500ms", "for": "5s"},
    {"at": "51s", "kind": "apiserver-hang", "nodes": ["cp-2"], "verbs": ["update", "get"],
     "for": "5s"},
    {"at": "57s", "kind": "apiserver-unavailable", "node": "cp-3", "for": "5s"}
  ],
  "properties": ["single-leader", "no-skew", "eventually-leader:5m", "no-false-suspicion",
                 "detect-crash:10s"]
})";

// Three control-plane nodes electing with client-go's defaults (as
// scenarios/election/steady-state.json), short.
inline Json control_plane_base() {
  return Json::parse(R"({"name": "base", "seed": 1, "duration": "10m",
    "nodes": [{"name": "cp-1", "zone": "a"}, {"name": "cp-2", "zone": "b"},
              {"name": "cp-3", "zone": "c"}],
    "network": {"latency": {"dist": "lognormal", "median": "1ms", "p99": "10ms"}},
    "controlPlane": {"version": "1.31.0"},
    "properties": ["single-leader", "eventually-leader:30s"]})");
}

inline std::string messages(const std::vector<ScenarioError>& errors) {
  return format_errors(errors, "test.json");
}

// Every error names where it is ("$...") and what is wrong.
inline void check_well_formed(const std::vector<ScenarioError>& errors) {
  for (const ScenarioError& e : errors) {
    CHECK(e.path.rfind('$', 0) == 0);
    CHECK_FALSE(e.message.empty());
  }
}

// Loads `text`, which must be rejected; returns its errors.
inline std::vector<ScenarioError> rejected(std::string_view text) {
  const LoadResult result = load_scenario_text(text, "test.json");
  INFO(text.substr(0, 200));
  CHECK_FALSE(result.scenario.has_value());
  CHECK_FALSE(result.errors.empty());
  check_well_formed(result.errors);
  return result.errors;
}
inline std::vector<ScenarioError> rejected_json(const Json& doc) { return rejected(doc.dump()); }

// True if some error is at `path`; INFO lists them all otherwise.
inline bool has_error_at(const std::vector<ScenarioError>& errors, const std::string& path) {
  for (const ScenarioError& e : errors) {
    if (e.path == path) return true;
  }
  return false;
}

// True if some error is at `path` or inside it ("$.a" covers "$.a.b" and "$.a[0]"): `{}` for a
// distribution is an object missing its "dist".
inline bool has_error_within(const std::vector<ScenarioError>& errors, const std::string& path) {
  for (const ScenarioError& e : errors) {
    if (e.path.rfind(path, 0) == 0 && (e.path.size() == path.size() || e.path[path.size()] == '.' ||
                                       e.path[path.size()] == '[')) {
      return true;
    }
  }
  return false;
}

// The one error at `path` (the test fails if there is none).
inline ScenarioError error_at(const std::vector<ScenarioError>& errors, const std::string& path) {
  INFO("expected an error at " << path << "; got:\n" << messages(errors));
  for (const ScenarioError& e : errors) {
    if (e.path == path) return e;
  }
  FAIL("no error at " << path);
  return {};
}

inline Scenario loaded(const Json& doc) {
  const LoadResult result = load_scenario_text(doc.dump(), "test.json");
  INFO(messages(result.errors));
  REQUIRE(result.scenario.has_value());
  return *result.scenario;
}

inline RunResult run_to_end(const Scenario& scenario) {
  const auto result = run_scenario(scenario, RunOptions{});
  REQUIRE(result.has_value());
  CHECK(result->stats.status == RunStatus::completed);
  CHECK(result->simulated == scenario.duration);
  return *result;
}

// Every value in `doc` with its JSON pointer and the path the loader names it by. Keys that are
// not identifiers are quoted ($["a-b"]) by JsonReader::key_path, except where the loader
// spells them dotted (component names); `alt` has that form.
struct Site {
  Json::json_pointer pointer;
  std::string path;
  std::string alt;
};

inline void collect(const Json& value, const Json::json_pointer& pointer, const std::string& path,
                    const std::string& alt, std::vector<Site>& out) {
  out.push_back({pointer, path, alt});
  if (value.is_object()) {
    for (const auto& item : value.items()) {
      const std::string key = item.key();
      collect(item.value(), pointer / key, JsonReader::key_path(path, key), alt + "." + key, out);
    }
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      collect(value[i], pointer / i, JsonReader::index_path(path, i),
              JsonReader::index_path(alt, i), out);
    }
  }
}

// What a JSON value is, coarsely: replacing a value by one of another kind is a type error.
inline int kind_of(const Json& value) {
  if (value.is_number()) return 0;
  return static_cast<int>(value.type()) + 1;
}

}  // namespace hasim::robustness_test
