// KubeEdge CloudCore active-active (v1.7+): tunnel-routes and no-duplicate-delivery fed by
// hand, and the active-active scenarios end to end: the crash converges, the ObjectSync race
// costs one duplicate and nothing else, a delete (or a delete and create) made while every
// replica restarts is lost.
// Also the CloudCore's own v1.7+ start driven by hand (tests/unit/cloudcore_rig.hpp): the
// tunnel port, no election, the refused combinations, SyncController's live GET and
// saveSuccessPoint losing the ObjectSync race.
#include <catch2/catch.hpp>

#include "cloudcore_rig.hpp"
#include "models/cloudcore/object_sync.hpp"
#include "models/cloudcore/trace_kinds.hpp"
#include "models/cloudcore/tunnel_port.hpp"
#include "properties/cloudcore/no_duplicate_delivery.hpp"
#include "properties/cloudcore/tunnel_routes.hpp"
#include "properties/run.hpp"
#include "scenario_loader_helpers.hpp"
#include "sim/trace_kinds.hpp"

using namespace hasim;
using namespace hasim::testing;
using namespace hasim::cloudcore;

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
      property.on_event(StoredTraceEvent{at(s), node, "cloudcore", kind, std::move(fields)});
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
    property.on_event(StoredTraceEvent{at(s), "e1", "edgecore", kind, std::move(fields)});
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

TEST_CASE("tunnel port: reuse the replica's entry, else the lowest free port above 10350",
          "[cloudcore]") {
  const TunnelPortPlan first = plan_tunnel_port(std::nullopt, "cc-1");
  CHECK(first.port == 10351);  // v1.8.0 increments before testing
  CHECK(first.write == TunnelPortWrite::create);
  CHECK(format_record(first.record) == "cc-1=10351");
  const TunnelPortPlan second = plan_tunnel_port(first.record, "cc-2");
  CHECK(second.port == 10352);
  CHECK(second.write == TunnelPortWrite::update);
  CHECK(format_record(second.record) == "cc-1=10351,cc-2=10352");
  const TunnelPortPlan again = plan_tunnel_port(second.record, "cc-1");
  CHECK(again.port == 10351);
  CHECK(again.write == TunnelPortWrite::none);
  CHECK(parse_record(format_record(second.record)) == second.record);
  CHECK(parse_record("") == TunnelPortRecord{});
  CHECK_FALSE(parse_record("cc-1=x").has_value());
  CHECK_FALSE(parse_record("=10351").has_value());
  CHECK(negotiate_port({10351, 10353}) == 10352);
}

TEST_CASE("v1.7+: no election and no gate; the tunnel port first, then every module",
          "[cloudcore]") {
  CloudCoreRig rig(CloudCoreMode::v1_7_plus);
  rig.cloudcore->on_start(rig.env);
  rig.serve();
  CHECK(rig.requests.empty());  // asleep for rand.Int31n(10) seconds first
  rig.run_until(rig.env.monotonic_now() + seconds(10));
  REQUIRE_FALSE(rig.requests.empty());
  CHECK(rig.requests[0] == "get ConfigMap kubeedge/tunnelport");
  CHECK(rig.requests[1] == "create ConfigMap kubeedge/tunnelport");
  for (const std::string& request : rig.requests) {
    CHECK(request.find("Pod kubeedge") == std::string::npos);        // no gate patch
    CHECK(request.find("cloudcorelease") == std::string::npos);      // no election
  }
  const auto ports = rig.env.traces_of(cloudcore::trace_kind::kTunnelPort);
  REQUIRE(ports.size() == 1);
  CHECK(ports[0].get("port") == "10351");
  CHECK(ports[0].get("result") == "negotiated");
  CHECK(rig.cloudcore->serving());
  CHECK(rig.env.exits.empty());
}

TEST_CASE("v1.7+: a replica reuses its recorded port; a lost write race panics (exit 2)",
          "[cloudcore]") {
  CloudCoreRig rig(CloudCoreMode::v1_7_plus);
  api::Object record;
  record.key = api::ObjectKey{api::Kind::config_map, "kubeedge", "tunnelport"};
  record.annotations[std::string(kTunnelPortAnnotation)] = "cc-1=10352,cc-2=10351";
  record.resourceVersion = 3;
  rig.store[record.key] = record;
  rig.cloudcore->on_start(rig.env);
  rig.run_until(rig.env.monotonic_now() + seconds(10));
  CHECK(rig.env.traces_of(cloudcore::trace_kind::kTunnelPort).at(0).get("port") == "10352");
  CHECK(rig.env.traces_of(cloudcore::trace_kind::kTunnelPort).at(0).get("result") == "reused");

  // Another replica got NotFound too and created the ConfigMap first: AlreadyExists.
  CloudCoreRig late(CloudCoreMode::v1_7_plus);
  late.after_answer = [&late, &record](const api::Request& request) {
    if (request.verb == api::Verb::get && request.key == record.key) late.store[record.key] = record;
  };
  late.cloudcore->on_start(late.env);
  late.run_until(late.env.monotonic_now() + seconds(10));
  REQUIRE(late.requests.size() == 2);
  CHECK(late.requests[1] == "create ConfigMap kubeedge/tunnelport");
  const auto result = late.env.traces_of(cloudcore::trace_kind::kTunnelPort);
  REQUIRE(result.size() == 1);
  CHECK(result[0].get("result") == api::to_string(api::Status::already_exists));
  CHECK(late.env.exits == std::vector<int>{2});  // panic(err)
  CHECK_FALSE(late.cloudcore->serving());
}

