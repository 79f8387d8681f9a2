// The scenario loader's control-plane section: values and defaults, leader election settings
// checked as client-go's NewLeaderElector does, components, nodes, versions, and the
// terminate and apiserver faults.
#include <catch2/catch.hpp>

#include <string>

#include "scenario_loader_helpers.hpp"

using namespace hasim::loader_test;

namespace {

// base() with a "controlPlane" section and, if given, one fault.
LoadResult load_control_plane(Json control_plane, Json fault = nullptr) {
  Json doc = base();
  doc["controlPlane"] = std::move(control_plane);
  if (!fault.is_null()) doc["faults"] = Json::array({std::move(fault)});
  return load(doc);
}

// The only error of a control plane whose kube-scheduler has `settings`.
ScenarioError scheduler_error(Json settings) {
  return only_error(
      load_control_plane({{"components", {{"kube-scheduler", std::move(settings)}}}}));
}

}  // namespace

TEST_CASE("a control plane loads with its values and defaults", "[scenario]") {
  Json doc = base();
  doc["nodes"] = Json::array({{{"name", "cp-1"}, {"zone", "a"}},
                              {{"name", "cp-2"}, {"zone", "b"}},
                              {{"name", "cp-3"}, {"zone", "c"}},
                              {{"name", "w1"}}});
  doc["network"] = {
      {"links", Json::array({{{"from", "cp-1"}, {"to", "store"}, {"latency", "5ms"}}})}};
  doc["controlPlane"] = {
      {"nodes", {"cp-1", "cp-2", "cp-3"}},
      {"version", "1.30.2"},
      {"access", "loadBalancer"},
      {"requestTimeout", "30s"},
      {"apiserverLatency", "1ms..5ms"},
      {"watchLag", {{"dist", "exponential"}, {"mean", "10ms"}}},
      {"components",
       {{"kube-controller-manager",
         {{"leaseDuration", "30s"},
          {"renewDeadline", "20s"},
          {"retryPeriod", "4s"},
          {"lock", "endpointsleases"},
          {"clientTimeout", "5s"},
          {"workInterval", "0"}}}}},
      {"kubelet",
       {{"restart", false}, {"backoff", "5s"}, {"maxBackoff", "1m"}, {"resetAfter", "2m"}}}};
  const LoadResult result = load(doc);
  INFO(all_messages(result));
  REQUIRE(result.scenario);
  const hasim::Scenario& s = *result.scenario;
  REQUIRE(s.section<hasim::ControlPlaneSpec>());
  const hasim::ControlPlaneSpec& cp = *s.section<hasim::ControlPlaneSpec>();
  CHECK(cp.nodes == std::vector<std::string>{"cp-1", "cp-2", "cp-3"});
  CHECK(cp.version == "1.30.2");
  CHECK(cp.loadBalancer);
  CHECK(cp.requestTimeout == hasim::seconds(30));
  CHECK(cp.apiserverLatency ==
        hasim::DurationDistribution::uniform(hasim::milliseconds(1), hasim::milliseconds(5)));
  CHECK(cp.watchLag == hasim::DurationDistribution::exponential(hasim::milliseconds(10)));
  CHECK(cp.controllerManager.leaseDuration == hasim::seconds(30));
  CHECK(cp.controllerManager.renewDeadline == hasim::seconds(20));
  CHECK(cp.controllerManager.retryPeriod == hasim::seconds(4));
  CHECK_FALSE(cp.controllerManager.releaseOnCancel);
  CHECK(cp.controllerManager.lock == "endpointsleases");
  CHECK(cp.controllerManager.clientTimeout == hasim::seconds(5));
  CHECK(cp.controllerManager.workInterval == hasim::Duration{});
  CHECK(cp.scheduler.leaseDuration == hasim::seconds(15));  // the scheduler keeps the defaults
  CHECK(cp.scheduler.renewDeadline == hasim::seconds(10));
  CHECK(cp.scheduler.retryPeriod == hasim::seconds(2));
  CHECK(cp.scheduler.releaseOnCancel);
  CHECK(cp.scheduler.lock == "leases");
  CHECK_FALSE(cp.scheduler.clientTimeout.has_value());
  CHECK(cp.scheduler.workInterval == hasim::seconds(1));
  CHECK_FALSE(cp.kubelet.restart);
  CHECK(cp.kubelet.backoff == hasim::seconds(5));
  CHECK(cp.kubelet.maxBackoff == hasim::minutes(1));
  CHECK(cp.kubelet.resetAfter == hasim::minutes(2));
  REQUIRE(s.nodes.size() == 5);  // the store's node is added
  CHECK(s.nodes[4].name == "store");
  CHECK(s.nodes[4].stream_name == "etcd");  // its random streams keep the old name
  CHECK(s.nodes[4].zone.empty());
  CHECK(s.network.links[0].to == "store");  // links may name it too

  // Every key left out: the defaults, on every node; faults may name "store".
  const LoadResult defaults = load_control_plane(
      Json::object(), {{"at", "1m"}, {"kind", "partition"}, {"isolate", {"store"}}});
  INFO(all_messages(defaults));
  REQUIRE(defaults.scenario);
  REQUIRE(defaults.scenario->section<hasim::ControlPlaneSpec>());
  const hasim::ControlPlaneSpec& d = *defaults.scenario->section<hasim::ControlPlaneSpec>();
  CHECK(d.nodes == std::vector<std::string>{"n1", "n2", "n3"});
  CHECK(d.version == "1.31.0");
  CHECK_FALSE(d.loadBalancer);
  CHECK(d.requestTimeout == hasim::seconds(60));
  CHECK(d.apiserverLatency == hasim::DurationDistribution::constant(hasim::Duration{}));
  CHECK_FALSE(d.controllerManager.releaseOnCancel);
  CHECK(d.scheduler.releaseOnCancel);
  CHECK(d.controllerManager.lock == "leases");
  CHECK(d.kubelet.restart);
  CHECK(d.kubelet.maxBackoff == hasim::minutes(5));
  CHECK(defaults.scenario->nodes.back().name == "store");
  CHECK(defaults.scenario->faults[0].targets == std::vector<std::string>{"store"});

  // A declared "store" node is kept, not added twice, and is not a control-plane node.
  doc = base();
  doc["nodes"][2] = {{"name", "store"}, {"zone", "c"}};
  doc["controlPlane"] = Json::object();
  const LoadResult declared = load(doc);
  REQUIRE(declared.scenario);
  CHECK(declared.scenario->nodes.size() == 3);
  CHECK(declared.scenario->nodes[2].zone == "c");
  CHECK(declared.scenario->nodes[2].stream_name == "etcd");
  CHECK(declared.scenario->section<hasim::ControlPlaneSpec>()->nodes ==
        std::vector<std::string>{"n1", "n2"});

  // Without a control plane there is no store node.
  const LoadResult plain = load(base());
  REQUIRE(plain.scenario);
  CHECK(plain.scenario->nodes.size() == 3);
  CHECK(plain.scenario->section<hasim::ControlPlaneSpec>() == nullptr);
}

