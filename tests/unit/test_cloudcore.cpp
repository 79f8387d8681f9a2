// KubeEdge CloudCore hot standby (models/cloudcore/): pod readiness with the readiness gate,
// /readyz as the ReadyzAdaptor computes it, the Service's endpoint pick, the readiness-gate
// patch flows of v1.3 and v1.5 (driven by hand through a fake apiserver), EdgeHub's dial
// rounds, single-serving on the scenarios, and the delivery write loop (resends, the ACK's
// ObjectSync writes).
#include <catch2/catch.hpp>

#include <functional>
#include <set>
#include <tuple>

#include "fake_api.hpp"
#include "fake_env.hpp"
#include "models/apiserver/messages.hpp"
#include "models/cloudcore/cloudcore.hpp"
#include "models/cloudcore/edgecore.hpp"
#include "models/cloudcore/keepalived.hpp"
#include "models/cloudcore/messages.hpp"
#include "models/cloudcore/object_sync.hpp"
#include "models/cloudcore/readiness.hpp"
#include "models/cloudcore/service.hpp"
#include "models/cloudcore/trace_kinds.hpp"
#include "models/cloudcore/tunnel_port.hpp"
#include "models/cluster/component.hpp"
#include "models/election/record.hpp"
#include "properties/cloudcore/single_serving.hpp"
#include "properties/run.hpp"
#include "cloudcore_rig.hpp"
#include "scenario_loader_helpers.hpp"

using namespace hasim;
using namespace hasim::testing;
using namespace hasim::cloudcore;


TEST_CASE("a pod is Ready only with every container ready and every gate True", "[cloudcore]") {
  api::Object pod = gated_pod();
  CHECK(pod_not_ready(pod, true) == "kubeedge.io/CloudCoreIsLeader is missing");
  pod.pod.conditions[std::string(kLeaderGate)] = "False";
  CHECK(pod_not_ready(pod, true) == "kubeedge.io/CloudCoreIsLeader is False");
  pod.pod.conditions[std::string(kLeaderGate)] = "True";
  CHECK_FALSE(pod_not_ready(pod, true).has_value());
  CHECK(pod_not_ready(pod, false) == "containers not ready");
  // Without readiness gates, container readiness alone decides.
  pod.pod.readinessGates.clear();
  pod.pod.conditions.clear();
  CHECK_FALSE(pod_not_ready(pod, true).has_value());
}

TEST_CASE("readyz: leader and renewed within leaseDuration + 20s", "[cloudcore]") {
  FakeEnv env(1);
  FakeApi api(&env);
  auto lock = cluster::make_resource_lock("endpointsleases", "kubeedge", "cloudcorelease",
                                          "cc-1_a", api);
  election::LeaderCallbacks callbacks;
  callbacks.onStartedLeading = [](Env&) {};
  callbacks.onStoppedLeading = [](Env&) {};
  callbacks.onLeadingContextDone = [](Env&) {};
  election::LeaderElector elector(default_election(), *lock, api, std::move(callbacks),
                                  env.tag_space("elector"));
  CHECK(readyz_check(nullptr, env, seconds(20)) == "leaderElection is not setting");
  CHECK(readyz_check(&elector, env, seconds(20)) == "not yet a leader");
  election::LeaderElectionRecord record;
  record.holderIdentity = "cc-1_a";
  record.leaseDurationSeconds = 15;
  elector.set_observed_for_test(record, election::marshal(record), env.monotonic_now());
  CHECK_FALSE(readyz_check(&elector, env, seconds(20)).has_value());
  env.advance(seconds(35));  // LD + 20s: still tolerated
  CHECK_FALSE(readyz_check(&elector, env, seconds(20)).has_value());
  env.advance(milliseconds(1));
  CHECK(readyz_check(&elector, env, seconds(20)).has_value());
}

TEST_CASE("the Service sends a new connection to a ready endpoint, or rejects it", "[cloudcore]") {
  ServiceEndpoints service;
  Rng rng(7);
  CHECK_FALSE(service.pick(rng).has_value());
  CHECK(service.set_ready("cc-1/cloudcore", true));
  CHECK_FALSE(service.set_ready("cc-1/cloudcore", true));
  CHECK(service.pick(rng) == "cc-1/cloudcore");
  CHECK(service.set_ready("cc-2/cloudcore", true));
  int to_first = 0;
  for (int i = 0; i < 1000; ++i) to_first += service.pick(rng) == "cc-1/cloudcore" ? 1 : 0;
  CHECK(to_first > 400);
  CHECK(to_first < 600);
  CHECK(service.set_ready("cc-1/cloudcore", false));
  CHECK(service.pick(rng) == "cc-2/cloudcore");
}


