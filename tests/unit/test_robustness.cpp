// Robustness: no input file makes hasim crash or hang. Malformed JSON, absurd nesting, every
// field of a full scenario replaced by every wrong JSON type, huge numbers and durations, zero
// durations wherever a duration is accepted, and 10,000 faults each get errors that name the
// JSON path (or load and run to completion). The regression tests at the end cover what
// fuzz/fuzz_load.cpp (scripts/fuzz.sh) found.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "models/cluster/upgrade_plan.hpp"
#include "models/cluster/upgrade_spec.hpp"
#include "scenarios/loader.hpp"
#include "properties/replay.hpp"
#include "properties/run.hpp"
#include "sim/distribution.hpp"
#include "sim/rng.hpp"

using Catch::Matchers::Contains;
using namespace hasim;

namespace {

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
Json control_plane_base() {
  return Json::parse(R"({"name": "base", "seed": 1, "duration": "10m",
    "nodes": [{"name": "cp-1", "zone": "a"}, {"name": "cp-2", "zone": "b"},
              {"name": "cp-3", "zone": "c"}],
    "network": {"latency": {"dist": "lognormal", "median": "1ms", "p99": "10ms"}},
    "controlPlane": {"version": "1.31.0"},
    "properties": ["single-leader", "eventually-leader:30s"]})");
}

std::string messages(const std::vector<ScenarioError>& errors) {
  return format_errors(errors, "test.json");
}

// Every error names where it is ("$...") and what is wrong.
void check_well_formed(const std::vector<ScenarioError>& errors) {
  for (const ScenarioError& e : errors) {
    CHECK(e.path.rfind('$', 0) == 0);
    CHECK_FALSE(e.message.empty());
  }
}

// Loads `text`, which must be rejected; returns its errors.
std::vector<ScenarioError> rejected(std::string_view text) {
  const LoadResult result = load_scenario_text(text, "test.json");
  INFO(text.substr(0, 200));
  CHECK_FALSE(result.scenario.has_value());
  CHECK_FALSE(result.errors.empty());
  check_well_formed(result.errors);
  return result.errors;
}
std::vector<ScenarioError> rejected_json(const Json& doc) { return rejected(doc.dump()); }

// True if some error is at `path`; INFO lists them all otherwise.
bool has_error_at(const std::vector<ScenarioError>& errors, const std::string& path) {
  for (const ScenarioError& e : errors) {
    if (e.path == path) return true;
  }
  return false;
}

// True if some error is at `path` or inside it ("$.a" covers "$.a.b" and "$.a[0]"): `{}` for a
// distribution is an object missing its "dist".
bool has_error_within(const std::vector<ScenarioError>& errors, const std::string& path) {
  for (const ScenarioError& e : errors) {
    if (e.path.rfind(path, 0) == 0 && (e.path.size() == path.size() || e.path[path.size()] == '.' ||
                                       e.path[path.size()] == '[')) {
      return true;
    }
  }
  return false;
}

// The one error at `path` (the test fails if there is none).
ScenarioError error_at(const std::vector<ScenarioError>& errors, const std::string& path) {
  INFO("expected an error at " << path << "; got:\n" << messages(errors));
  for (const ScenarioError& e : errors) {
    if (e.path == path) return e;
  }
  FAIL("no error at " << path);
  return {};
}

Scenario loaded(const Json& doc) {
  const LoadResult result = load_scenario_text(doc.dump(), "test.json");
  INFO(messages(result.errors));
  REQUIRE(result.scenario.has_value());
  return *result.scenario;
}