TEST_CASE("leader election settings are checked as client-go's NewLeaderElector does",
          "[scenario]") {
  const std::string scheduler = "$.controlPlane.components.kube-scheduler";
  auto e = scheduler_error({{"leaseDuration", "10s"}});
  CHECK(e.path == scheduler + ".leaseDuration");
  CHECK_THAT(e.message, Contains("leaseDuration must be greater than renewDeadline") &&
                            Contains("leaseDuration 10s is not greater than renewDeadline 10s "
                                     "(the default)"));
  e = scheduler_error({{"renewDeadline", "15s"}});
  CHECK(e.path == scheduler + ".renewDeadline");  // the key that was set
  CHECK_THAT(e.message, Contains("leaseDuration must be greater than renewDeadline"));

  e = scheduler_error({{"renewDeadline", "2400ms"}});
  CHECK(e.path == scheduler + ".renewDeadline");
  CHECK_THAT(e.message, Contains("renewDeadline must be greater than retryPeriod*JitterFactor") &&
                            Contains("retryPeriod 2s (the default) * 1.2 = 2.4s"));
  CHECK(load_control_plane(
            {{"components", {{"kube-scheduler", {{"renewDeadline", "2400000001ns"}}}}}})
            .errors.empty());
  // time.Duration(1.2 * float64(3ns)) is 3ns: Go truncates, so 4ns is enough.
  CHECK(load_control_plane(
            {{"components",
              {{"kube-scheduler",
                {{"leaseDuration", "10ns"}, {"renewDeadline", "4ns"}, {"retryPeriod", "3ns"}}}}}})
            .errors.empty());
  e = scheduler_error(
      {{"leaseDuration", "10ns"}, {"renewDeadline", "3ns"}, {"retryPeriod", "3ns"}});
  CHECK(e.path == scheduler + ".renewDeadline");

  e = only_error(load_control_plane(
      {{"components", {{"kube-controller-manager", {{"retryPeriod", "10s"}}}}}}));
  CHECK(e.path == "$.controlPlane.components.kube-controller-manager.retryPeriod");
  CHECK_THAT(e.message, Contains("renewDeadline must be greater than retryPeriod*JitterFactor"));

  e = scheduler_error({{"retryPeriod", "0s"}});
  CHECK(e.path == scheduler + ".retryPeriod");
  CHECK_THAT(e.message, Contains("retryPeriod must be greater than zero"));
  e = scheduler_error({{"leaseDuration", "0s"}, {"renewDeadline", "-1s"}, {"retryPeriod", "-1s"}});
  CHECK(e.path == scheduler + ".leaseDuration");
  CHECK_THAT(e.message, Contains("leaseDuration must be greater than zero"));

  e = scheduler_error({{"lock", "lease"}});
  CHECK(e.path == scheduler + ".lock");
  CHECK_THAT(e.message, Contains("unknown lock type \"lease\" (did you mean \"leases\"?)") &&
                            Contains("configmapsleases"));
  e = scheduler_error({{"clientTimeout", "0s"}});
  CHECK(e.path == scheduler + ".clientTimeout");
  e = scheduler_error({{"workInterval", "-1s"}});
  CHECK(e.path == scheduler + ".workInterval");
  e = scheduler_error({{"releaseOnCancel", "no"}});
  CHECK(e.path == scheduler + ".releaseOnCancel");
}

