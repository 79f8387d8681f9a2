// node-down-after-ack (scenarios/etcd/ack_power_loss.cpp): its validation errors, its JSON
// and sentence, and what it does in a run: the member's node loses power the instant its
// answer arrives, once, and comes back after "for"; a member that acknowledged only after its
// fsync forgets nothing (scenarios/raft/raft-vote-power-loss.json is the full story).
#include "scenario_loader_helpers.hpp"

#include "properties/run.hpp"
#include "scenarios/fault_json.hpp"
#include "scenarios/fault_text.hpp"

using namespace hasim::loader_test;

namespace {

Json etcd_doc(Json faults) {
  Json doc = base();
  doc["duration"] = "20s";
  doc["etcd"] = {{"rate", 10}};
  doc["faults"] = std::move(faults);
  return doc;
}

Json ack_fault(std::string ack, std::string node = "n1") {
  return {{"at", "5s"}, {"kind", "node-down-after-ack"}, {"node", std::move(node)},
          {"ack", std::move(ack)}, {"for", "3s"}};
}

}  // namespace

TEST_CASE("node-down-after-ack reads, writes back and describes", "[etcd][faults]") {
  const auto loaded = load(etcd_doc(Json::array({ack_fault("MsgAppResp")})));
  INFO(all_messages(loaded));
  REQUIRE(loaded.scenario.has_value());
  const hasim::FaultSpec& f = loaded.scenario->faults.front();
  CHECK(f.targets == std::vector<std::string>{"n1"});
  CHECK(f.message == "MsgAppResp");
  const Json out = hasim::fault_to_json(f);
  CHECK(out["ack"] == "MsgAppResp");
  CHECK(out["node"] == "n1");
  CHECK(out["for"] == "3s");
  CHECK_THAT(hasim::describe_fault(f), Contains("n1 once its next MsgAppResp arrives"));
}

TEST_CASE("bad node-down-after-ack faults are refused at their field", "[etcd][faults]") {
  auto e = only_error(load(etcd_doc(Json::array({ack_fault("MsgHeartbeatResp")}))));
  CHECK(e.path == "$.faults[0].ack");
  CHECK_THAT(e.message, Contains("\"MsgAppResp\" or \"MsgVoteResp\""));
  e = only_error(load(etcd_doc(Json::array({ack_fault("MsgVoteResp", "n9")}))));
  CHECK(e.path == "$.faults[0].node");
  Json missing = ack_fault("MsgVoteResp");
  missing.erase("ack");
  e = only_error(load(etcd_doc(Json::array({missing}))));
  CHECK_THAT(e.message, Contains("\"ack\""));
  Json doc = base();
  doc["faults"] = Json::array({ack_fault("MsgAppResp")});
  CHECK_THAT(only_error(load(doc)).message, Contains("add an \"etcd\" section"));
}

TEST_CASE("node-down-after-ack cuts the power as the answer arrives, once", "[etcd][faults]") {
  const auto loaded = load(etcd_doc(Json::array({ack_fault("MsgAppResp", "n2")})));
  REQUIRE(loaded.scenario.has_value());
  hasim::Scenario scenario = *loaded.scenario;
  scenario.properties = {"raft-safety"};
  hasim::RunOptions options;
  options.capture_lines = 100'000;
  const auto run = hasim::run_scenario(scenario, options);
  REQUIRE(run.has_value());
  CHECK(run->all_held());
  // The node-down of n2 comes right after a MsgAppResp from n2 was received, after 5s.
  std::vector<std::size_t> downs;
  for (std::size_t i = 0; i < run->captured.size(); ++i) {
    if (run->captured[i].find("\"kind\":\"node-down\"") != std::string::npos) downs.push_back(i);
  }
  REQUIRE(downs.size() == 1);
  CHECK_THAT(run->captured[downs[0]], Contains("\"node\":\"n2\""));
  std::size_t before = downs[0];
  while (before > 0 && run->captured[before].find("\"kind\":\"recv\"") == std::string::npos) {
    --before;
  }
  CHECK_THAT(run->captured[before], Contains("\"from\":\"n2/etcd\"") &&
                                        Contains("\"msg\":\"MsgAppResp\""));
  std::size_t ups = 0;
  for (const std::string& line : run->captured) {
    ups += line.find("\"kind\":\"node-up\"") != std::string::npos ? 1 : 0;
  }
  CHECK(ups == 1);
}
