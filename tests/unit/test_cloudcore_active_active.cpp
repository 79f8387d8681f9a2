// KubeEdge CloudCore active-active (v1.7+): tunnel-routes and no-duplicate-delivery fed by
// hand, and the active-active scenarios end to end: the crash converges, the ObjectSync race
// costs one duplicate and nothing else, a delete (or a delete and create) made while every
// replica restarts is lost.
// The CloudCore's own v1.7+ start (tunnel port, no election) is driven in test_cloudcore.cpp.
#include <catch2/catch.hpp>

#include "models/cloudcore/trace_kinds.hpp"
#include "properties/cloudcore/no_duplicate_delivery.hpp"
#include "properties/cloudcore/tunnel_routes.hpp"
#include "properties/run.hpp"
#include "scenario_loader_helpers.hpp"
#include "sim/trace_kinds.hpp"

using namespace hasim;

namespace cc = hasim::cloudcore::trace_kind;

namespace {

TrueTime at(std::int64_t s) { return TrueTime{s * 1'000'000'000}; }

}  // namespace

TEST_CASE("tunnel-routes: a Node naming the replica an edge left fails after the bound",
          "[cloudcore]") {
  for (const bool reported : {true, false}) {
    TunnelRoutes property("tunnel-routes:15s", seconds(15));
    auto event = [&](std::int64_t s, std::string_view node, std::string_view kind,
                     std::vector<TraceField> fields) {
      property.on_event(TraceEvent{at(s), node, "cloudcore", kind, std::move(fields)});
    };
    event(1, "cc-1", cc::kTunnelPort, {{"port", std::int64_t{10351}}});
    event(2, "cc-2", cc::kTunnelPort, {{"port", std::int64_t{10352}}});
    event(5, "cc-1", cc::kSessionOpen, {{"edge", std::string("e1")}});
    event(10, "cc-1", cc::kNodeKubeletPort, {{"edge", std::string("e1")}, {"port", std::int64_t{10351}}});
    event(60, "cc-1", hasim::trace_kind::kCrash, {});  // e1 is attached nowhere: not judged
    event(90, "cc-2", cc::kSessionOpen, {{"edge", std::string("e1")}});
    if (reported) {
      event(100, "cc-2", cc::kNodeKubeletPort,
            {{"edge", std::string("e1")}, {"port", std::int64_t{10352}}});
    }
    property.finish(at(200));
    INFO(reported);
    REQUIRE(property.violation().has_value() == !reported);
    if (!reported) {
      CHECK(property.violation()->at == at(105));
      CHECK_THAT(property.violation()->detail,
                 Catch::Matchers::Contains("node e1 is attached to cc-2/cloudcore (tunnel port "
                                           "10352) but its Node sends logs/exec to port 10351"));
    }
  }
}

TEST_CASE("no-duplicate-delivery counts duplicates and names both senders", "[cloudcore]") {
  NoDuplicateDelivery property("no-duplicate-delivery");
  auto edge = [&](std::int64_t s, std::string_view kind, std::vector<TraceField> fields) {
    property.on_event(TraceEvent{at(s), "e1", "edgecore", kind, std::move(fields)});
  };
  auto apply = [&](std::int64_t s, std::int64_t rv, std::string result) {
    edge(s, cc::kEdgeStoreApply, {{"object", std::string("Pod default/p")},
                                  {"operation", std::string("insert")},
                                  {"rv", rv},
                                  {"result", std::move(result)}});
  };
  edge(1, cc::kEdgeConnected, {{"cloudcore", std::string("cc-1/cloudcore")}});
  apply(2, 7, "store");
  apply(3, 8, "store");
  property.finish(at(4));
  CHECK_FALSE(property.violation().has_value());
  edge(5, cc::kEdgeConnected, {{"cloudcore", std::string("cc-2/cloudcore")}});
  apply(6, 8, "duplicate");
  apply(7, 8, "duplicate");
  property.finish(at(8));
  REQUIRE(property.violation().has_value());
  CHECK(property.violation()->at == at(6));
  CHECK_THAT(property.violation()->detail,
             Catch::Matchers::Contains("2 duplicate deliveries") &&
                 Catch::Matchers::Contains("sent Pod default/p at resourceVersion 8 again, by "
                                           "cc-2/cloudcore, after storing it from "
                                           "cc-1/cloudcore at 3s"));
}

TEST_CASE("active-active: a crash converges, the race costs a duplicate, a restart loses a delete",
          "[cloudcore]") {
  const auto run = [](std::string_view file) {
    const LoadResult loaded = load_scenario_file(loader_test::source_path(std::string(file)));
    REQUIRE(loaded.scenario.has_value());
    auto result = run_scenario(*loaded.scenario, RunOptions{});
    REQUIRE(result.has_value());
    return *result;
  };
  const auto crash = run("scenarios/cloudcore/cloudcore-active-active-crash.json");
  REQUIRE(crash.property_specs.size() == 3);
  for (const auto& violation : crash.violations) CHECK_FALSE(violation.has_value());

  const auto race = run("scenarios/cloudcore/cloudcore-active-active-objectsync-race.json");
  REQUIRE(race.property_specs.back() == "no-duplicate-delivery");
  for (std::size_t i = 0; i + 1 < race.violations.size(); ++i) {
    INFO(race.property_specs[i]);
    CHECK_FALSE(race.violations[i].has_value());  // nothing lost, nothing late
  }
  REQUIRE(race.violations.back().has_value());
  CHECK_THAT(race.violations.back()->detail,
             Catch::Matchers::Contains("1 duplicate delivery") &&
                 Catch::Matchers::Contains("Pod default/e1-race at resourceVersion") &&
                 Catch::Matchers::Contains("again, by cc-2/cloudcore, after storing it from "
                                           "cc-1/cloudcore"));

  // v1.7-v1.9's SyncController only logs a NotFound: a delete no queue holds is never sent.
  const auto lost = run("scenarios/cloudcore/cloudcore-active-active-delete-lost.json");
  REQUIRE(lost.violations.at(0).has_value());
  CHECK(lost.violations.at(0)->at == TrueTime{210'001'000'000});
  CHECK_THAT(lost.violations.at(0)->detail,
             Catch::Matchers::Contains("e1/edgecore's store differs from the cloud for Pod "
                                       "default/e1-pod-1 (the cloud has none, the edge 12)"));

  // Created again in the gap: the delete carrying the new pod replaces its insert in the queue.
  const auto recreated = run("scenarios/cloudcore/cloudcore-active-active-recreate-lost.json");
  REQUIRE(recreated.violations.at(0).has_value());
  CHECK_THAT(recreated.violations.at(0)->detail,
             Catch::Matchers::Contains("e1/edgecore's store differs from the cloud for Pod "
                                       "default/e1-pod-1 (the cloud has resourceVersion 459, the "
                                       "edge 12)"));
}
