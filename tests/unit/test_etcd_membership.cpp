// etcd's member API (models/etcd/membership.hpp): the promote refusal rule (isLearnerReady),
// the strict-reconfig quorum counts, rafthttp's active-since, and the scenario actions'
// validation errors (scenarios/etcd/member_faults.cpp) and the partition's "role".
#include "scenario_loader_helpers.hpp"

#include "models/etcd/membership.hpp"
#include "scenarios/fault_json.hpp"
#include "scenarios/fault_text.hpp"

using namespace hasim::loader_test;
namespace etcd = hasim::etcd;
namespace raft = hasim::raft;

namespace {

// A leader (ID 1) at match `leader`, voters 2 and 3 caught up, learner 4 at `learner`.
raft::Status leader_status(raft::Index leader, raft::Index learner) {
  raft::Status st;
  st.basic.id = 1;
  st.config.voters = raft::JointConfig(raft::MajorityConfig{1, 2, 3}, raft::MajorityConfig{});
  st.config.learners = {4};
  for (raft::PeerId id : {1, 2, 3}) st.progress[id].match = leader;
  st.progress[4].match = learner;
  return st;
}

Json etcd_doc(Json faults) {
  Json doc = base();
  doc["nodes"].push_back({{"name", "n4"}});
  doc["etcd"] = {{"standby", Json::array({"n4"})}};
  doc["faults"] = std::move(faults);
  return doc;
}

ScenarioError error_of(Json fault) { return only_error(load(etcd_doc(Json::array({fault})))); }

}  // namespace

TEST_CASE("promote is refused until the learner's match is 90% of the leader's",
          "[etcd][membership]") {
  CHECK(etcd::learner_not_ready(leader_status(100, 89), 4) == etcd::member_error::kLearnerNotReady);
  CHECK(etcd::learner_not_ready(leader_status(100, 0), 4) == etcd::member_error::kLearnerNotReady);
  CHECK_FALSE(etcd::learner_not_ready(leader_status(100, 90), 4).has_value());
  CHECK_FALSE(etcd::learner_not_ready(leader_status(100, 100), 4).has_value());
  // Only the leader knows; an unknown ID is etcd's "ID not found".
  raft::Status follower = leader_status(100, 100);
  follower.progress.clear();
  CHECK(etcd::learner_not_ready(follower, 4) == etcd::member_error::kNotLeader);
  CHECK(etcd::learner_not_ready(leader_status(100, 100), 7) == etcd::member_error::kIDNotFound);
}

TEST_CASE("the strict reconfiguration checks count started members as etcd does",
          "[etcd][membership]") {
  etcd::MemberDirectory dir;
  const std::set<raft::PeerId> three{1, 2, 3};
  dir.mark_started(1);
  // Adding a fourth voter needs 3 started of 4; promoting counts the learner as started.
  CHECK_FALSE(etcd::ready_to_add_voter(three, dir));
  CHECK_FALSE(etcd::ready_to_promote(three, dir));
  dir.mark_started(2);
  CHECK_FALSE(etcd::ready_to_add_voter(three, dir));
  CHECK(etcd::ready_to_promote(three, dir));
  dir.mark_started(3);
  CHECK(etcd::ready_to_add_voter(three, dir));
  // Removing 3 leaves {1, 2}: both must be started.
  etcd::MemberDirectory one;
  one.mark_started(1);
  CHECK_FALSE(etcd::ready_to_remove_voter(three, 3, one));
  CHECK(etcd::ready_to_remove_voter(three, 3, dir));
  // A one-member cluster may always add a second (restoring from a backup).
  CHECK(etcd::ready_to_add_voter({1}, one));
}

