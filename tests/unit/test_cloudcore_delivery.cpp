// KubeEdge CloudCore's delivery to edge nodes (models/cloudcore/ delivery, object_sync,
// node_queue, metamanager): the ObjectSync bookkeeping (names, the dispatcher's gate,
// SyncController's comparison), the edge's stale-version rule, the node queue's store,
// MetaManager's database across a restart, the workload's mistakes, and edge-converges on
// the delivery scenarios.
#include <catch2/catch.hpp>

#include "fake_env.hpp"
#include "models/cloudcore/metamanager.hpp"
#include "models/cloudcore/node_queue.hpp"
#include "models/cloudcore/object_sync.hpp"
#include "models/cloudcore/trace_kinds.hpp"
#include "properties/cloudcore/edge_converges.hpp"
#include "properties/run.hpp"
#include "scenario_loader_helpers.hpp"
#include "sim/trace_kinds.hpp"

using namespace hasim;
using namespace hasim::testing;
using namespace hasim::cloudcore;

namespace {

api::ObjectPtr object(api::Kind kind, std::string name, std::uint64_t rv, std::string uid = "") {
  auto out = std::make_shared<api::Object>();
  out->key = api::ObjectKey{kind, "default", name};
  out->uid = uid.empty() ? name + "-uid" : uid;
  out->resourceVersion = rv;
  return out;
}

api::Object synced(const api::Object& target, std::string_view node,
                   std::optional<std::uint64_t> rv) {
  api::Object sync = make_object_sync(node, target);
  sync.object_sync.objectResourceVersion = rv;
  return sync;
}

ResourceMessage message(Operation operation, api::ObjectPtr object, std::uint64_t id = 1) {
  ResourceMessage out;
  out.msg_id = id;
  out.operation = operation;
  out.object = std::move(object);
  return out;
}

}  // namespace

TEST_CASE("ObjectSync: named <node>.<uid>, tracking its object by kind and name", "[cloudcore]") {
  const auto pod = object(api::Kind::pod, "p", 7, "u-1");
  const api::Object sync = make_object_sync("e1", *pod);
  CHECK(sync.key == api::ObjectKey{api::Kind::object_sync, "default", "e1.u-1"});
  CHECK(sync.object_sync.objectKind == "pod");
  CHECK(sync.object_sync.objectName == "p");
  CHECK_FALSE(sync.object_sync.objectResourceVersion.has_value());
  CHECK(object_sync_node(sync) == "e1");
  CHECK(object_sync_target(sync) == pod->key);
  CHECK(resource_kind(resource_type(api::Kind::secret)) == api::Kind::secret);
  CHECK_FALSE(resource_kind("node").has_value());
}

TEST_CASE("the dispatcher queues what the node has not acknowledged", "[cloudcore]") {
  const auto pod = object(api::Kind::pod, "p", 7);
  const api::Object acked = synced(*pod, "e1", 7);
  CHECK(should_enqueue(Operation::insert, 7, nullptr));
  CHECK_FALSE(should_enqueue(Operation::update, 7, &acked));
  CHECK_FALSE(should_enqueue(Operation::update, 6, &acked));
  CHECK(should_enqueue(Operation::update, 8, &acked));
  CHECK(should_enqueue(Operation::delete_, 7, &acked));
  CHECK(should_enqueue(Operation::response, 7, &acked));
  const api::Object empty = synced(*pod, "e1", std::nullopt);
  CHECK(should_enqueue(Operation::update, 1, &empty));
}