TEST_CASE("an unknown control-plane component suggests the closest one", "[scenario]") {
  const auto e =
      only_error(load_control_plane({{"components", {{"kube-schedular", Json::object()}}}}));
  CHECK(e.path == "$.controlPlane.components[\"kube-schedular\"]");
  CHECK_THAT(e.message,
             Contains("(did you mean \"kube-scheduler\"?)") && Contains("kube-controller-manager"));
}

TEST_CASE("control-plane nodes, version, access and kubelet are checked", "[scenario]") {
  auto e = only_error(load_control_plane({{"nodes", {"n1", "store"}}}));
  CHECK(e.path == "$.controlPlane.nodes[1]");
  CHECK_THAT(e.message, Contains("\"store\" is the ideal store's node"));
  e = only_error(load_control_plane({{"nodes", {"n1", "n9"}}}));
  CHECK(e.path == "$.controlPlane.nodes[1]");
  CHECK_THAT(e.message, Contains("unknown node \"n9\""));
  e = only_error(load_control_plane({{"nodes", Json::array()}}));
  CHECK(e.path == "$.controlPlane.nodes");

  Json doc = base();
  doc["nodes"] = Json::array({{{"name", "store"}}});
  doc["controlPlane"] = Json::object();
  e = only_error(load(doc));
  CHECK(e.path == "$.controlPlane");
  CHECK_THAT(e.message, Contains("the control plane has no nodes"));

  e = only_error(load_control_plane({{"version", "v1.31.0"}}));
  CHECK(e.path == "$.controlPlane.version");
  CHECK_THAT(e.message, Contains("without a leading \"v\"") && Contains("write \"1.31.0\""));
  for (const char* bad : {"1.31", "1.031.0", "1..0", ""}) {
    INFO(bad);
    CHECK_THAT(only_error(load_control_plane({{"version", bad}})).message,
               Contains("expected a Kubernetes version MAJOR.MINOR.PATCH"));
  }
  e = only_error(load_control_plane({{"access", "loadbalancer"}}));
  CHECK(e.path == "$.controlPlane.access");
  CHECK_THAT(e.message, Contains("(did you mean \"loadBalancer\"?)"));
  e = only_error(load_control_plane({{"requestTimeout", "0s"}}));
  CHECK(e.path == "$.controlPlane.requestTimeout");
  e = only_error(load_control_plane({{"watchLag", "-1ms"}}));
  CHECK(e.path == "$.controlPlane.watchLag");

  e = only_error(load_control_plane({{"kubelet", {{"maxBackoff", "5s"}}}}));
  CHECK(e.path == "$.controlPlane.kubelet.maxBackoff");
  CHECK_THAT(e.message, Contains("maxBackoff 5s is below backoff 10s (the default)"));
  e = only_error(load_control_plane({{"kubelet", {{"backoff", "0s"}}}}));
  CHECK(e.path == "$.controlPlane.kubelet.backoff");
  e = only_error(load_control_plane({{"kubelet", {{"resetAfter", "10"}}}}));
  CHECK(e.path == "$.controlPlane.kubelet.resetAfter");
}