RunResult run_to_end(const Scenario& scenario) {
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

void collect(const Json& value, const Json::json_pointer& pointer, const std::string& path,
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
int kind_of(const Json& value) {
  if (value.is_number()) return 0;
  return static_cast<int>(value.type()) + 1;
}

}  // namespace

TEST_CASE("the full scenario loads and runs", "[robustness]") {
  const Scenario scenario = loaded(Json::parse(kFull));
  CHECK(scenario.faults.size() == 19);
  run_to_end(scenario);
}

TEST_CASE("malformed JSON gets an error at $, never a scenario", "[robustness]") {
  // Every truncation of a valid file.
  const std::string full(kFull);
  const std::size_t last_brace = full.rfind('}');
  for (std::size_t n = 0; n < last_brace; ++n) {
    const LoadResult result = load_scenario_text(full.substr(0, n), "test.json");
    INFO("truncated to " << n << " bytes");
    REQUIRE_FALSE(result.scenario.has_value());
    REQUIRE(result.errors.size() == 1);
    CHECK(result.errors[0].path == "$");
  }
  CHECK_THAT(rejected(full.substr(0, 100))[0].message, Contains("not valid JSON"));
  CHECK_THAT(rejected("")[0].message, Contains("the file is empty"));
  CHECK_THAT(rejected(" \n\t ")[0].message, Contains("the file is empty"));

  // Trailing garbage, a second document, stray bytes.
  const std::vector<std::string> tails{"x",        "}",         "{}", ",", std::string(1, '\0'),
                                       "\xff\xfe", "// comment"};
  for (const std::string& tail : tails) {
    const auto errors = rejected(full + tail);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].path == "$");
    // nlohmann's parser stops at a NUL byte, so the loader looks for them first.
    CHECK_THAT(
        errors[0].message,
        Contains(tail[0] == '\0' ? "contains a NUL byte at line 71, column 2" : "not valid JSON"));
  }
  CHECK_FALSE(
      load_replay_text(make_replay(Json::parse(kFull), RunResult{}, "").dump() + tails[4], "r")
          .replay.has_value());
  const auto comma = rejected(R"({"name": "x", "duration": "1m", "nodes": 2,})");
  CHECK_THAT(comma[0].message, Contains("no comma after the last item"));
  const auto bare = rejected(R"({"name": x})");
  CHECK_THAT(bare[0].message, Contains("must be in double quotes"));
  // Ill-formed UTF-8 inside a string, and a NUL byte inside the document.
  CHECK_THAT(rejected("{\"name\": \"\xc3\x28\"}")[0].message, Contains("not valid JSON"));
  const char kNul[] = "{\"name\": \"a\"\0}";
  CHECK_THAT(rejected(std::string(kNul, sizeof kNul - 1))[0].message, Contains("NUL byte"));
  // Not an object at all.
  for (const char* text : {"[]", "3", "\"scenario\"", "null", "true"}) {
    CHECK_THAT(rejected(text)[0].message, Contains("expected the scenario to be a JSON object"));
  }
}

TEST_CASE("absurd nesting is refused before parsing, for scenarios and replays", "[robustness]") {
  constexpr std::size_t kLevels = 100'000;
  const std::string arrays = std::string(kLevels, '[') + std::string(kLevels, ']');
  const std::string objects = [] {
    std::string text;
    for (std::size_t i = 0; i < kLevels; ++i) text += "{\"a\":";
    return text + "1" + std::string(kLevels, '}');
  }();
  const std::string unclosed(kLevels, '[');
  CHECK_THAT(rejected(arrays)[0].message, Contains("at line 1, column 65;"));
  for (const std::string* text : {&arrays, &objects, &unclosed}) {
    const auto errors = rejected(*text);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].path == "$");
    CHECK_THAT(errors[0].message, Contains("nests deeper than 64 levels at line 1, column "));
    const ReplayLoad replay = load_replay_text(*text, "test.replay.json");
    CHECK_FALSE(replay.replay.has_value());
    REQUIRE(replay.errors.size() == 1);
    CHECK_THAT(replay.errors[0].message, Contains("nests deeper than 64 levels"));
  }
  // The same nesting inside a replay's embedded scenario (the replay loader re-serializes it,
  // which recursed once per level and overflowed the stack).
  Json replay = make_replay(Json::parse(kFull), RunResult{}, "");
  std::string text = replay.dump();
  const std::string key = "\"scenario\":";
  const std::size_t at = text.find(key);
  REQUIRE(at != std::string::npos);
  text.insert(at + key.size(), std::string(kLevels, '['));
  const std::size_t end = text.find("},\"seed\"", at);  // after the scenario object
  REQUIRE(end != std::string::npos);
  text.insert(end + 1, std::string(kLevels, ']'));
  const ReplayLoad deep = load_replay_text(text, "test.replay.json");
  CHECK_FALSE(deep.replay.has_value());
  REQUIRE_FALSE(deep.errors.empty());
  CHECK_THAT(deep.errors[0].message, Contains("nests deeper than 64 levels"));

  // 64 levels are still read (and then rejected for what they are, not for their depth).
  const std::string deep64 = std::string(64, '[') + std::string(64, ']');
  CHECK_THAT(rejected(deep64)[0].message, Contains("expected the scenario to be a JSON object"));
}