TEST_CASE("SyncController: gone -> delete, newer -> update, empty status -> skip", "[cloudcore]") {
  const auto pod = object(api::Kind::pod, "p", 9);
  CHECK(compare_object_sync(synced(*pod, "e1", 9), pod.get()) == SyncAction::none);
  CHECK(compare_object_sync(synced(*pod, "e1", 5), pod.get()) == SyncAction::update);
  CHECK(compare_object_sync(synced(*pod, "e1", 5), nullptr) == SyncAction::delete_);
  CHECK(compare_object_sync(synced(*pod, "e1", std::nullopt), pod.get()) ==
        SyncAction::skip_empty_status);
  // Same name, another UID: the object the ObjectSync tracked is gone.
  const auto recreated = object(api::Kind::pod, "p", 12, "other");
  CHECK(compare_object_sync(synced(*pod, "e1", 9), recreated.get()) == SyncAction::delete_);
}

TEST_CASE("the edge never applies a stale version over a newer one", "[cloudcore]") {
  const StoredVersion held{10, "p-uid"};
  const auto at = [](std::uint64_t rv, std::string uid = "p-uid") {
    return *object(api::Kind::pod, "p", rv, std::move(uid));
  };
  CHECK(decide_edge_apply(Operation::insert, at(3), std::nullopt) == EdgeApply::store);
  CHECK(decide_edge_apply(Operation::update, at(11), held) == EdgeApply::store);
  CHECK(decide_edge_apply(Operation::update, at(10), held) == EdgeApply::duplicate);
  CHECK(decide_edge_apply(Operation::response, at(9), held) == EdgeApply::stale);
  CHECK(decide_edge_apply(Operation::delete_, at(4), held) == EdgeApply::remove);
  CHECK(decide_edge_apply(Operation::delete_, at(4, "old"), held) == EdgeApply::stale);
  CHECK(decide_edge_apply(Operation::delete_, at(4), std::nullopt) == EdgeApply::absent);
}

TEST_CASE("the node queue keeps one message per UID: newer wins, deletes and responses force",
          "[cloudcore]") {
  NodeQueue queue;
  CHECK(queue.add(Operation::insert, object(api::Kind::pod, "p", 5)));
  CHECK_FALSE(queue.add(Operation::update, object(api::Kind::pod, "p", 4)));
  CHECK(queue.add(Operation::update, object(api::Kind::pod, "p", 6)));
  CHECK(queue.add(Operation::insert, object(api::Kind::config_map, "c", 2)));
  // A new pod of the same name is another object: its own key.
  CHECK(queue.add(Operation::insert, object(api::Kind::pod, "p", 8, "p-uid-2")));
  CHECK(queue.size() == 3);
  CHECK(queue.add(Operation::delete_, object(api::Kind::pod, "p", 6)));
  CHECK_FALSE(queue.add(Operation::update, object(api::Kind::pod, "p", 9)));
  CHECK(queue.add(Operation::response, object(api::Kind::config_map, "c", 1)));
  CHECK(queue.size() == 3);  // the queue holds each key once, in its first place
  auto first = queue.pop();
  REQUIRE(first.has_value());
  CHECK(first->operation == Operation::delete_);
  CHECK(first->key == "p-uid");
  queue.requeue(*first);
  const auto second = queue.pop();
  CHECK(second->operation == Operation::response);
  CHECK(second->object->resourceVersion == 1);
  CHECK(queue.pop()->key == "p-uid-2");
  CHECK(queue.pop()->key == "p-uid");
  CHECK_FALSE(queue.pop().has_value());
}

TEST_CASE("MetaManager keeps versions across a restart and lists what pods lack",
          "[cloudcore]") {
  FakeEnv env(1);
  auto pod = std::make_shared<api::Object>(*object(api::Kind::pod, "p", 5));
  pod->pod_spec.configMaps = {"cm"};
  pod->pod_spec.secrets = {"s"};
  {
    MetaManager meta(env.store);
    CHECK(meta.apply(env, message(Operation::insert, pod)) == EdgeApply::store);
    CHECK(meta.missing().size() == 2);
    CHECK(meta.apply(env, message(Operation::response, object(api::Kind::config_map, "cm", 3))) ==
          EdgeApply::store);
    CHECK(meta.missing() ==
          std::set<api::ObjectKey>{api::ObjectKey{api::Kind::secret, "default", "s"}});
  }
  MetaManager restarted(env.store);  // a new incarnation reads the same database
  CHECK(restarted.size() == 2);
  CHECK(restarted.missing().size() == 1);
  CHECK(restarted.apply(env, message(Operation::update, object(api::Kind::config_map, "cm", 2))) ==
        EdgeApply::stale);
  CHECK(restarted.apply(env, message(Operation::delete_, pod)) == EdgeApply::remove);
  CHECK(restarted.missing().empty());
  const auto applied = env.traces_of(cloudcore::trace_kind::kEdgeStoreApply);
  REQUIRE(applied.size() == 4);
  CHECK(applied[2].str() ==
        "metamanager-apply object=ConfigMap default/cm operation=update rv=2 result=stale");
}

