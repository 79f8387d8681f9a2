// etcd-druid spec changes in a simulation (scenarios/druid/druid-scale-*.json,
// druid-hibernate-wake.json): druid-scale edits spec.replicas, druid reconciles (Leases,
// ConfigMap, StatefulSet), and the new pods' sidecars add them as learners one at a time
// (etcd allows one learner) and promote them; hibernation scales the set to 0 and waking
// restarts every member on its volume.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "druid_trace_rig.hpp"
#include "scenario_loader_helpers.hpp"
#include "scenarios/druid/spec.hpp"
#include "scenarios/loader.hpp"

namespace {

using hasim::LoadResult;
using hasim::druid_test::Json;
using hasim::druid_test::of_kind;
using hasim::druid_test::run_trace;

// "call member outcome" of each sidecar member call, in trace order, with the pod.
std::vector<std::string> member_calls(const std::vector<Json>& events) {
  std::vector<std::string> out;
  for (const Json& e : of_kind(events, "druid-br-member-call")) {
    out.push_back(e.at("pod").get<std::string>() + " " + e.at("call").get<std::string>() + " " +
                  e.at("member").dump() + " " + e.at("outcome").get<std::string>());
  }
  return out;
}

std::vector<std::int64_t> set_replicas(const std::vector<Json>& events) {
  std::vector<std::int64_t> out;
  for (const Json& e : of_kind(events, "sts-replicas")) out.push_back(e.at("replicas"));
  return out;
}

// The last status druid's status step gave each member, and the last of each condition.
std::map<std::string, std::string> last_member_status(const std::vector<Json>& events) {
  std::map<std::string, std::string> out;
  for (const Json& e : of_kind(events, "druid-member-status")) {
    out[e.at("member").get<std::string>()] = e.at("status").get<std::string>();
  }
  return out;
}

std::map<std::string, std::string> last_conditions(const std::vector<Json>& events) {
  std::map<std::string, std::string> out;
  for (const Json& e : of_kind(events, "druid-condition")) {
    out[e.at("type").get<std::string>()] = e.at("status").get<std::string>();
  }
  return out;
}

// The pods whose readiness changed last to Ready (pod-ready after any pod-not-ready).
std::set<std::string> ready_pods(const std::vector<Json>& events) {
  std::set<std::string> out;
  for (const Json& e : events) {
    if (e.at("kind") == "pod-ready") out.insert(e.at("pod").get<std::string>());
    if (e.at("kind") == "pod-not-ready" || e.at("kind") == "pod-gone") {
      out.erase(e.at("pod").get<std::string>());
    }
  }
  return out;
}

// The index in `events` of the first sidecar member call on `member` with `outcome`.
std::size_t call_index(const std::vector<Json>& events, std::int64_t member,
                       std::string_view outcome) {
  for (std::size_t i = 0; i < events.size(); ++i) {
    const Json& e = events[i];
    if (e.at("kind") == "druid-br-member-call" && e.at("member") == member &&
        e.at("outcome") == outcome) {
      return i;
    }
  }
  return events.size();
}

// The call that added `member`: Added, or ErrMemberExist when the answer to an earlier
// attempt that etcd applied was lost (AddLearnerWithRetry counts both as success).
std::size_t added_index(const std::vector<Json>& events, std::int64_t member) {
  return std::min(call_index(events, member, "Added"),
                  call_index(events, member, "ErrMemberExist"));
}

const std::map<std::string, std::string> kThreeReady{
    {"etcd-main-0", "Ready"}, {"etcd-main-1", "Ready"}, {"etcd-main-2", "Ready"}};

}  // namespace

TEST_CASE("druid-scale 1 to 3: the new pods join as learners one at a time and are promoted",
          "[druid-pods][scenario-rerun]") {
  const auto events = run_trace("scenarios/druid/druid-scale-1-to-3.json");
  const auto updates = of_kind(events, "druid-spec-update");
  REQUIRE(updates.size() == 1);
  CHECK(updates[0].at("replicas") == 3);
  CHECK(updates[0].at("previous") == 1);
  // druid: the set created with 1, then scaled to 3 after the new Leases.
  CHECK(set_replicas(events) == std::vector<std::int64_t>{1, 3});
  // Each new pod: not listed, so scale-up (no validation); member 2 then member 3. The other
  // pod's adds fail meanwhile (raft drops a change while one is pending; etcd refuses one as
  // unhealthy until the promoted member has been connected 5 s) and are retried.
  std::size_t promoted = 0;
  for (const std::string& call : member_calls(events)) {
    if (call.find("member-promote") != std::string::npos && call.ends_with("Promoted")) ++promoted;
  }
  CHECK(promoted == 2);
  // The one learner etcd allows: member 3 is added only after member 2's promotion.
  CHECK(added_index(events, 2) < call_index(events, 2, "Promoted"));
  CHECK(call_index(events, 2, "Promoted") < added_index(events, 3));
  CHECK(added_index(events, 3) < call_index(events, 3, "Promoted"));
  CHECK(call_index(events, 3, "Promoted") < events.size());
  for (const Json& e : of_kind(events, "druid-br-init")) {
    if (e.at("pod") != "etcd-main-0") CHECK(e.at("action") == "ScaleUpAddLearner");
  }
  for (const Json& e : of_kind(events, "druid-etcd-start")) {
    if (e.at("pod") != "etcd-main-0") CHECK(e.at("state") == "existing");
  }
  // The end: three voters (a learner's /readyz fails), every member Ready in druid's status.
  CHECK(ready_pods(events) == std::set<std::string>{"etcd-main-0", "etcd-main-1", "etcd-main-2"});
  CHECK(last_member_status(events) == kThreeReady);
  CHECK(last_conditions(events).at("AllMembersReady") == "True");
  CHECK(last_conditions(events).at("Ready") == "True");
}