TEST_CASE("terminate and apiserver faults load", "[scenario]") {
  Json doc = base();
  doc["controlPlane"] = Json::object();
  doc["faults"] = Json::array({
      {{"at", "1m"},
       {"kind", "terminate"},
       {"process", "n1/kube-scheduler"},
       {"grace", "5s"},
       {"for", "1m"}},
      {{"at", "2m"}, {"kind", "terminate"}, {"process", "n2/kube-controller-manager"}},
      {{"at", "3m"},
       {"kind", "apiserver-slow"},
       {"node", "n1"},
       {"latency", "500ms"},
       {"for", "30s"}},
      {{"at", "4m"},
       {"kind", "apiserver-hang"},
       {"nodes", {"n2", "n3"}},
       {"verbs", {"get", "update"}}},
      {{"at", "5m"}, {"kind", "apiserver-hang"}, {"node", "n1"}, {"for", "2m"}},
      {{"at", "6m"}, {"kind", "apiserver-unavailable"}, {"node", "n3"}, {"for", "10s"}},
  });
  const LoadResult result = load(doc);
  INFO(all_messages(result));
  REQUIRE(result.scenario);
  const auto& f = result.scenario->faults;
  REQUIRE(f.size() == 6);
  CHECK(f[0].kind == "terminate");
  CHECK(f[0].targets == std::vector<std::string>{"n1/kube-scheduler"});
  CHECK(f[0].grace == hasim::seconds(5));
  CHECK(f[0].for_duration == hasim::minutes(1));
  CHECK(f[1].grace == hasim::seconds(30));
  CHECK_FALSE(f[1].for_duration.has_value());
  CHECK(f[2].kind == "apiserver-slow");
  CHECK(f[2].targets == std::vector<std::string>{"n1"});
  CHECK(f[2].latency == hasim::milliseconds(500));
  CHECK(f[3].kind == "apiserver-hang");
  CHECK(f[3].targets == std::vector<std::string>{"n2", "n3"});
  CHECK(f[3].verbs == std::vector<std::string>{"get", "update"});
  CHECK(f[4].verbs.empty());
  CHECK(f[4].for_duration == hasim::minutes(2));
  CHECK(f[5].kind == "apiserver-unavailable");
  CHECK(f[5].for_duration == hasim::seconds(10));
}