TEST_CASE("the workload's mistakes name the field and the fix", "[cloudcore]") {
  Json doc = loader_test::base();
  doc["controlPlane"] = Json{{"nodes", Json::array({"n1"})}};
  const auto messages = [&doc](Json cloudcore) {
    doc["cloudcore"] = std::move(cloudcore);
    return loader_test::all_messages(loader_test::load(doc));
  };
  const Json nodes = Json::array({"n2"});
  const Json edges = Json::array({"n3"});
  CHECK_THAT(messages({{"nodes", nodes}, {"workload", {{"podsPerNode", -1}}}}),
             Catch::Matchers::Contains("$.cloudcore.workload.podsPerNode"));
  CHECK_THAT(messages({{"nodes", nodes}, {"workload", {{"updateEvery", "1s"}}}}),
             Catch::Matchers::Contains("$.cloudcore.workload.updateEvery: there is nothing to "
                                       "update: set \"podsPerNode\""));
  CHECK_THAT(messages({{"nodes", nodes}, {"workload", {{"podsPerNod", 1}}}}),
             Catch::Matchers::Contains("podsPerNode"));
  CHECK_THAT(messages({{"nodes", nodes},
                       {"edgeNodes", edges},
                       {"objectChanges", {{{"at", "1m"}, {"op", "create"}, {"kind", "pod"},
                                           {"name", "p"}, {"node", "n2"}}}}}),
             Catch::Matchers::Contains("$.cloudcore.objectChanges[0].node: \"n2\" is not one of "
                                       "\"edgeNodes\""));
  CHECK_THAT(messages({{"nodes", nodes},
                       {"objectChanges", {{{"at", "1m"}, {"op", "update"}, {"kind", "configmap"},
                                           {"name", "c"}, {"node", "n3"}}}}}),
             Catch::Matchers::Contains("$.cloudcore.objectChanges[0].node: \"node\" applies only "
                                       "to a created pod"));
  CHECK_THAT(messages({{"nodes", nodes},
                       {"objectChanges", {{{"at", "1m"}, {"op", "patch"}, {"kind", "pod"},
                                           {"name", "p"}}}}}),
             Catch::Matchers::Contains("$.cloudcore.objectChanges[0].op"));
  CHECK_THAT(messages({{"nodes", nodes}, {"objectChanges", {{{"op", "update"}, {"kind", "pod"},
                                                             {"name", "p"}}}}}),
             Catch::Matchers::Contains("$.cloudcore.objectChanges[0]"));
  doc["cloudcore"] = Json{{"nodes", nodes},
                          {"edgeNodes", edges},
                          {"workload", {{"podsPerNode", 2}, {"updateEvery", "5s"}}},
                          {"objectChanges", {{{"at", "1m"}, {"op", "delete"}, {"kind", "secret"},
                                              {"name", "n3-pod-0-secret-0"}}}}};
  CHECK(loader_test::load(doc).scenario.has_value());
}

