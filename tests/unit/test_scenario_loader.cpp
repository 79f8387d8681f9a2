// The scenario loader: one test per class of bad input, checking the JSON path and the
// message a user sees; the examples load. The schema's agreement with the loader:
// test_scenario_loader_schema.cpp; the control plane: test_scenario_loader_control_plane.cpp.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include "sim/clock.hpp"
#include "scenario_loader_helpers.hpp"

using namespace hasim::loader_test;

TEST_CASE("a valid scenario loads with defaults and every field mapped", "[scenario]") {
  Json doc = base();
  doc["seed"] = 18446744073709551615ULL;
  doc["nodes"][0]["clock"] = {{"offset", "-2s"}, {"drift", "+50ppm"}};
  doc["nodes"][1]["clock"] = {{"rate", 1.00005}};
  doc["heartbeat"] = {{"interval", "1s"}};  // runs the "n1/heartbeat" the first fault crashes
  doc["network"] = {
      {"latency", "1ms..5ms"},
      {"loss", 0.01},
      {"links",
       Json::array({{{"from", "n1"}, {"to", "n2"}, {"latency", "50ms"}, {"symmetric", true}}})}};
  doc["faults"] = Json::array({
      {{"at", "1m"}, {"kind", "crash"}, {"process", "n1/heartbeat"}, {"for", "30s"}},
      {{"at", "2m"}, {"kind", "partition"}, {"isolateZone", "b"}},
      {{"at", "3m"}, {"kind", "partition"}, {"groups", {{"n1"}, {"n2", "n3"}}}},
      {{"at", "4m"}, {"kind", "partition"}, {"from", {"n1"}}, {"to", {"n2", "n3"}}},
      {{"at", "5m"}, {"kind", "clock-step"}, {"nodes", {"n1", "n3"}}, {"by", "-2s"}},
      {{"at", "6m"}, {"kind", "clock-rate"}, {"node", "n2"}, {"rate", 2.5}, {"for", "1m"}},
      {{"at", "7m"}, {"kind", "heal"}},
  });
  const LoadResult result = load(doc);
  INFO(all_messages(result));
  REQUIRE(result.errors.empty());
  REQUIRE(result.scenario);
  const hasim::Scenario& s = *result.scenario;
  CHECK(s.seed == 18446744073709551615ULL);
  CHECK(s.duration == hasim::minutes(10));
  CHECK(s.nodes[0].clock.offset == hasim::seconds(-2));
  CHECK(s.nodes[0].clock.rate_ppb == hasim::rate_from_ppm(50));
  CHECK(s.nodes[1].clock.rate_ppb == 1'000'050'000);
  CHECK(s.nodes[2].clock.rate_ppb == hasim::kRatePerfect);
  CHECK(s.network.latency ==
        hasim::DurationDistribution::uniform(hasim::milliseconds(1), hasim::milliseconds(5)));
  CHECK(s.network.loopback_latency ==
        hasim::DurationDistribution::constant(hasim::microseconds(100)));
  CHECK(s.network.loss == 0.01);
  REQUIRE(s.network.links.size() == 2);  // symmetric adds n2 -> n1
  CHECK(s.network.links[1].from == "n2");
  CHECK(s.network.links[1].to == "n1");
  CHECK(s.section<hasim::HeartbeatSpec>()->timeout == hasim::seconds(3));  // the default
  REQUIRE(s.faults.size() == 7);
  CHECK(s.faults[0].targets == std::vector<std::string>{"n1/heartbeat"});
  CHECK(s.faults[0].for_duration == hasim::seconds(30));
  CHECK(s.faults[1].partition_mode == hasim::FaultSpec::PartitionMode::isolate);
  CHECK(s.faults[1].targets == std::vector<std::string>{"n2"});
  CHECK(s.faults[2].partition_mode == hasim::FaultSpec::PartitionMode::groups);
  CHECK(s.faults[2].groups.size() == 2);
  CHECK(s.faults[3].partition_mode == hasim::FaultSpec::PartitionMode::oneway);
  CHECK(s.faults[3].to == std::vector<std::string>{"n2", "n3"});
  CHECK(s.faults[4].step == hasim::seconds(-2));
  CHECK(s.faults[5].rate_ppb == 2'500'000'000);
  CHECK(s.faults[6].kind == "heal");

  const LoadResult counted = load_text(R"({"name": "c", "duration": "1h", "nodes": 4})");
  REQUIRE(counted.scenario);
  CHECK(counted.scenario->seed == 1);
  CHECK(counted.scenario->nodes.size() == 4);
  CHECK(counted.scenario->nodes[3].name == "n4");
}

TEST_CASE("fault kinds are found by their registered names", "[scenario]") {
  for (const std::string& name : hasim::fault_kind_names()) {
    const hasim::FaultKind* kind = hasim::find_fault_kind(name);
    REQUIRE(kind != nullptr);
    CHECK(kind->name == name);
  }
  CHECK(hasim::fault_kind_names().size() == 39);
  CHECK(hasim::find_fault_kind("druid-pod-delete") != nullptr);
  CHECK(hasim::find_fault_kind("apiserver-unavailable") != nullptr);
  CHECK(hasim::find_fault_kind("drop-connections") != nullptr);
  CHECK(hasim::find_fault_kind("Crash") == nullptr);
}

TEST_CASE("malformed JSON is reported with its line and column", "[scenario]") {
  const auto e =
      only_error(load_text("{\n  \"name\": \"t\",\n  \"duration\": \"10m\"\n  \"nodes\": 3\n}"));
  CHECK(e.path == "$");
  CHECK_THAT(e.message, Contains("not valid JSON") && Contains("at line 4, column"));
  CHECK_THAT(only_error(load_text("{\"name\": \"t\",}")).message, Contains("line 1"));
  CHECK_THAT(only_error(load_text("")).message, Contains("the file is empty"));
  CHECK_THAT(only_error(load_text("{\"name\": \"\xff\"}")).message, Contains("not valid JSON"));
}

TEST_CASE("a root that is not an object is rejected", "[scenario]") {
  const auto e = only_error(load_text("[1, 2]"));
  CHECK(e.path == "$");
  CHECK_THAT(e.message, Contains("expected the scenario to be a JSON object, found an array"));
}

TEST_CASE("an unknown top-level key suggests the closest known one", "[scenario]") {
  Json doc = base();
  doc.erase("duration");
  doc["duraton"] = "10m";
  const LoadResult result = load(doc);
  REQUIRE(result.errors.size() == 2);  // the typo, and the key it leaves missing
  CHECK(result.errors[0].path == "$.duraton");
  CHECK_THAT(result.errors[0].message,
             Contains("unknown key \"duraton\" in the scenario (did you mean \"duration\"?)"));
  CHECK(result.errors[1].path == "$.duration");
  CHECK_THAT(result.errors[1].message, Contains("required key \"duration\" is missing"));
}

TEST_CASE("an unknown nested key names its path", "[scenario]") {
  Json doc = base();
  doc["network"] = {{"latncy", "1ms"}};
  auto e = only_error(load(doc));
  CHECK(e.path == "$.network.latncy");
  CHECK_THAT(e.message, Contains("(did you mean \"latency\"?)") && Contains("allowed keys are"));

  doc = base();
  doc["nodes"][2]["clock"] = {{"ofset", "1s"}};
  e = only_error(load(doc));
  CHECK(e.path == "$.nodes[2].clock.ofset");
  CHECK_THAT(e.message, Contains("did you mean \"offset\"?"));

  // The misspelt key leaves the fault without a target: both are said.
  const LoadResult fault = load_with_fault({{"at", "1m"}, {"kind", "crash"}, {"nodee", "n1"}});
  REQUIRE(fault.errors.size() == 2);
  CHECK(fault.errors[0].path == "$.faults[0].nodee");
  CHECK_THAT(fault.errors[0].message, Contains("did you mean \"node\"?"));
  CHECK_THAT(fault.errors[1].message, Contains("a crash fault needs a target"));

  // A known key in the wrong kind of fault says so rather than "unknown".
  e = only_error(
      load_with_fault({{"at", "1m"}, {"kind", "restart"}, {"node", "n1"}, {"for", "1s"}}));
  CHECK(e.path == "$.faults[0].for");
  CHECK_THAT(e.message, Contains("key \"for\" does not apply to a restart fault"));
}

TEST_CASE("values of the wrong type say what was found", "[scenario]") {
  Json doc = base();
  doc["seed"] = "5";
  auto e = only_error(load(doc));
  CHECK(e.path == "$.seed");
  CHECK_THAT(e.message, Contains("expected a whole number") && Contains("found \"5\""));

  doc = base();
  doc["name"] = 5;
  e = only_error(load(doc));
  CHECK(e.path == "$.name");
  CHECK_THAT(e.message, Contains("expected a string in double quotes, found number 5"));

  doc = base();
  doc["nodes"] = "3";
  e = only_error(load(doc));
  CHECK_THAT(e.message, Contains("expected a node count such as 3") && Contains("found \"3\""));

  doc = base();
  doc["network"] = {{"links", Json::array({{{"from", "n1"}, {"to", "n2"}, {"symmetric", "yes"}}})}};
  e = only_error(load(doc));
  CHECK(e.path == "$.network.links[0].symmetric");
  CHECK_THAT(e.message, Contains("expected true or false (without quotes), found \"yes\""));

  doc = base();
  doc["faults"] = {{"at", "1m"}};
  e = only_error(load(doc));
  CHECK(e.path == "$.faults");
  CHECK_THAT(e.message, Contains("expected an array such as") && Contains("found an object"));
}

TEST_CASE("an unparsable duration quotes the text and the fix", "[scenario]") {
  auto e = only_error(load_with_fault({{"at", "5x"}, {"kind", "crash"}, {"node", "n1"}}));
  CHECK(e.path == "$.faults[0].at");
  CHECK_THAT(e.message, Contains("expected a duration such as \"150ms\" or \"1.5s\", found \"5x\": "
                                 "missing or unknown unit"));
  Json doc = base();
  doc["duration"] = 600;
  e = only_error(load(doc));
  CHECK(e.path == "$.duration");
  CHECK_THAT(e.message, Contains("found number 600") && Contains("quoted strings with a unit"));
}

TEST_CASE("a negative duration is rejected where time cannot be negative", "[scenario]") {
  auto e = only_error(load_with_fault({{"at", "-5s"}, {"kind", "crash"}, {"node", "n1"}}));
  CHECK(e.path == "$.faults[0].at");
  CHECK_THAT(e.message, Contains("zero or more, found \"-5s\""));
  Json doc = base();
  doc["network"] = {{"latency", "-1ms"}};
  e = only_error(load(doc));
  CHECK(e.path == "$.network.latency");
  CHECK_THAT(e.message, Contains("remove the minus sign"));
}

TEST_CASE("a zero duration is rejected where it must be positive", "[scenario]") {
  Json doc = base();
  doc["duration"] = "0s";
  auto e = only_error(load(doc));
  CHECK(e.path == "$.duration");
  CHECK_THAT(e.message, Contains("expected a duration greater than zero, found \"0s\""));
  e = only_error(load_with_fault({{"at", "1m"}, {"kind", "crash"}, {"node", "n1"}, {"for", "0"}}));
  CHECK(e.path == "$.faults[0].for");
}

TEST_CASE("a missing required field is named with an example", "[scenario]") {
  Json doc = base();
  doc.erase("name");
  auto e = only_error(load(doc));
  CHECK(e.path == "$.name");
  CHECK_THAT(e.message, Contains("required key \"name\" is missing; add e.g. \"name\":"));
  e = only_error(load_with_fault({{"at", "1m"}, {"node", "n1"}}));
  CHECK(e.path == "$.faults[0].kind");
  doc = base();
  doc["network"] = {{"links", Json::array({{{"from", "n1"}}})}};
  e = only_error(load(doc));
  CHECK(e.path == "$.network.links[0].to");
}

TEST_CASE("an unknown node reference lists the nodes and suggests one", "[scenario]") {
  auto e = only_error(load_with_fault({{"at", "1m"}, {"kind", "crash"}, {"node", "nn2"}}));
  CHECK(e.path == "$.faults[0].node");
  CHECK_THAT(e.message,
             Contains("unknown node \"nn2\" (did you mean \"n2\"?); the nodes are n1, n2, n3"));
  e = only_error(load_with_fault({{"at", "1m"}, {"kind", "partition"}, {"isolate", {"n1", "x9"}}}));
  CHECK(e.path == "$.faults[0].isolate[1]");
  e = only_error(load_with_fault({{"at", "1m"}, {"kind", "pause"}, {"process", "n7/heartbeat"}}));
  CHECK(e.path == "$.faults[0].process");
  CHECK_THAT(e.message, Contains("unknown node \"n7\""));
  e = only_error(load_with_fault({{"at", "1m"}, {"kind", "partition"}, {"isolateZone", "d"}}));
  CHECK_THAT(e.message, Contains("unknown zone \"d\"") && Contains("\"a\", \"b\" and \"c\""));
}

TEST_CASE("a duplicate node name points at the first use", "[scenario]") {
  Json doc = base();
  doc["nodes"][2]["name"] = "n1";
  const auto e = only_error(load(doc));
  CHECK(e.path == "$.nodes[2].name");
  CHECK_THAT(e.message, Contains("node name \"n1\" is already used by $.nodes[0]"));
}

TEST_CASE("a scenario needs at least one node", "[scenario]") {
  Json doc = base();
  doc["nodes"] = Json::array();
  auto e = only_error(load(doc));
  CHECK(e.path == "$.nodes");
  CHECK_THAT(e.message, Contains("expected 1 to 2000 nodes, found 0"));
  doc["nodes"] = 0;
  e = only_error(load(doc));
  CHECK_THAT(e.message, Contains("expected a whole number from 1 to 2000, found number 0"));
}

TEST_CASE("a heartbeat timeout not above its interval is contradictory", "[scenario]") {
  Json doc = base();
  doc["heartbeat"] = {{"interval", "2s"}, {"timeout", "2s"}};
  auto e = only_error(load(doc));
  CHECK(e.path == "$.heartbeat.timeout");
  CHECK_THAT(e.message, Contains("timeout 2s must be longer than interval 2s"));
  doc["heartbeat"] = {{"timeout", "500ms"}};
  e = only_error(load(doc));
  CHECK_THAT(e.message, Contains("interval 1s (the default)"));
}

TEST_CASE("a probability outside 0..1 is rejected", "[scenario]") {
  Json doc = base();
  doc["network"] = {{"loss", 1.5}, {"duplicate", "1%"}};
  const LoadResult result = load(doc);
  REQUIRE(result.errors.size() == 2);
  CHECK(result.errors[0].path == "$.network.loss");
  CHECK_THAT(result.errors[0].message,
             Contains("expected a probability from 0 to 1") && Contains("found number 1.5"));
  CHECK(result.errors[1].path == "$.network.duplicate");
}

TEST_CASE("a bad distribution names the parameter at fault", "[scenario]") {
  Json doc = base();
  doc["network"] = {{"latency", {{"dist", "lognormal"}, {"median", "10ms"}, {"p99", "5ms"}}}};
  auto e = only_error(load(doc));
  CHECK(e.path == "$.network.latency.p99");
  CHECK_THAT(e.message, Contains("p99 5ms is below median 10ms"));
  doc["network"] = {{"latency", {{"dist", "lognormall"}, {"median", "1ms"}, {"p99", "5ms"}}}};
  e = only_error(load(doc));
  CHECK(e.path == "$.network.latency.dist");
  CHECK_THAT(e.message,
             Contains("unknown distribution \"lognormall\" (did you mean \"lognormal\"?)"));
  doc["network"] = {{"latency", {{"dist", "constant"}, {"mean", "1ms"}}}};
  const LoadResult result = load(doc);
  REQUIRE(result.errors.size() == 2);
  CHECK_THAT(result.errors[0].message, Contains("does not apply to a constant distribution"));
  CHECK(result.errors[1].path == "$.network.latency.value");
  doc["network"] = {{"latency", "90s..30s"}};
  CHECK_THAT(only_error(load(doc)).message, Contains("low end above its high end"));
}

TEST_CASE("an unknown fault kind suggests the closest kind", "[scenario]") {
  const auto e = only_error(load_with_fault({{"at", "1m"}, {"kind", "crsh"}, {"node", "n1"}}));
  CHECK(e.path == "$.faults[0].kind");
  CHECK_THAT(e.message, Contains("unknown fault kind \"crsh\" (did you mean \"crash\"?)") &&
                            Contains("\"drop-connections\""));
}

TEST_CASE("a fault at or after the end of the run is rejected", "[scenario]") {
  auto e = only_error(load_with_fault({{"at", "12m"}, {"kind", "crash"}, {"node", "n1"}}));
  CHECK(e.path == "$.faults[0].at");
  CHECK_THAT(e.message, Contains("the fault at 12m happens after the run ends at 10m"));
  CHECK(load_with_fault({{"at", "10m"}, {"kind", "heal"}}).errors.size() == 1);
  CHECK(load_with_fault({{"at", "9m59s"}, {"kind", "heal"}}).errors.empty());
}

TEST_CASE("a partition needs exactly one form of target", "[scenario]") {
  auto e = only_error(load_with_fault({{"at", "1m"}, {"kind", "partition"}}));
  CHECK(e.path == "$.faults[0]");
  CHECK_THAT(e.message, Contains("a partition fault needs a target") && Contains("isolateZone"));
  e = only_error(load_with_fault(
      {{"at", "1m"}, {"kind", "partition"}, {"isolate", {"n1"}}, {"groups", {{"n1"}, {"n2"}}}}));
  CHECK(e.path == "$.faults[0].groups");
  CHECK_THAT(e.message, Contains("has \"isolate\" and \"groups\"; keep one"));
  e = only_error(load_with_fault({{"at", "1m"}, {"kind", "partition"}, {"to", {"n1"}}}));
  CHECK(e.path == "$.faults[0].from");
  e = only_error(
      load_with_fault({{"at", "1m"}, {"kind", "crash"}, {"node", "n1"}, {"nodes", {"n2"}}}));
  CHECK_THAT(e.message, Contains("takes only one of \"node\", \"nodes\", \"process\" or \"role\""));
  e = only_error(
      load_with_fault({{"at", "1m"}, {"kind", "partition"}, {"isolate", {"n1", "n2", "n3"}}}));
  CHECK_THAT(e.message, Contains("isolates every node"));
}

TEST_CASE("partition groups must be two or more and disjoint", "[scenario]") {
  auto e = only_error(load_with_fault(
      {{"at", "1m"},
       {"kind", "partition"},
       {"groups", Json::array({Json::array({"n1", "n2"}), Json::array({"n3", "n2"})})}}));
  CHECK(e.path == "$.faults[0].groups[1][1]");
  CHECK_THAT(e.message, Contains("node \"n2\" is already in the group at $.faults[0].groups[0]"));
  e = only_error(load_with_fault(
      {{"at", "1m"}, {"kind", "partition"}, {"groups", Json::array({Json::array({"n1"})})}}));
  CHECK_THAT(e.message, Contains("at least two groups"));
  e = only_error(load_with_fault(
      {{"at", "1m"}, {"kind", "partition"}, {"from", {"n1"}}, {"to", {"n2", "n1"}}}));
  CHECK(e.path == "$.faults[0].to[1]");
}

TEST_CASE("an unknown property suggests the closest one", "[scenario]") {
  Json doc = base();
  doc["properties"] = {"no-false-suspicion", "detect-crsh:10s"};
  const auto e = only_error(load(doc));
  CHECK(e.path == "$.properties[1]");
  CHECK_THAT(e.message,
             Contains("unknown property \"detect-crsh\" (did you mean \"detect-crash\"?)"));
}

TEST_CASE("a property that takes a bound must have one", "[scenario]") {
  Json doc = base();
  doc["properties"] = {"detect-crash"};
  auto e = only_error(load(doc));
  CHECK(e.path == "$.properties[0]");
  CHECK_THAT(e.message, Contains("needs a bound, e.g. \"detect-crash:10s\""));
  doc["properties"] = {"detect-crash:soon"};
  CHECK_THAT(only_error(load(doc)).message, Contains("bound of \"detect-crash:soon\""));
}

TEST_CASE("drift and rate are two ways to say one thing: give one", "[scenario]") {
  Json doc = base();
  doc["nodes"][0]["clock"] = {{"drift", "+50ppm"}, {"rate", 1.00005}};
  auto e = only_error(load(doc));
  CHECK(e.path == "$.nodes[0].clock.rate");
  CHECK_THAT(e.message, Contains("give either \"drift\" or \"rate\", not both"));
  doc["nodes"][0]["clock"] = {{"drift", "50ms"}};
  CHECK_THAT(only_error(load(doc)).message, Contains("expected a drift such as \"+50ppm\""));
  doc["nodes"][0]["clock"] = {{"rate", 0}};
  CHECK_THAT(only_error(load(doc)).message, Contains("expected a rate above 0 and at most 1000"));
  e = only_error(load_with_fault({{"at", "1m"}, {"kind", "clock-rate"}, {"node", "n1"}}));
  CHECK_THAT(e.message, Contains("needs \"drift\""));
}

TEST_CASE("a seed must be a non-negative 64-bit integer", "[scenario]") {
  auto e = only_error(load_text(R"({"name": "t", "duration": "1m", "nodes": 1, "seed": -1})"));
  CHECK(e.path == "$.seed");
  CHECK_THAT(e.message, Contains("from 0 to 18446744073709551615, found number -1"));
  e = only_error(
      load_text(R"({"name": "t", "duration": "1m", "nodes": 1, "seed": 18446744073709551616})"));
  CHECK(e.path == "$.seed");
  CHECK(load_text(R"({"name": "t", "duration": "1m", "nodes": 1, "seed": 1.5})").errors.size() ==
        1);
}

TEST_CASE("huge numbers and deep nesting are errors, not crashes", "[scenario]") {
  auto e = only_error(load_text(R"({"name": "t", "duration": "1m", "nodes": 1e400})"));
  CHECK(e.path == "$");
  CHECK_THAT(e.message, Contains("not valid JSON") && Contains("1e400"));
  e = only_error(load_text(R"({"name": "t", "duration": "1m", "nodes": 1e300})"));
  CHECK(e.path == "$.nodes");
  e = only_error(load_text(R"({"name": "t", "duration": "99999999999h", "nodes": 1})"));
  CHECK_THAT(e.message, Contains("too large"));
  e = only_error(load_text(
      R"({"name": "t", "duration": "1m", "nodes": [{"name": "n1", "clock": {"rate": 1e308}}]})"));
  CHECK(e.path == "$.nodes[0].clock.rate");
  e = only_error(load_text(std::string(100'000, '[') + std::string(100'000, ']')));
  CHECK_THAT(e.message, Contains("nests deeper than 64 levels"));
}

TEST_CASE("10,000 faults load quickly; 10,000 bad ones report a bounded list", "[scenario]") {
  Json doc = base();
  doc["faults"] = Json::array();
  for (int i = 0; i < 10'000; ++i) {
    doc["faults"].push_back({{"at", std::to_string(i) + "ms"},
                             {"kind", "crash"},
                             {"node", "n" + std::to_string(1 + i % 3)},
                             {"for", "1ms"}});
  }
  const std::string text = doc.dump();
  const auto start = std::chrono::steady_clock::now();
  const LoadResult result = load_text(text);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  CHECK(result.errors.empty());
  REQUIRE(result.scenario);
  CHECK(result.scenario->faults.size() == 10'000);
  CHECK(elapsed < std::chrono::seconds(2));

  for (Json& fault : doc["faults"]) fault["node"] = "n9";
  const LoadResult bad = load(doc);
  REQUIRE(bad.errors.size() == hasim::JsonReader::kMaxErrors + 1);
  CHECK_THAT(bad.errors.back().message, Contains("and 9950 more errors not shown"));
}

TEST_CASE("every error in a file is reported, not just the first", "[scenario]") {
  Json doc = base();
  doc["duration"] = "10 minutes";
  doc["nodes"][1]["zone"] = 2;
  doc["faults"] = Json::array({{{"at", "1m"}, {"kind", "explode"}}});
  const LoadResult result = load(doc);
  REQUIRE(result.errors.size() == 3);
  CHECK(result.errors[0].path == "$.duration");
  CHECK(result.errors[1].path == "$.nodes[1].zone");
  CHECK(result.errors[2].path == "$.faults[0].kind");
  const std::string text = hasim::format_errors(result.errors, "scenarios/x.json");
  CHECK_THAT(text, Contains("scenarios/x.json: $.nodes[1].zone: expected a string in double "
                            "quotes, found number 2\n"));
}

TEST_CASE("a missing file is an error naming the problem", "[scenario]") {
  const LoadResult result = hasim::load_scenario_file("/nonexistent/x.json");
  const auto e = only_error(result);
  CHECK(e.path == "$");
  CHECK_THAT(e.message, Contains("does not exist"));
  CHECK_THAT(only_error(hasim::load_scenario_file(source_path("scenarios"))).message,
             Contains("is a directory"));
}

TEST_CASE("the example scenarios load", "[scenario]") {
  const LoadResult heartbeat =
      hasim::load_scenario_file(source_path("scenarios/examples/demo-heartbeat.json"));
  INFO(all_messages(heartbeat));
  REQUIRE(heartbeat.scenario);
  CHECK(heartbeat.scenario->faults.size() == 3);
  CHECK(heartbeat.scenario->network.latency ==
        hasim::DurationDistribution::lognormal(hasim::milliseconds(1), hasim::milliseconds(20)));
  CHECK((heartbeat.scenario->section<hasim::HeartbeatSpec>() != nullptr));
  const LoadResult fast =
      hasim::load_scenario_file(source_path("scenarios/examples/demo-fast-clock.json"));
  INFO(all_messages(fast));
  REQUIRE(fast.scenario);
  CHECK(fast.scenario->nodes[0].clock.rate_ppb > hasim::kRatePerfect);  // runs fast
  CHECK(fast.scenario->properties == std::vector<std::string>{"no-false-suspicion"});
}
