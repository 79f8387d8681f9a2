// Upstream's quorum-loss runbook as an operator action (models/druid/quorum_loss_runbook.hpp,
// scenarios/druid/druid-quorum-lost-runbook.json): its steps in the document's order, each a
// step delay after the last one finished; what they did to the StatefulSet, the claims and
// the restore; and the new members joining the restored cluster. Loader errors name the fix.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "druid_trace_rig.hpp"
#include "models/druid/quorum_loss_runbook.hpp"
#include "scenario_loader_helpers.hpp"
#include "scenarios/loader.hpp"

namespace {

using hasim::druid_test::Json;
using hasim::druid_test::of_kind;
using hasim::druid_test::run_trace;

// Whole seconds (a Lease delete's round trip adds a fraction of a millisecond).
std::int64_t seconds_of(const Json& e) { return e.at("t").get<std::int64_t>() / 1'000'000'000; }

}  // namespace

TEST_CASE("the runbook's steps follow one another in the document's order", "[druid-pods]") {
  using hasim::druid::RunbookStep;
  std::vector<std::string> names;
  for (RunbookStep s = RunbookStep::kSuspend; s != RunbookStep::kDone; s = hasim::druid::next(s)) {
    names.emplace_back(hasim::druid::name(s));
    REQUIRE(names.size() <= 8);
  }
  CHECK(names == std::vector<std::string>{"suspend-reconcile", "scale-to-0", "delete-pvcs",
                                          "delete-member-leases", "configmap-one-member",
                                          "scale-to-1", "resume-reconcile"});
  CHECK(hasim::druid::next(RunbookStep::kDone) == RunbookStep::kDone);
}

TEST_CASE("druid-quorum-lost-runbook: the operator restores member 0 and druid scales back",
          "[druid-pods][scenario-rerun]") {
  const std::vector<Json> events = run_trace("scenarios/druid/druid-quorum-lost-runbook.json");
  // Each step is traced when it is done; the next command follows 30 s later.
  std::vector<std::string> steps;
  std::vector<std::int64_t> at;
  for (const Json& e : of_kind(events, "druid-runbook")) {
    steps.push_back(e.at("step"));
    at.push_back(seconds_of(e));
  }
  CHECK(steps == std::vector<std::string>{"suspend-reconcile", "scale-to-0", "delete-pvcs",
                                          "delete-member-leases", "configmap-one-member",
                                          "scale-to-1", "resume-reconcile"});
  // 6m start; scale-to-0 waits for the pods (gone at 6m30.1s, seen at the 5 s poll), scale-to-1
  // for the restored pod's readiness, resume-reconcile for all three pods.
  CHECK(at == std::vector<std::int64_t>{360, 395, 425, 455, 485, 525, 585});
  CHECK(of_kind(events, "pvc-deleted").size() == 3);
  const std::vector<Json> restores = of_kind(events, "druid-br-restore");
  REQUIRE(restores.size() == 1);
  CHECK(restores[0].at("pod") == "etcd-main-0");
  CHECK(restores[0].at("revision") == 1226);
  CHECK(restores[0].at("outcome") == "restored");
  // The new members join the restored cluster (its ID, not the bootstrap's) and are promoted.
  std::vector<std::string> promoted;
  for (const Json& e : of_kind(events, "druid-br-member-call")) {
    if (e.at("call") == "member-promote") promoted.push_back(e.at("pod"));
  }
  CHECK(promoted == std::vector<std::string>{"etcd-main-1", "etcd-main-2"});
  CHECK(of_kind(events, "etcd-cluster-mismatch").empty());
}

TEST_CASE("druid-quorum-loss-runbook: bad input names the field and the fix", "[druid-pods]") {
  std::ifstream in(
      hasim::loader_test::source_path("scenarios/druid/druid-quorum-lost-runbook.json"));
  const Json doc = Json::parse(in);
  Json twice = doc;
  twice["faults"].push_back(doc["faults"][2]);
  hasim::LoadResult r = hasim::load_scenario_text(twice.dump(), "test.json");
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].path == "$.faults[3]");
  CHECK_THAT(r.errors[0].message, Catch::Contains("one druid-quorum-loss-runbook per scenario"));
  Json negative = doc;
  negative["faults"][2]["stepDelay"] = "-5s";
  r = hasim::load_scenario_text(negative.dump(), "test.json");
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].path == "$.faults[2].stepDelay");
}