TEST_CASE("edge-converges: delivery through a leader crash converges; a tight bound fails",
          "[cloudcore]") {
  const LoadResult loaded = load_scenario_file(
      loader_test::source_path("scenarios/cloudcore/cloudcore-delivery-leader-crash.json"));
  REQUIRE(loaded.scenario.has_value());
  for (const auto& [spec, holds] : {std::pair{"edge-converges:90s", true},
                                    std::pair{"edge-converges:20s", false}}) {
    Scenario scenario = *loaded.scenario;
    scenario.properties = {spec};
    const auto run = run_scenario(scenario, RunOptions{});
    REQUIRE(run.has_value());
    INFO(spec);
    CHECK(run->violations.at(0).has_value() == !holds);
    if (!holds) {
      // e2-pod-0-cm-0 is updated at 2m5s while no CloudCore serves; it reaches e2 only once
      // e2 reconnects to the new leader, at 2m30.003s.
      CHECK_THAT(run->violations.at(0)->detail,
                 Catch::Matchers::Contains(
                     "e2/edgecore's store differs from the cloud for ConfigMap "
                     "default/e2-pod-0-cm-0 (the cloud has resourceVersion 600, the edge 10) from "
                     "t=125.000000000s to at least t=150.003000000s, longer than the bound 20s"));
    }
  }
}

TEST_CASE("edge-converges: a stale overwrite at once; a lagging edge after the bound, counted "
          "from the heal",
          "[cloudcore]") {
  namespace cc = cloudcore::trace_kind;
  const auto at = [](std::int64_t s) { return TrueTime{s * 1'000'000'000}; };
  const auto workload = [&](EdgeConverges& p, std::int64_t s, std::string op, std::int64_t rv) {
    p.on_event(StoredTraceEvent{at(s), "e1", "", cc::kWorkload,
                          {{"op", std::move(op)},
                           {"object", std::string("Pod default/p")},
                           {"rv", rv},
                           {"configMaps", std::string("c")},
                           {"secrets", std::string()}}});
  };
  const auto apply = [&](EdgeConverges& p, std::int64_t s, std::string object, std::int64_t rv,
                         std::string result) {
    p.on_event(StoredTraceEvent{at(s), "e1", "edgecore", cc::kEdgeStoreApply,
                          {{"object", std::move(object)},
                           {"operation", std::string("update")},
                           {"rv", rv},
                           {"result", std::move(result)}}});
  };
  {
    EdgeConverges stale("edge-converges:30s", seconds(30));
    workload(stale, 1, "create", 7);
    apply(stale, 2, "Pod default/p", 7, "store");
    apply(stale, 3, "Pod default/p", 6, "store");
    REQUIRE(stale.violation().has_value());
    CHECK(stale.violation()->at == at(3));
    CHECK(stale.violation()->detail ==
          "e1/edgecore replaced Pod default/p at resourceVersion 7 by the older 6 (a stale "
          "overwrite)");
  }
  {
    // The pod arrives, its ConfigMap (referenced, created nowhere) is not wanted until it
    // exists; the pod's deletion reaches the edge 40s late, but a partition healed at 25s.
    EdgeConverges late("edge-converges:30s", seconds(30));
    workload(late, 1, "create", 7);
    apply(late, 2, "Pod default/p", 7, "store");
    workload(late, 10, "delete", 7);
    late.on_event(StoredTraceEvent{at(15), "", "", hasim::trace_kind::kPartition, {}});
    late.on_event(StoredTraceEvent{at(25), "", "", hasim::trace_kind::kHeal,
                             {{"cut", std::string("all")}}});
    apply(late, 50, "Pod default/p", 7, "remove");
    CHECK_FALSE(late.violation().has_value());  // 25s after the heal: within 30s
    workload(late, 60, "create", 9);
    late.finish(at(100));
    REQUIRE(late.violation().has_value());
    CHECK(late.violation()->at == at(90));
    CHECK(late.violation()->detail ==
          "e1/edgecore's store differs from the cloud for Pod default/p (the cloud has "
          "resourceVersion 9, the edge none) from t=60.000000000s to at least "
          "t=100.000000000s, longer than the bound 30s");
  }
}