TEST_CASE("v1.5 patches the gate False before campaigning; v1.3 leaves it", "[cloudcore]") {
  CloudCoreRig v15(CloudCoreMode::v1_5);
  v15.cloudcore->on_start(v15.env);
  v15.serve();
  REQUIRE(v15.requests.size() >= 3);
  CHECK(v15.requests[0] == "get Pod kubeedge/cloudcore-cc-1");
  CHECK(v15.requests[1] == "update Pod kubeedge/cloudcore-cc-1");
  CHECK(v15.requests[2] == "get Endpoints kubeedge/cloudcorelease");

  CloudCoreRig v13(CloudCoreMode::v1_3);
  v13.cloudcore->on_start(v13.env);
  v13.serve();
  REQUIRE_FALSE(v13.requests.empty());
  CHECK(v13.requests[0] == "get Endpoints kubeedge/cloudcorelease");
  // It leads at once (no other candidate) and patches True; v1.5 goes False then True.
  CHECK(v13.gate() == "True");
  CHECK(v15.gate() == "True");
  CHECK(v15.env.traces_of(cloudcore::trace_kind::kGatePatch).size() == 2);
  CHECK(v13.env.traces_of(cloudcore::trace_kind::kGatePatch).size() == 1);
}

TEST_CASE("a leader serves edges only after CloudHub's caches sync", "[cloudcore]") {
  CloudCoreRig rig(CloudCoreMode::v1_5);
  rig.env.processes["e1/edgecore"] = 9;
  rig.cloudcore->on_start(rig.env);
  rig.serve();
  CHECK_FALSE(rig.cloudcore->serving());
  auto connect = std::make_shared<EdgeConnect>();
  connect->node = "e1";
  rig.cloudcore->on_message(rig.env, 9, connect);
  CHECK(dynamic_cast<const EdgeConnectRefused*>(rig.env.sent.back().message.get()) != nullptr);
  rig.run_until(rig.env.monotonic_now() + seconds(1));
  CHECK(rig.cloudcore->serving());
  rig.cloudcore->on_message(rig.env, 9, connect);
  CHECK(dynamic_cast<const EdgeConnectAccepted*>(rig.env.sent.back().message.get()) != nullptr);
  CHECK(rig.cloudcore->sessions() == 1);
  // No keepalive for keepaliveInterval (30s): CloudHub ends the session.
  rig.run_until(rig.env.monotonic_now() + seconds(31));
  CHECK(rig.cloudcore->sessions() == 0);
  CHECK(rig.env.traces_of(cloudcore::trace_kind::kSessionClose).at(0).get("why") == "keepalive-timeout");
}

TEST_CASE("a leader whose True patch fails shuts down", "[cloudcore]") {
  CloudCoreRig rig(CloudCoreMode::v1_3);
  rig.pod_update = api::Status::unavailable;
  rig.cloudcore->on_start(rig.env);
  rig.serve();
  REQUIRE(rig.env.exits == std::vector<int>{0});
  CHECK(rig.env.traces_of(cloudcore::trace_kind::kGracefulShutdown).at(0).get("why") ==
        "readiness gate patch failed");
}

TEST_CASE("v1.5 patches the gate False when it loses the lease, then exits", "[cloudcore]") {
  for (const CloudCoreMode mode : {CloudCoreMode::v1_3, CloudCoreMode::v1_5}) {
    CloudCoreRig rig(mode);
    rig.cloudcore->on_start(rig.env);
    rig.serve();
    REQUIRE(rig.gate() == "True");
    // From now on every renewal is refused (409): after renewDeadline the leader gives up.
    rig.lock_update = api::Status::conflict;
    rig.run_until(rig.env.monotonic_now() + seconds(30));
    REQUIRE(rig.env.exits == std::vector<int>{0});
    CHECK(rig.gate() == (mode == CloudCoreMode::v1_5 ? "False" : "True"));
  }
}