TEST_CASE("druid-scale 3 to 5: two learners in turn; a later scale-down to 3 is refused",
          "[druid-pods][scenario-rerun]") {
  const auto events = run_trace("scenarios/druid/druid-scale-3-to-5.json");
  CHECK(set_replicas(events) == std::vector<std::int64_t>{3, 5});
  // Members 4 and 5 (IDs after the bootstrap's 1-3), the second added after the first's
  // promotion; each new pod's etcd starts as a learner of the existing cluster.
  CHECK(added_index(events, 4) < call_index(events, 4, "Promoted"));
  CHECK(call_index(events, 4, "Promoted") < added_index(events, 5));
  CHECK(added_index(events, 5) < call_index(events, 5, "Promoted"));
  CHECK(call_index(events, 5, "Promoted") < events.size());
  for (const Json& e : of_kind(events, "druid-etcd-start")) {
    const std::string pod = e.at("pod").get<std::string>();
    if (pod == "etcd-main-3" || pod == "etcd-main-4") CHECK(e.at("state") == "existing");
  }
  CHECK(ready_pods(events).size() == 5);
  CHECK(last_member_status(events).size() == 5);
  CHECK(last_conditions(events).at("AllMembersReady") == "True");
  // spec.replicas 5 -> 3: the CEL rule refuses it, nothing changes (the set stays at 5).
  const auto refused = of_kind(events, "druid-spec-refused");
  REQUIRE(refused.size() == 1);
  CHECK(refused[0].at("replicas") == 3);
  CHECK(refused[0].at("current") == 5);
  CHECK(of_kind(events, "druid-spec-update").size() == 1);
  // The new ConfigMap's checksum is a new template: once the learners are Ready the
  // RollingUpdate restarts the old members, highest first, each on its data; nothing else.
  std::vector<std::string> rolled;
  for (const Json& e : of_kind(events, "pod-deletion")) {
    CHECK(e.at("reason") == "update");
    rolled.push_back(e.at("pod").get<std::string>());
  }
  CHECK(rolled == std::vector<std::string>{"etcd-main-2", "etcd-main-1", "etcd-main-0"});
  const auto revisions = of_kind(events, "sts-revision");
  REQUIRE_FALSE(revisions.empty());
  CHECK(revisions.back().at("current_revision") == "etcd-main-v3.5.15-c5");
}

TEST_CASE("druid hibernate and wake: the set goes to 0, every member restarts on its volume",
          "[druid-pods][scenario-rerun]") {
  const auto events = run_trace("scenarios/druid/druid-hibernate-wake.json");
  CHECK(set_replicas(events) == std::vector<std::int64_t>{3, 0, 3});
  CHECK(of_kind(events, "pod-gone").size() == 3);
  // Waking: no member answers through the Service, so the Lease (kept by druid, holder set)
  // says each was a member; its data is valid: etcd starts on it with its old ID.
  std::map<std::string, std::string> actions;
  for (const Json& e : of_kind(events, "druid-br-init")) {
    actions[e.at("pod").get<std::string>()] =
        e.at("action").get<std::string>() + " " + e.at("was_member").get<std::string>();
  }
  CHECK(actions == std::map<std::string, std::string>{{"etcd-main-0", "UseExistingData true"},
                                                      {"etcd-main-1", "UseExistingData true"},
                                                      {"etcd-main-2", "UseExistingData true"}});
  const auto starts = of_kind(events, "druid-etcd-start");
  REQUIRE(starts.size() == 6);
  std::map<std::string, std::int64_t> woken;
  for (std::size_t i = 3; i < starts.size(); ++i) {
    woken[starts[i].at("pod").get<std::string>()] = starts[i].at("member");
  }
  CHECK(woken == std::map<std::string, std::int64_t>{
                     {"etcd-main-0", 1}, {"etcd-main-1", 2}, {"etcd-main-2", 3}});
  CHECK(member_calls(events).empty());  // no membership change
  CHECK(ready_pods(events).size() == 3);
  CHECK(last_member_status(events) == kThreeReady);
  CHECK(last_conditions(events).at("Ready") == "True");
}

TEST_CASE("druid-scale: bad replicas are loader errors naming the field and the fix",
          "[druid-pods]") {
  const std::string file =
      hasim::loader_test::source_path("scenarios/druid/druid-scale-1-to-3.json");
  std::ifstream in(file);
  const Json doc = Json::parse(in);
  auto load_with = [&doc](std::int64_t replicas, std::optional<std::int64_t> max) {
    Json d = doc;
    d["faults"][0]["replicas"] = replicas;
    if (max) d["etcdDruid"]["maxReplicas"] = *max;
    return hasim::load_scenario_text(d.dump(), "test.json");
  };
  // The default maxReplicas: the largest of replicas and every druid-scale's.
  const LoadResult ok = load_with(3, std::nullopt);
  REQUIRE(ok.scenario.has_value());
  CHECK(ok.scenario->section<hasim::DruidSpec>()->maxReplicas == 3);
  struct Bad {
    std::int64_t replicas;
    std::optional<std::int64_t> max;
    std::string fix;
  };
  for (const Bad& bad :
       {Bad{-1, std::nullopt, "cannot be negative"},
        Bad{10, std::nullopt, "use 0 to hibernate or 1 to 9"}, Bad{5, 3, "raise it to 5"}}) {
    const LoadResult r = load_with(bad.replicas, bad.max);
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].path == "$.faults[0].replicas");
    CHECK_THAT(r.errors[0].message, Catch::Contains(bad.fix));
  }
}