TEST_CASE("every value of a full scenario replaced by a wrong type is an error at its path",
          "[robustness]") {
  const Json full = Json::parse(kFull);
  std::vector<Site> sites;
  collect(full, Json::json_pointer(), "$", "$", sites);
  REQUIRE(sites.size() > 200);
  const std::vector<Json> wrong{nullptr, true, 1.5, "wrong", Json::array(), Json::object()};
  std::size_t tried = 0;
  for (const Site& site : sites) {
    if (site.pointer.empty()) continue;  // the root: see the malformed-JSON test
    for (const Json& replacement : wrong) {
      if (kind_of(replacement) == kind_of(full.at(site.pointer))) continue;
      Json doc = full;
      doc[site.pointer] = replacement;
      INFO(site.path << " = " << replacement.dump());
      const auto errors = rejected_json(doc);
      INFO(messages(errors));
      CHECK((has_error_within(errors, site.path) || has_error_within(errors, site.alt)));
      ++tried;
    }
  }
  CHECK(tried > 1000);
}

TEST_CASE("a replay with wrong types or a broken embedded scenario gets errors, not a crash",
          "[robustness]") {
  const Json good = make_replay(Json::parse(kFull), RunResult{}, "");
  REQUIRE(load_replay_text(good.dump(), "r").replay.has_value());
  std::vector<Site> sites;
  collect(good, Json::json_pointer(), "$", "$", sites);
  const std::vector<Json> wrong{nullptr, true, 1.5, "wrong", Json::array(), Json::object()};
  for (const Site& site : sites) {
    if (site.pointer.empty()) continue;
    for (const Json& replacement : wrong) {
      if (kind_of(replacement) == kind_of(good.at(site.pointer))) continue;
      Json doc = good;
      doc[site.pointer] = replacement;
      const ReplayLoad load = load_replay_text(doc.dump(), "r");
      INFO(site.path << " = " << replacement.dump() << "\n" << messages(load.errors));
      CHECK_FALSE(load.replay.has_value());
      check_well_formed(load.errors);
      CHECK((has_error_within(load.errors, site.path) || has_error_within(load.errors, site.alt)));
    }
  }
  // Removing any member: errors or a replay, never a crash.
  for (const Site& site : sites) {
    if (site.pointer.empty() || !good.at(site.pointer.parent_pointer()).is_object()) continue;
    Json doc = good;
    doc.at(site.pointer.parent_pointer()).erase(site.pointer.back());
    const ReplayLoad load = load_replay_text(doc.dump(), "r");
    CHECK(load.replay.has_value() == load.errors.empty());
    check_well_formed(load.errors);
  }
}