TEST_CASE("EdgeHub: 5 dials 5s apart, then 1 min, and 2 x heartbeat after a break",
          "[cloudcore]") {
  FakeEnv env(1);
  env.processes["cc-1/cloudcore"] = 3;
  bool endpoint = false;
  EdgeHubConfig config;
  config.node = "e1";
  config.dial = [&endpoint](Rng&) -> std::optional<std::string> {
    if (!endpoint) return std::nullopt;
    return "cc-1/cloudcore";
  };
  EdgeHub edge(config);
  edge.on_start(env);
  std::vector<std::int64_t> dials{0};
  for (int i = 0; i < 4; ++i) {
    const auto [timer, tag] = *env.advance_to_next_timer();
    edge.on_timer(env, timer, tag);
    dials.push_back(env.monotonic_now().ns / 1'000'000'000);
  }
  CHECK(dials == std::vector<std::int64_t>{0, 5, 10, 15, 20});
  CHECK(env.traces_of(cloudcore::trace_kind::kEdgeDialFailed).size() == 5);
  auto fire = [&] {
    const auto [timer, tag] = *env.advance_to_next_timer();
    edge.on_timer(env, timer, tag);
  };
  fire();  // the sleep after the 5th dial: Init failed
  CHECK(env.traces_of(cloudcore::trace_kind::kEdgeInitFailed).size() == 1);
  endpoint = true;
  fire();  // waitConnectionPeriod later: a new Init dials
  CHECK(env.monotonic_now().ns == seconds(25 + 60).ns);
  edge.on_message(env, 3, std::make_shared<EdgeConnectAccepted>());
  CHECK(edge.phase() == EdgeHub::Phase::connected);
  CHECK(dynamic_cast<const EdgeKeepalive*>(env.sent.back().message.get()) != nullptr);
  edge.on_message(env, 3, std::make_shared<ConnectionClosed>());
  CHECK(edge.phase() == EdgeHub::Phase::reconnect_wait);
  fire();
  CHECK(env.monotonic_now().ns == seconds(25 + 60 + 30).ns);
  CHECK(edge.phase() == EdgeHub::Phase::dialing);
}

TEST_CASE("the cloudcore section's mistakes name the field and the fix", "[cloudcore]") {
  Json doc = loader_test::base();
  doc["cloudcore"] = Json{{"nodes", Json::array({"n1"})}};
  CHECK_THAT(loader_test::all_messages(loader_test::load(doc)),
             Catch::Matchers::Contains("$.cloudcore: CloudCore elects and patches its pod through "
                                       "kube-apiservers: add a \"controlPlane\" section"));
  doc["controlPlane"] = Json{{"nodes", Json::array({"n1"})}};
  doc["cloudcore"] = Json{{"nodes", Json::array({"n2"})}, {"mode", "v1.4"}};
  CHECK_THAT(loader_test::all_messages(loader_test::load(doc)),
             Catch::Matchers::Contains("$.cloudcore.mode: expected \"v1.3\", \"v1.5\" or \"v1.7+\""));
  doc["cloudcore"] = Json{{"nodes", Json::array({"n2"})}, {"edgeNodes", Json::array({"n2"})}};
  CHECK_THAT(loader_test::all_messages(loader_test::load(doc)),
             Catch::Matchers::Contains("\"n2\" is also a CloudCore node"));
  doc["cloudcore"] = Json{{"nodes", Json::array({"n2"})}, {"renewDeadline", "20s"}};
  CHECK_THAT(loader_test::all_messages(loader_test::load(doc)),
             Catch::Matchers::Contains("leaseDuration must be greater than renewDeadline"));
  doc["cloudcore"] = Json{{"nodes", Json::array({"n2", "n3"})}};
  CHECK(loader_test::load(doc).scenario.has_value());
}

TEST_CASE("single-serving: #2156 in v1.3 is caught, the same crash in v1.5 holds, a partition "
          "breaks both",
          "[cloudcore]") {
  for (const auto& [file, holds] : {std::pair{"cloudcore-2156-v1.3.json", false},
                                    std::pair{"cloudcore-2156-v1.5.json", true},
                                    std::pair{"cloudcore-leader-crash.json", true},
                                    std::pair{"cloudcore-leader-partitioned-v1.3.json", false},
                                    std::pair{"cloudcore-leader-partitioned-v1.5.json", false},
                                    std::pair{"cloudcore-keepalived-leader-crash.json", true},
                                    std::pair{"cloudcore-keepalived-2156-v1.3.json", true}}) {
    INFO(file);
    const LoadResult loaded = load_scenario_file(
        loader_test::source_path(std::string("scenarios/cloudcore/") + file));
    REQUIRE(loaded.scenario.has_value());
    const auto run = run_scenario(*loaded.scenario, RunOptions{});
    REQUIRE(run.has_value());
    REQUIRE(run->property_specs.at(0) == "single-serving");
    CHECK(run->violations.at(0).has_value() == !holds);
    if (!holds) {
      CHECK(run->violations.at(0)->causes.size() == 2);
    }
  }
}

TEST_CASE("edge-reconnects: every break is followed by a connection within the bound",
          "[cloudcore]") {
  // cloudcore-2156-v1.3: e3's connection breaks at 2m0.001s; its dials reach the standby and
  // are refused three times, and it connects to the new leader at 2m45.009s.
  const LoadResult loaded =
      load_scenario_file(loader_test::source_path("scenarios/cloudcore/cloudcore-2156-v1.3.json"));
  REQUIRE(loaded.scenario.has_value());
  for (const auto& [spec, holds] : {std::pair{"edge-reconnects:46s", true},
                                    std::pair{"edge-reconnects:44s", false}}) {
    Scenario scenario = *loaded.scenario;
    scenario.properties = {spec};
    const auto run = run_scenario(scenario, RunOptions{});
    REQUIRE(run.has_value());
    INFO(spec);
    CHECK(run->violations.at(0).has_value() == !holds);
    if (!holds) {
      CHECK_THAT(run->violations.at(0)->detail,
                 Catch::Matchers::Contains("e3/edgecore was not connected to a CloudCore within "
                                           "44s of 2m0.001s: connected only at 2m45.009s"));
    }
  }
}

TEST_CASE("keepalived: the /readyz script rises and falls in twos; VRRP preempts by priority",
          "[cloudcore]") {
  FakeEnv env(1);
  env.processes["cc-2/cloudcore"] = 3;
  env.processes["cc-1/keepalived"] = 4;
  KeepalivedConfig config;
  config.node = "cc-2";
  config.cloudcore = "cc-2/cloudcore";
  config.peers = {"cc-1/keepalived"};
  Keepalived keepalived(config);  // BACKUP, priority 99
  keepalived.on_start(env);
  auto answer = [&](bool ok) {
    auto response = std::make_shared<ReadyzResponse>();
    response->ok = ok;
    keepalived.on_message(env, 3, response);
  };
  auto advert = [&](int priority) {
    auto message = std::make_shared<VrrpAdvert>();
    message->priority = priority;
    message->node = "cc-1";
    keepalived.on_message(env, 4, message);
  };
  auto fire = [&] {
    const auto [timer, tag] = *env.advance_to_next_timer();
    keepalived.on_timer(env, timer, tag);
  };
  CHECK(keepalived.effective_priority() == 99);
  answer(true);
  CHECK(keepalived.effective_priority() == 99);  // rise 2: one pass is not enough
  advert(100);  // the MASTER's advertisement holds back a BACKUP of lower priority
  fire();       // t=2s: the next check
  CHECK(env.monotonic_now().ns == seconds(2).ns);
  answer(true);
  CHECK(keepalived.effective_priority() == 101);  // weight 2
  advert(100);  // lower than ours now: ignored, so Master_Down runs out
  fire();
  // 3 x advert_int + (256 - 99) / 256 x advert_int after the last advertisement it accepted.
  CHECK(env.monotonic_now().ns == 3'613'281'250);
  CHECK(keepalived.master());
  CHECK(env.traces_of(cloudcore::trace_kind::kVrrpMaster).size() == 1);
  advert(102);  // a higher priority: step down
  CHECK_FALSE(keepalived.master());
  fire();  // t=4s: a check nobody answers
  CHECK(env.monotonic_now().ns == seconds(4).ns);
  fire();  // t=6s: the unanswered one counts as failed
  CHECK(env.monotonic_now().ns == seconds(6).ns);
  CHECK(keepalived.effective_priority() == 101);  // fall 2: one failure is not enough
  answer(false);
  CHECK(keepalived.effective_priority() == 99);
}

TEST_CASE("single-serving reports each dual-serving window with its start, end and causes",
          "[cloudcore]") {
  namespace cc = cloudcore::trace_kind;
  SingleServing property("single-serving");
  auto at = [](std::int64_t s) { return TrueTime{s * 1'000'000'000}; };
  auto event = [&](std::int64_t s, std::string_view node, std::string_view proc,
                   std::string_view kind, std::vector<TraceField> fields) {
    property.on_event(StoredTraceEvent{at(s), node, proc, kind, std::move(fields)});
  };
  event(1, "cc-1", "", cc::kEndpointReady, {{"process", std::string("cc-1/cloudcore")}});
  event(2, "cc-1", "cloudcore", cc::kSessionOpen, {{"edge", std::string("e1")}});
  // A CloudCore's other events change nothing; an endpoint withdrawn with a session open
  // still serves.
  event(3, "cc-1", "cloudcore", cc::kGatePatch, {});
  event(4, "cc-1", "", cc::kEndpointNotReady, {{"process", std::string("cc-1/cloudcore")}});
  event(5, "cc-2", "", cc::kEndpointReady, {{"process", std::string("cc-2/cloudcore")}});
  event(9, "cc-1", "cloudcore", cc::kSessionClose, {{"edge", std::string("e1")}});
  event(20, "cc-1", "", cc::kEndpointReady, {{"process", std::string("cc-1/cloudcore")}});
  event(25, "cc-1", "cloudcore", hasim::trace_kind::kCrash, {});  // the endpoint is still ready
  property.finish(at(60));
  REQUIRE(property.violation().has_value());
  CHECK(property.violation()->at == at(5));
  CHECK(property.violation()->detail ==
        "2 window(s) in which two CloudCores served edge traffic through the load balancer: "
        "[5s, 9s) cc-1/cloudcore and cc-2/cloudcore; [20s, end of run at 1m0s) cc-1/cloudcore "
        "and cc-2/cloudcore");
  REQUIRE(property.violation()->causes.size() == 2);
  CHECK_THAT(property.violation()->causes[0], Catch::Matchers::Contains("cloudhub-session-open"));
}

TEST_CASE("delivery: one message in flight, written 5 times 5s apart and forgotten; an ACK "
          "records its resourceVersion in the node's ObjectSync",
          "[cloudcore]") {
  CloudCoreRig rig(CloudCoreMode::v1_5, {"e1"});
  for (const auto& [name, uid, rv] : {std::tuple{"p", "uid-1", 5}, std::tuple{"q", "uid-2", 6}}) {
    api::Object pod;
    pod.key = api::ObjectKey{api::Kind::pod, "default", name};
    pod.uid = uid;
    pod.resourceVersion = static_cast<std::uint64_t>(rv);
    pod.pod_spec.nodeName = "e1";
    rig.store[pod.key] = pod;
  }
  constexpr ProcessId kEdge = 9;
  rig.env.processes["e1/edgecore"] = kEdge;
  rig.cloudcore->on_start(rig.env);
  rig.run_until(rig.env.monotonic_now() + seconds(1));  // leading, informers synced, serving
  REQUIRE(rig.cloudcore->serving());
  auto connect = std::make_shared<EdgeConnect>();
  connect->node = "e1";
  rig.cloudcore->on_message(rig.env, kEdge, connect);
  const auto writes = [&rig](std::string_view name) {
    std::vector<const ResourceMessage*> out;
    for (const SentMessage& sent : rig.env.sent) {
      const auto* message = dynamic_cast<const ResourceMessage*>(sent.message.get());
      if (message != nullptr && sent.to == kEdge && message->object->key.name == name) {
        out.push_back(message);
      }
    }
    return out;
  };
  CHECK(writes("p").size() == 1);
  CHECK(writes("q").empty());  // one message in flight per node
  // No ACK: written again at 5, 10, 15 and 20s, given up at 25s; then q goes.
  rig.run_until(rig.env.monotonic_now() + seconds(26));
  CHECK(writes("p").size() == 5);
  CHECK(rig.env.traces_of(cloudcore::trace_kind::kMessageResend).size() == 4);
  CHECK(rig.env.traces_of(cloudcore::trace_kind::kMessageDropped).size() == 1);
  REQUIRE(writes("q").size() == 1);
  auto ack = std::make_shared<ResourceAck>();
  ack->node = "e1";
  ack->parent_msg_id = writes("q").front()->msg_id;
  const std::size_t before = rig.requests.size();
  rig.cloudcore->on_message(rig.env, kEdge, ack);
  rig.serve();
  const std::vector<std::string> save(rig.requests.begin() + static_cast<std::ptrdiff_t>(before),
                                      rig.requests.end());
  CHECK(save == std::vector<std::string>{"get ObjectSync default/e1.uid-2",
                                         "create ObjectSync default/e1.uid-2",
                                         "get ObjectSync default/e1.uid-2",
                                         "update ObjectSync default/e1.uid-2"});
  const api::Object& sync = rig.store.at({api::Kind::object_sync, "default", "e1.uid-2"});
  CHECK(sync.object_sync.objectKind == "pod");
  CHECK(sync.object_sync.objectResourceVersion == std::optional<std::uint64_t>{6});
}
