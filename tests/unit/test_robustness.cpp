// Robustness: no input file makes hasim crash or hang. Malformed JSON, absurd nesting, every
// field of a full scenario replaced by every wrong JSON type, huge numbers and durations, and
// zero durations wherever a duration is accepted each get errors that name the JSON path (or
// load and run to completion). Limits and scale: test_robustness_limits.cpp.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "robustness_helpers.hpp"

using namespace hasim::robustness_test;

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
  for (const char* nodes : {"1e308", "18446744073709551616", "2001", "-1", "0", "2.5"}) {
    CHECK_THAT(error_for(head + R"("nodes": )" + nodes + "}", "$.nodes"),
               Contains("whole number from 1 to 2000"));
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