TEST_CASE("huge numbers are errors at their path", "[robustness]") {
  Json doc = control_plane_base();
  doc["seed"] = 18446744073709551615ULL;  // 2^64 - 1: the largest seed
  CHECK(loaded(doc).seed == 18446744073709551615ULL);

  const auto error_for = [](const std::string& text, const std::string& path) {
    return error_at(rejected(text), path).message;
  };
  const std::string head = R"({"name": "h", "duration": "10m", )";
  CHECK_THAT(error_for(head + R"("nodes": 3, "seed": 18446744073709551616})", "$.seed"),
             Contains("whole number from 0 to 18446744073709551615"));
  CHECK_THAT(error_for(head + R"("nodes": 3, "seed": -1})", "$.seed"), Contains("found number -1"));
  CHECK_THAT(error_for(head + R"("nodes": 3, "seed": 1e308})", "$.seed"), Contains("whole number"));
  CHECK_THAT(error_for(head + R"("nodes": 3, "seed": 1e400})", "$"),
             Contains("numbers must fit in a 64-bit floating-point value"));
  for (const char* nodes : {"1e308", "18446744073709551616", "1001", "-1", "0", "2.5"}) {
    CHECK_THAT(error_for(head + R"("nodes": )" + nodes + "}", "$.nodes"),
               Contains("whole number from 1 to 1000"));
  }
  CHECK_THAT(error_for(head + R"("nodes": 3, "network": {"loss": 1e300}})", "$.network.loss"),
             Contains("probability from 0 to 1"));
  CHECK_THAT(error_for(head + R"("nodes": [{"name": "a", "clock": {"rate": 1e300}}]})",
                       "$.nodes[0].clock.rate"),
             Contains("at most 1000"));
  CHECK_THAT(error_for(head + R"("nodes": [{"name": "a", "clock": {"drift": "+1e300ppm"}}]})",
                       "$.nodes[0].clock.drift"),
             Contains("whole parts per million"));
  CHECK_THAT(error_for(head + R"("nodes": [{"name": "a", "clock": {"rate": -1e300}}]})",
                       "$.nodes[0].clock.rate"),
             Contains("above 0"));

  // Durations: past 64-bit nanoseconds, in exponent notation, or past the scenario limit.
  const std::string tail = R"(, "nodes": 3})";
  CHECK_THAT(error_for(R"({"name": "h", "duration": "99999999999999h")" + tail, "$.duration"),
             Contains("too large"));
  CHECK_THAT(error_for(R"({"name": "h", "duration": "1e400s")" + tail, "$.duration"),
             Contains("unknown unit"));
  CHECK_THAT(error_for(R"({"name": "h", "duration": "100001h")" + tail, "$.duration"),
             Contains("at most 100000h (about 11 years)"));
  CHECK(loaded(Json::parse(R"({"name": "h", "duration": "100000h")" + tail)).duration ==
        hours(100'000));
  CHECK_THAT(error_for(head + R"("nodes": 3, "network": {"latency": "1ns..2000000h"}})",
                       "$.network.latency"),
             Contains("at most 100000h"));
  CHECK_THAT(error_for(head + R"("nodes": [{"name": "a", "clock": {"offset": "-100001h"}}]})",
                       "$.nodes[0].clock.offset"),
             Contains("at most 100000h"));
  CHECK_THAT(
      error_for(head + R"("nodes": 3, "network": {"latency": {"dist": "exponential", "mean": )"
                       R"("2562047h"}}})",
                "$.network.latency.mean"),
      Contains("at most 100000h"));

  // A replay's numbers.
  Json replay = make_replay(Json::parse(kFull), RunResult{}, "");
  replay["replayFormat"] = 1e300;
  replay["seed"] = -1;
  replay["expected"]["traceEvents"] = 18446744073709551616.0;
  const ReplayLoad load = load_replay_text(replay.dump(), "r");
  CHECK(has_error_at(load.errors, "$.replayFormat"));
  CHECK(has_error_at(load.errors, "$.seed"));
  CHECK(has_error_at(load.errors, "$.expected.traceEvents"));
}

TEST_CASE("zero durations: rejected where they make no sense, and run where accepted",
          "[robustness]") {
  const Json base = control_plane_base();
  // The run's length, the election's timings, the heartbeat and the kubelet's back-off.
  Json duration = base;
  duration["duration"] = "0s";
  CHECK_THAT(error_at(rejected_json(duration), "$.duration").message,
             Contains("greater than zero"));
  for (const char* key : {"leaseDuration", "renewDeadline", "retryPeriod"}) {
    Json doc = base;
    doc["controlPlane"]["components"]["kube-controller-manager"][key] = "0s";
    const auto errors = rejected_json(doc);
    CHECK_FALSE(errors.empty());
    CHECK(errors[0].path.rfind("$.controlPlane.components.kube-controller-manager.", 0) == 0);
    Json coordination = base;
    coordination["controlPlane"]["coordination"][key] = "0s";
    CHECK(rejected_json(coordination)[0].path.rfind("$.controlPlane.coordination.", 0) == 0);
  }
  Json heartbeat = base;
  heartbeat["heartbeat"] = {{"interval", "0s"}, {"timeout", "3s"}};
  CHECK_THAT(error_at(rejected_json(heartbeat), "$.heartbeat.interval").message,
             Contains("greater than zero"));
  heartbeat["heartbeat"] = {{"interval", "1s"}, {"timeout", "0s"}};
  CHECK(has_error_at(rejected_json(heartbeat), "$.heartbeat.timeout"));
  for (const char* key : {"backoff", "maxBackoff", "resetAfter"}) {
    Json doc = base;
    doc["controlPlane"]["kubelet"][key] = "0s";
    CHECK(has_error_at(rejected_json(doc), std::string("$.controlPlane.kubelet.") + key));
  }
  for (const char* key : {"requestTimeout"}) {
    Json doc = base;
    doc["controlPlane"][key] = "0s";
    CHECK(has_error_at(rejected_json(doc), std::string("$.controlPlane.") + key));
  }
  Json fault = base;
  fault["faults"] =
      Json::array({{{"at", "1m"}, {"kind", "crash"}, {"node", "cp-1"}, {"for", "0s"}}});
  CHECK_THAT(error_at(rejected_json(fault), "$.faults[0].for").message,
             Contains("greater than zero"));
  fault["faults"] = Json::array(
      {{{"at", "1m"}, {"kind", "apiserver-slow"}, {"node", "cp-1"}, {"latency", "0s"}}});
  CHECK(has_error_at(rejected_json(fault), "$.faults[0].latency"));
  fault["faults"] =
      Json::array({{{"at", "1m"}, {"kind", "exponential"}, {"node", "cp-1"}}});  // not a kind
  CHECK(has_error_at(rejected_json(fault), "$.faults[0].kind"));
  Json exponential = base;
  exponential["network"]["latency"] = {{"dist", "exponential"}, {"mean", "0s"}};
  CHECK(has_error_at(rejected_json(exponential), "$.network.latency.mean"));

  // Accepted zeros: latencies, the upgrade's timings, grace periods, fault times, the leader's
  // work interval. The run completes.
  Json zero = base;
  zero["duration"] = "2m";
  zero["network"] = {{"latency", "0s"}, {"loopbackLatency", "0s"}};
  zero["controlPlane"]["apiserverLatency"] = "0s";
  zero["controlPlane"]["watchLag"] = "0s..0s";
  zero["controlPlane"]["components"]["kube-controller-manager"]["workInterval"] = "0s";
  zero["upgrade"] = {{"at", "0s"},      {"to", "1.32.0"},      {"downtime", "0s..0s"},
                     {"gap", "0s..0s"}, {"startJitter", "0s"}, {"canary", "0s"},
                     {"grace", "0s"}};
  zero["faults"] = Json::array({
      {{"at", "0s"}, {"kind", "terminate"}, {"process", "cp-1/kube-scheduler"}, {"grace", "0s"}},
      {{"at", "0s"}, {"kind", "crash"}, {"node", "cp-2"}},
      {{"at", "0s"}, {"kind", "restart"}, {"node", "cp-2"}},
      {{"at", "0s"}, {"kind", "clock-step"}, {"node", "cp-3"}, {"by", "0s"}},
      {{"at", "1m"}, {"kind", "apiserver-hang"}, {"node", "cp-3"}, {"for", "1ns"}},
  });
  zero["properties"] = Json::array({"single-leader", "no-skew", "eventually-leader:30s"});
  run_to_end(loaded(zero));

  Json uniform = base;
  uniform["network"]["latency"] = {{"dist", "uniform"}, {"min", "0s"}, {"max", "0s"}};
  uniform["heartbeat"] = {{"interval", "1ms"}, {"timeout", "2ms"}};
  uniform["duration"] = "10s";
  uniform["properties"] = Json::array();
  run_to_end(loaded(uniform));
}

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
       {{"at", "1m"}, {"kind", "pause"}, {"process", "etcd/kube-apiserver"}, {"for", "1s"}}});
  const auto errors = rejected_json(cp);
  CHECK_THAT(error_at(errors, "$.faults[0].process").message,
             Contains("did you mean \"kube-scheduler\"?"));
  CHECK_THAT(error_at(errors, "$.faults[1].process").message,
             Contains("no process runs on \"etcd\""));
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