TEST_CASE("a peer's stream is active from the first message after 5s of silence",
          "[etcd][membership]") {
  etcd::PeerActivity peers;
  const auto at = [](std::int64_t ms) { return hasim::LocalTime{ms * 1'000'000}; };
  peers.heard(2, at(0));
  peers.heard(2, at(4'000));
  peers.heard(2, at(8'000));
  CHECK(peers.active_since(2, at(8'000)) == at(0));
  CHECK_FALSE(peers.active_since(2, at(13'001)).has_value());  // ConnReadTimeout passed
  peers.heard(2, at(20'000));
  CHECK(peers.active_since(2, at(20'000)) == at(20'000));
  // Connected since 15s ago: only self (1); peer 2 became active at 20s.
  CHECK(peers.connected_since({1, 2, 3}, 1, at(15'000), at(20'000)) == 1);
  CHECK(peers.connected_since({1, 2, 3}, 1, at(20'000), at(20'000)) == 2);
}

TEST_CASE("the member API actions read, write back and describe", "[etcd][membership]") {
  const auto loaded = load(etcd_doc(Json::array(
      {{{"at", "1s"}, {"kind", "member-add-learner"}, {"node", "n4"}},
       {{"at", "2s"}, {"kind", "member-promote"}, {"node", "n4"}, {"retry", "1s"}, {"attempts", 5}},
       {{"at", "3s"}, {"kind", "member-remove"}, {"role", "raft-leader"}},
       {{"at", "4s"}, {"kind", "move-leader"}},
       {{"at", "5s"}, {"kind", "move-leader"}, {"transferee", "n2"}},
       {{"at", "6s"}, {"kind", "partition"}, {"role", "raft-leader"}, {"for", "1s"}}})));
  INFO(all_messages(loaded));
  REQUIRE(loaded.scenario.has_value());
  const auto& faults = loaded.scenario->faults;
  REQUIRE(faults.size() == 6);
  CHECK(faults[1].attempts == 5);
  CHECK(faults[1].retry == hasim::seconds(1));
  CHECK(faults[2].role == "raft-leader");
  CHECK(faults[3].targets.empty());
  CHECK(faults[4].targets == std::vector<std::string>{"n2"});
  CHECK(hasim::fault_to_json(faults[1])["attempts"] == 5);
  CHECK(hasim::fault_to_json(faults[4])["transferee"] == "n2");
  CHECK(hasim::fault_to_json(faults[5])["role"] == "raft-leader");
  CHECK(hasim::describe_fault(faults[3]).find("most caught-up") != std::string::npos);
  CHECK(hasim::describe_fault(faults[5]).find("isolating the raft-leader") != std::string::npos);
  // The members default to the nodes that are not standby.
  CHECK(hasim::fault_to_json(faults[0])["node"] == "n4");
}

TEST_CASE("bad member API actions are refused at their field", "[etcd][membership]") {
  auto e = error_of({{"at", "1s"}, {"kind", "member-add-learner"}, {"node", "n1"}});
  CHECK(e.path == "$.faults[0].node");
  CHECK_THAT(e.message, Contains("already in the initial cluster") && Contains("\"n4\""));
  e = error_of({{"at", "1s"}, {"kind", "member-promote"}, {"node", "n9"}});
  CHECK(e.path == "$.faults[0].node");
  e = error_of({{"at", "1s"}, {"kind", "member-promote"}, {"node", "n4"}, {"attempts", 3}});
  CHECK(e.path == "$.faults[0].attempts");
  CHECK_THAT(e.message, Contains("needs \"retry\""));
  e = error_of({{"at", "1s"}, {"kind", "member-promote"}, {"node", "n4"}, {"retry", "-1s"}});
  CHECK(e.path == "$.faults[0].retry");
  e = error_of({{"at", "1s"}, {"kind", "member-remove"}});
  CHECK_THAT(e.message, Contains("\"role\": \"raft-leader\""));
  e = error_of({{"at", "1s"}, {"kind", "member-promote"}, {"role", "raft-leader"}});
  CHECK_THAT(e.message, Contains("\"role\""));
  e = error_of({{"at", "1s"}, {"kind", "move-leader"}, {"transferee", "n5"}});
  CHECK(e.path == "$.faults[0].transferee");
  e = error_of({{"at", "1s"}, {"kind", "partition"}, {"role", "leader-of-nothing"}});
  CHECK(e.path == "$.faults[0].role");
  // Without an etcd section there is nobody to ask.
  Json doc = base();
  doc["faults"] = Json::array({{{"at", "1s"}, {"kind", "move-leader"}}});
  CHECK_THAT(only_error(load(doc)).message, Contains("add an \"etcd\" section"));
  // A standby node cannot also be a member.
  doc = etcd_doc(Json::array());
  doc["etcd"]["members"] = Json::array({"n1", "n4"});
  const ScenarioError standby = only_error(load(doc));
  CHECK(standby.path == "$.etcd.standby[0]");
}