TEST_CASE("v1.7+: keepalived, single-serving and the lease leader role are refused, naming the "
          "field and the fix",
          "[cloudcore]") {
  Json doc = loader_test::base();
  doc["controlPlane"] = Json{{"nodes", Json::array({"n1"})}};
  doc["cloudcore"] = Json{{"nodes", Json::array({"n2", "n3"})}, {"mode", "v1.7+"},
                          {"loadBalancer", "keepalived"}};
  CHECK_THAT(loader_test::all_messages(loader_test::load(doc)),
             Catch::Matchers::Contains("$.cloudcore.loadBalancer: \"keepalived\" checks /readyz, "
                                       "which \"mode\": \"v1.7+\" no longer serves"));
  doc["cloudcore"].erase("loadBalancer");
  doc["properties"] = Json::array({"edge-reconnects:60s", "single-serving"});
  CHECK_THAT(loader_test::all_messages(loader_test::load(doc)),
             Catch::Matchers::Contains("$.properties[1]: \"single-serving\" is hot standby's "
                                       "property"));
  doc["properties"] = Json::array({"edge-reconnects:60s"});
  CHECK(loader_test::load(doc).scenario.has_value());
  doc["faults"] = Json::array({Json{{"at", "1m"}, {"kind", "crash"},
                                    {"role", "leader:kubeedge/cloudcorelease"}}});
  CHECK_THAT(loader_test::all_messages(loader_test::load(doc)),
             Catch::Matchers::Contains("$.faults[0].role: \"leader:kubeedge/cloudcorelease\" has "
                                       "no holder in \"mode\": \"v1.7+\" (no election): aim at a "
                                       "replica instead, e.g. \"process\": \"n2/cloudcore\""));
  doc.erase("faults");
  doc["cloudcore"]["mode"] = "v1.5";
  doc["properties"] = Json::array({"single-serving"});
  CHECK(loader_test::load(doc).scenario.has_value());
}

TEST_CASE("SyncController: v1.5 deletes what is gone; v1.7's live GET sends nothing for it",
          "[cloudcore]") {
  for (const CloudCoreMode mode : {CloudCoreMode::v1_5, CloudCoreMode::v1_7_plus}) {
    CloudCoreRig rig(mode, {"e1"});
    api::Object gone;  // an ObjectSync whose pod was deleted while no CloudCore ran
    gone.key = api::ObjectKey{api::Kind::pod, "default", "gone"};
    gone.uid = "uid-9";
    api::Object sync = make_object_sync("e1", gone);
    sync.object_sync.objectResourceVersion = 3;
    rig.store[sync.key] = sync;
    constexpr ProcessId kEdge = 9;
    rig.env.processes["e1/edgecore"] = kEdge;
    rig.cloudcore->on_start(rig.env);
    rig.run_until(rig.env.monotonic_now() + seconds(11));  // started and serving, either way
    REQUIRE(rig.cloudcore->serving());
    auto connect = std::make_shared<EdgeConnect>();
    connect->node = "e1";
    rig.cloudcore->on_message(rig.env, kEdge, connect);
    rig.run_until(rig.env.monotonic_now() + seconds(6));  // a SyncController pass
    std::set<std::uint64_t> deletes;  // by msg_id: a resend writes the same message again
    for (const SentMessage& sent : rig.env.sent) {
      const auto* message = dynamic_cast<const ResourceMessage*>(sent.message.get());
      if (message != nullptr && message->operation == Operation::delete_) {
        deletes.insert(message->msg_id);
      }
    }
    INFO(to_string(mode));
    CHECK(deletes.size() == (mode == CloudCoreMode::v1_5 ? 1U : 0U));
  }
}

TEST_CASE("saveSuccessPoint: a Create that loses the race to another replica writes no status",
          "[cloudcore]") {
  CloudCoreRig rig(CloudCoreMode::v1_7_plus, {"e1"});
  api::Object pod;
  pod.key = api::ObjectKey{api::Kind::pod, "default", "p"};
  pod.uid = "uid-1";
  pod.resourceVersion = 5;
  pod.pod_spec.nodeName = "e1";
  rig.store[pod.key] = pod;
  constexpr ProcessId kEdge = 9;
  rig.env.processes["e1/edgecore"] = kEdge;
  rig.cloudcore->on_start(rig.env);
  rig.run_until(rig.env.monotonic_now() + seconds(11));
  REQUIRE(rig.cloudcore->serving());
  auto connect = std::make_shared<EdgeConnect>();
  connect->node = "e1";
  rig.cloudcore->on_message(rig.env, kEdge, connect);
  const auto* sent = dynamic_cast<const ResourceMessage*>(rig.env.sent.back().message.get());
  REQUIRE(sent != nullptr);
  // Another replica delivered p too, and its Create lands between this one's Get and Create.
  const api::Object theirs = make_object_sync("e1", pod);
  rig.after_answer = [&rig, &theirs](const api::Request& request) {
    if (request.verb == api::Verb::get && request.key == theirs.key) rig.store[theirs.key] = theirs;
  };
  auto ack = std::make_shared<ResourceAck>();
  ack->node = "e1";
  ack->parent_msg_id = sent->msg_id;
  const std::size_t before = rig.requests.size();
  rig.cloudcore->on_message(rig.env, kEdge, ack);
  rig.serve();
  const std::vector<std::string> save(rig.requests.begin() + static_cast<std::ptrdiff_t>(before),
                                      rig.requests.end());
  CHECK(save == std::vector<std::string>{"get ObjectSync default/e1.uid-1",
                                         "create ObjectSync default/e1.uid-1"});
  const auto failed = rig.env.traces_of(cloudcore::trace_kind::kObjectSyncCreateFailed);
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].get("result") == api::to_string(api::Status::already_exists));
  // The status stays as the winner leaves it (here: not yet written).
  CHECK_FALSE(rig.store.at(theirs.key).object_sync.objectResourceVersion.has_value());
}