TEST_CASE("bad terminate and apiserver faults are rejected", "[scenario]") {
  const Json cp = Json::object();
  auto e = only_error(load_control_plane(
      cp, {{"at", "1m"}, {"kind", "apiserver-hang"}, {"node", "n1"}, {"verbs", {"get", "updat"}}}));
  CHECK(e.path == "$.faults[0].verbs[1]");
  CHECK_THAT(e.message, Contains("unknown verb \"updat\" (did you mean \"update\"?)") &&
                            Contains("\"watch\""));
  e = only_error(load_control_plane(
      cp, {{"at", "1m"}, {"kind", "apiserver-hang"}, {"node", "n1"}, {"verbs", Json::array()}}));
  CHECK(e.path == "$.faults[0].verbs");
  CHECK_THAT(e.message, Contains("leave \"verbs\" out to hang every request"));

  const Json two = {{"nodes", {"n1", "n2"}}};
  e = only_error(load_control_plane(
      two, {{"at", "1m"}, {"kind", "apiserver-slow"}, {"node", "n3"}, {"latency", "1s"}}));
  CHECK(e.path == "$.faults[0].node");
  CHECK_THAT(e.message, Contains("node \"n3\" is not a control-plane node") &&
                            Contains("the control-plane nodes are n1, n2"));
  e = only_error(load_control_plane(
      two, {{"at", "1m"}, {"kind", "apiserver-unavailable"}, {"nodes", {"n1", "store"}}}));
  CHECK(e.path == "$.faults[0].nodes[1]");
  CHECK_THAT(e.message, Contains("node \"store\" is not a control-plane node"));
  e = only_error(
      load_control_plane(two, {{"at", "1m"}, {"kind", "apiserver-slow"}, {"node", "n1"}}));
  CHECK(e.path == "$.faults[0].latency");
  CHECK_THAT(e.message, Contains("required key \"latency\" is missing"));
  e = only_error(load_control_plane(
      two, {{"at", "1m"}, {"kind", "apiserver-slow"}, {"node", "n1"}, {"latency", "0s"}}));
  CHECK(e.path == "$.faults[0].latency");
  e = only_error(
      load_with_fault({{"at", "1m"}, {"kind", "apiserver-unavailable"}, {"node", "n1"}}));
  CHECK(e.path == "$.faults[0]");
  CHECK_THAT(e.message, Contains("the scenario has no \"controlPlane\""));

  e = only_error(load_control_plane(cp, {{"at", "1m"}, {"kind", "terminate"}}));
  CHECK(e.path == "$.faults[0]");
  CHECK_THAT(e.message, Contains("a terminate fault needs a target; add \"process\""));
  e = only_error(load_control_plane(cp, {{"at", "1m"}, {"kind", "terminate"}, {"node", "n1"}}));
  CHECK(e.path == "$.faults[0].node");
  CHECK_THAT(e.message, Contains("key \"node\" does not apply to a terminate fault"));
  e = only_error(load_control_plane(
      cp,
      {{"at", "1m"}, {"kind", "terminate"}, {"process", "n1/kube-scheduler"}, {"grace", "-1s"}}));
  CHECK(e.path == "$.faults[0].grace");
  e = only_error(load_control_plane(cp, {{"at", "1m"}, {"kind", "terminate"}, {"process", "n1"}}));
  CHECK(e.path == "$.faults[0].process");
  e = only_error(
      load_control_plane(cp, {{"at", "1m"}, {"kind", "crash"}, {"node", "n1"}, {"latency", "1s"}}));
  CHECK_THAT(e.message, Contains("key \"latency\" does not apply to a crash fault"));
}
