// The scenario loader's control-plane versions, election mode and Coordinated Leader Election
// settings, and the "upgrade" section: every field maps, defaults hold, and each mistake is
// reported at its JSON path with the fix.
#include <catch2/catch.hpp>

#include <string>

#include "models/cluster/upgrade_spec.hpp"
#include "scenarios/control_plane/spec.hpp"
#include "scenarios/loader.hpp"

using Catch::Matchers::Contains;
using hasim::DurationDistribution;
using hasim::ElectionMode;
using hasim::Json;
using hasim::LoadResult;
using hasim::milliseconds;
using hasim::minutes;
using hasim::ScenarioError;
using hasim::seconds;
using hasim::UpgradeSpec;

namespace {

Json base() {
  return Json{
      {"name", "t"},
      {"duration", "30m"},
      {"nodes",
       Json::array(
           {{{"name", "cp-1"}}, {{"name", "cp-2"}}, {{"name", "cp-3"}}, {{"name", "w1"}}})}};
}

LoadResult load(const Json& doc) { return hasim::load_scenario_text(doc.dump(), "test.json"); }

std::string all_messages(const LoadResult& result) {
  return hasim::format_errors(result.errors, "test.json");
}

// A scenario with a control plane on cp-1..cp-3 (extra keys from `control_plane`) and, if
// given, an upgrade.
LoadResult load_with(Json control_plane, Json upgrade = nullptr) {
  Json doc = base();
  control_plane["nodes"] = {"cp-1", "cp-2", "cp-3"};
  doc["controlPlane"] = std::move(control_plane);
  if (!upgrade.is_null()) doc["upgrade"] = std::move(upgrade);
  return load(doc);
}

LoadResult load_upgrade(Json upgrade) { return load_with(Json::object(), std::move(upgrade)); }

ScenarioError only_error(const LoadResult& result) {
  INFO(all_messages(result));
  REQUIRE(result.errors.size() == 1);
  CHECK_FALSE(result.scenario.has_value());
  return result.errors[0];
}

}  // namespace

TEST_CASE("election modes have names", "[loader-upgrade]") {
  CHECK(hasim::to_string(ElectionMode::lease) == "lease");
  CHECK(hasim::to_string(ElectionMode::coordinated) == "coordinated");
  CHECK(hasim::to_string(ElectionMode::mixed) == "mixed");
}

TEST_CASE("a control plane without the new keys gets upstream's defaults", "[loader-upgrade]") {
  const LoadResult result = load_with(Json::object());
  INFO(all_messages(result));
  REQUIRE(result.scenario);
  const hasim::ControlPlaneSpec& cp = *result.scenario->section<hasim::ControlPlaneSpec>();
  CHECK(cp.version == "1.31.0");
  CHECK(cp.emulationVersion.empty());  // emulates the binary version
  CHECK(cp.election == ElectionMode::lease);
  CHECK_FALSE(cp.coordination.priority);
  CHECK_FALSE(cp.coordination.fallbackAfter.has_value());
  CHECK(cp.coordination.candidateRenewInterval == minutes(5));
  CHECK(cp.coordination.leaseDuration == seconds(15));
  CHECK(cp.coordination.renewDeadline == seconds(10));
  CHECK(cp.coordination.retryPeriod == seconds(2));
  CHECK(result.scenario->section<hasim::UpgradeSpec>() == nullptr);
}

TEST_CASE("every new control-plane and upgrade field is mapped", "[loader-upgrade]") {
  const LoadResult result = load_with({{"version", "1.31.2"},
                                       {"emulationVersion", "1.30.0"},
                                       {"election", "coordinated"},
                                       {"coordination",
                                        {{"strategy", "priority"},
                                         {"fallbackAfter", "45s"},
                                         {"candidateRenewInterval", "1m"},
                                         {"leaseDuration", "5s"},
                                         {"renewDeadline", "3s"},
                                         {"retryPeriod", "1s"}}}},
                                      {{"at", "5m"},
                                       {"to", "1.32.0"},
                                       {"order", {"cp-3", "cp-1", "cp-2"}},
                                       {"downtime", "10s..20s"},
                                       {"gap", {{"dist", "exponential"}, {"mean", "30s"}}},
                                       {"startJitter", "250ms"},
                                       {"canary", "2m"},
                                       {"emulation", true},
                                       {"stop", "terminate"},
                                       {"grace", "10s"}});
  INFO(all_messages(result));
  REQUIRE(result.scenario);
  const hasim::ControlPlaneSpec& cp = *result.scenario->section<hasim::ControlPlaneSpec>();
  CHECK(cp.version == "1.31.2");
  CHECK(cp.emulationVersion == "1.30.0");
  CHECK(cp.election == ElectionMode::coordinated);
  CHECK(cp.coordination.priority);
  CHECK(cp.coordination.fallbackAfter == seconds(45));
  CHECK(cp.coordination.candidateRenewInterval == minutes(1));
  CHECK(cp.coordination.leaseDuration == seconds(5));
  CHECK(cp.coordination.renewDeadline == seconds(3));
  CHECK(cp.coordination.retryPeriod == seconds(1));
  REQUIRE(result.scenario->section<hasim::UpgradeSpec>());
  const UpgradeSpec& u = *result.scenario->section<hasim::UpgradeSpec>();
  CHECK(u.at == minutes(5));
  CHECK(u.to == "1.32.0");
  CHECK(u.order == std::vector<std::string>{"cp-3", "cp-1", "cp-2"});
  CHECK_FALSE(u.randomOrder);
  CHECK(u.downtime == DurationDistribution::uniform(seconds(10), seconds(20)));
  CHECK(u.gap == DurationDistribution::exponential(seconds(30)));
  CHECK(u.startJitter == DurationDistribution::constant(milliseconds(250)));
  CHECK(u.canary == minutes(2));
  CHECK(u.emulation);
  CHECK(u.stop == UpgradeSpec::Stop::terminate);
  CHECK(u.grace == seconds(10));

  // The strategy's other value, and "mixed" with an upgrade.
  const LoadResult oldest =
      load_with({{"election", "mixed"}, {"coordination", {{"strategy", "OldestEmulationVersion"}}}},
                {{"to", "1.30.5"}});
  INFO(all_messages(oldest));
  REQUIRE(oldest.scenario);
  CHECK(oldest.scenario->section<hasim::ControlPlaneSpec>()->election == ElectionMode::mixed);
  CHECK_FALSE(oldest.scenario->section<hasim::ControlPlaneSpec>()->coordination.priority);
  CHECK(oldest.scenario->section<hasim::UpgradeSpec>()->to == "1.30.5");  // a rollback
}

TEST_CASE("an upgrade with only its target gets the documented defaults", "[loader-upgrade]") {
  const LoadResult result = load_upgrade({{"to", "1.32.0"}});
  INFO(all_messages(result));
  REQUIRE(result.scenario);
  REQUIRE(result.scenario->section<hasim::UpgradeSpec>());
  const UpgradeSpec& u = *result.scenario->section<hasim::UpgradeSpec>();
  CHECK(u.at == minutes(2));
  CHECK(u.to == "1.32.0");
  CHECK(u.order.empty());  // controlPlane.nodes order
  CHECK_FALSE(u.randomOrder);
  CHECK(u.downtime == DurationDistribution::uniform(seconds(30), seconds(90)));
  CHECK(u.gap == DurationDistribution::uniform(seconds(30), seconds(60)));
  CHECK(u.startJitter == DurationDistribution::uniform(hasim::Duration{}, seconds(5)));
  CHECK(u.canary == hasim::Duration{});
  CHECK_FALSE(u.emulation);
  CHECK(u.stop == UpgradeSpec::Stop::terminate);
  CHECK(u.grace == seconds(30));

  const LoadResult sequential = load_upgrade({{"to", "1.32.0"}, {"order", "sequential"}});
  REQUIRE(sequential.scenario);
  CHECK(sequential.scenario->section<hasim::UpgradeSpec>()->order.empty());
  CHECK_FALSE(sequential.scenario->section<hasim::UpgradeSpec>()->randomOrder);
  const LoadResult random = load_upgrade({{"to", "1.32.0"}, {"order", "random"}});
  REQUIRE(random.scenario);
  CHECK(random.scenario->section<hasim::UpgradeSpec>()->order.empty());
  CHECK(random.scenario->section<hasim::UpgradeSpec>()->randomOrder);
  const LoadResult power_off = load_upgrade({{"to", "1.32.0"}, {"stop", "power-off"}});
  REQUIRE(power_off.scenario);
  CHECK(power_off.scenario->section<hasim::UpgradeSpec>()->stop == UpgradeSpec::Stop::power_off);
  // Emulation without an explicit emulationVersion: the components start emulating their
  // binary version.
  const LoadResult emulation = load_upgrade({{"to", "1.32.0"}, {"emulation", true}});
  REQUIRE(emulation.scenario);
  CHECK(emulation.scenario->section<hasim::UpgradeSpec>()->emulation);
  CHECK(emulation.scenario->section<hasim::ControlPlaneSpec>()->emulationVersion.empty());
  // The default control plane is every node but the store, so "order" lists all of them.
  Json doc = base();
  doc["controlPlane"] = Json::object();
  doc["upgrade"] = {{"to", "1.32.0"}, {"order", {"w1", "cp-3", "cp-2", "cp-1"}}};
  const LoadResult every = load(doc);
  INFO(all_messages(every));
  REQUIRE(every.scenario);
  CHECK(every.scenario->section<hasim::UpgradeSpec>()->order.size() == 4);
}

TEST_CASE("versions are strict semver, pre-releases included", "[loader-upgrade]") {
  const LoadResult pre = load_with(
      {{"version", "1.32.0-rc.1"}, {"emulationVersion", "1.32.0-alpha.2"}}, {{"to", "1.32.0"}});
  INFO(all_messages(pre));
  REQUIRE(pre.scenario);
  CHECK(pre.scenario->section<hasim::ControlPlaneSpec>()->version == "1.32.0-rc.1");
  CHECK(pre.scenario->section<hasim::ControlPlaneSpec>()->emulationVersion == "1.32.0-alpha.2");
  CHECK(pre.scenario->section<hasim::UpgradeSpec>()->to == "1.32.0");
  CHECK(load_with({{"version", "1.31.0+build.7"}}).scenario.has_value());

  auto e = only_error(load_with({{"emulationVersion", "1.30"}}));
  CHECK(e.path == "$.controlPlane.emulationVersion");
  CHECK_THAT(e.message, Contains("strict semver") && Contains("write \"1.30.0\""));
  e = only_error(load_with({{"emulationVersion", "v1.30.0"}}));
  CHECK_THAT(e.message, Contains("without a leading \"v\"") && Contains("write \"1.30.0\""));
  e = only_error(load_with({{"version", "1.031.0"}}));
  CHECK(e.path == "$.controlPlane.version");
  CHECK_THAT(e.message, Contains("write \"1.31.0\""));
  e = only_error(load_with({{"version", "latest"}}));
  CHECK_THAT(e.message, Contains("expected a Kubernetes version MAJOR.MINOR.PATCH in strict "
                                 "semver") &&
                            Contains("found \"latest\""));
  e = only_error(load_with({{"emulationVersion", ""}}));
  CHECK(e.path == "$.controlPlane.emulationVersion");
  e = only_error(load_with({{"emulationVersion", 1.3}}));
  CHECK_THAT(e.message, Contains("expected a string"));
  e = only_error(load_upgrade({{"to", "1.32"}}));
  CHECK(e.path == "$.upgrade.to");
  CHECK_THAT(e.message, Contains("write \"1.32.0\""));
  e = only_error(load_upgrade({{"to", "1.32.0-rc.01"}}));
  CHECK(e.path == "$.upgrade.to");
}

TEST_CASE("emulationVersion may not exceed the binary version", "[loader-upgrade]") {
  auto e = only_error(load_with({{"version", "1.31.0"}, {"emulationVersion", "1.32.0"}}));
  CHECK(e.path == "$.controlPlane.emulationVersion");
  CHECK_THAT(e.message, Contains("emulationVersion 1.32.0 is newer than the binary version "
                                 "1.31.0") &&
                            Contains("LeaseCandidate validation"));
  e = only_error(load_with({{"emulationVersion", "1.31.1"}}));
  CHECK_THAT(e.message, Contains("1.31.0 (the default \"version\")"));
  // A release is newer than its pre-releases.
  e = only_error(load_with({{"version", "1.32.0-rc.1"}, {"emulationVersion", "1.32.0"}}));
  CHECK(e.path == "$.controlPlane.emulationVersion");
  CHECK(load_with({{"emulationVersion", "1.31.0"}}).scenario.has_value());  // equal is fine
  // A bad version is reported once, not also as a comparison.
  e = only_error(load_with({{"version", "x"}, {"emulationVersion", "1.32.0"}}));
  CHECK(e.path == "$.controlPlane.version");
}

TEST_CASE("the election mode is checked", "[loader-upgrade]") {
  auto e = only_error(load_with({{"election", "leases"}}));
  CHECK(e.path == "$.controlPlane.election");
  CHECK_THAT(e.message, Contains("unknown election mode \"leases\" (did you mean \"lease\"?)") &&
                            Contains("\"coordinated\"") && Contains("\"mixed\""));
  e = only_error(load_with({{"election", true}}));
  CHECK(e.path == "$.controlPlane.election");

  e = only_error(load_with({{"election", "mixed"}}));
  CHECK(e.path == "$.controlPlane.election");
  CHECK_THAT(e.message, Contains("election \"mixed\" needs an \"upgrade\"") &&
                            Contains("the newer of the two versions") &&
                            Contains("\"upgrade\": {\"to\": \"1.32.0\"}"));
  // An upgrade that is present but wrong does not also make "mixed" an error.
  e = only_error(load_with({{"election", "mixed"}}, {{"to", "1.31.0"}}));
  CHECK(e.path == "$.upgrade.to");
}

TEST_CASE("coordination settings are checked", "[loader-upgrade]") {
  const Json coordinated = {{"election", "coordinated"}};
  auto with = [&](Json settings) {
    Json cp = coordinated;
    cp["coordination"] = std::move(settings);
    return load_with(cp);
  };
  const std::string at = "$.controlPlane.coordination";
  auto e = only_error(with({{"strategy", "OldestEmulationVersions"}}));
  CHECK(e.path == at + ".strategy");
  CHECK_THAT(e.message, Contains("(did you mean \"OldestEmulationVersion\"?)") &&
                            Contains("\"priority\"") && Contains("PR #5357"));
  e = only_error(with({{"leaseDurations", "5s"}}));
  CHECK(e.path == at + ".leaseDurations");
  CHECK_THAT(e.message, Contains("unknown key") && Contains("(did you mean \"leaseDuration\"?)"));
  e = only_error(with({{"fallbackAfter", "0s"}}));
  CHECK(e.path == at + ".fallbackAfter");
  e = only_error(with({{"candidateRenewInterval", "0s"}}));
  CHECK(e.path == at + ".candidateRenewInterval");
  CHECK_THAT(e.message, Contains("greater than zero"));

  // client-go's NewLeaderElector rules, as the apiservers' own election applies them.
  e = only_error(with({{"leaseDuration", "10s"}}));
  CHECK(e.path == at + ".leaseDuration");
  CHECK_THAT(e.message, Contains("leaseDuration must be greater than renewDeadline") &&
                            Contains("renewDeadline 10s (the default)") &&
                            Contains("--coordinated-leadership-lease-duration"));
  e = only_error(with({{"renewDeadline", "2s"}}));
  CHECK(e.path == at + ".renewDeadline");
  CHECK_THAT(e.message, Contains("renewDeadline must be greater than retryPeriod*JitterFactor"));
  e = only_error(with({{"leaseDuration", "0s"}, {"renewDeadline", "-2s"}, {"retryPeriod", "-2s"}}));
  CHECK(e.path == at + ".leaseDuration");
  CHECK_THAT(e.message, Contains("must be greater than zero"));
  // The integration test's 5s/3s/1s is valid.
  CHECK(with({{"leaseDuration", "5s"}, {"renewDeadline", "3s"}, {"retryPeriod", "1s"}})
            .scenario.has_value());

  e = only_error(load_with({{"coordination", {{"strategy", "priority"}}}}));
  CHECK(e.path == at);
  CHECK_THAT(e.message, Contains("take effect only with Coordinated Leader Election") &&
                            Contains("\"lease\" (the default)"));
  e = only_error(load_with({{"election", "lease"}, {"coordination", Json::object()}}));
  CHECK_THAT(e.message, Contains("\"election\" is \"lease\";"));
  e = only_error(load_with({{"election", "coordinated"}, {"coordination", "yes"}}));
  CHECK(e.path == at);
  CHECK_THAT(e.message, Contains("expected an object"));
}

TEST_CASE("an upgrade needs a control plane and a different target", "[loader-upgrade]") {
  Json doc = base();
  doc["upgrade"] = {{"to", "1.32.0"}};
  auto e = only_error(load(doc));
  CHECK(e.path == "$.upgrade");
  CHECK_THAT(e.message, Contains("the scenario has no \"controlPlane\"") &&
                            Contains("add \"controlPlane\": {}"));

  e = only_error(load_upgrade(Json::object()));
  CHECK(e.path == "$.upgrade.to");
  CHECK_THAT(e.message, Contains("required key \"to\" is missing"));
  e = only_error(load_upgrade("1.32.0"));
  CHECK(e.path == "$.upgrade");
  CHECK_THAT(e.message, Contains("expected an object"));

  e = only_error(load_upgrade({{"to", "1.31.0"}}));
  CHECK(e.path == "$.upgrade.to");
  CHECK_THAT(e.message, Contains("the version the control plane already runs") &&
                            Contains("e.g. \"1.32.0\"") && Contains("e.g. \"1.30.0\""));
  // Build metadata does not make a version different (semver precedence ignores it).
  e = only_error(load_upgrade({{"to", "1.31.0+rebuild"}}));
  CHECK(e.path == "$.upgrade.to");
  e = only_error(load_with({{"version", "2.0.0"}}, {{"to", "2.0.0"}}));
  CHECK_THAT(e.message, Contains("e.g. \"2.1.0\"") && !Contains("rollback"));

  e = only_error(load_upgrade({{"to", "1.32.0"}, {"too", "1"}}));
  CHECK(e.path == "$.upgrade.too");
  CHECK_THAT(e.message, Contains("(did you mean \"to\"?)"));
  doc = base();
  doc["controlPlane"] = Json::object();
  doc["upgrades"] = {{"to", "1.32.0"}};
  e = only_error(load(doc));
  CHECK(e.path == "$.upgrades");
  CHECK_THAT(e.message, Contains("(did you mean \"upgrade\"?)"));
}

TEST_CASE("the upgrade order is a permutation of the control-plane nodes", "[loader-upgrade]") {
  auto order = [](Json value) { return load_upgrade({{"to", "1.32.0"}, {"order", value}}); };
  auto e = only_error(order(Json{"cp-1", "cp-3"}));
  CHECK(e.path == "$.upgrade.order");
  CHECK_THAT(e.message, Contains("a permutation of the control-plane nodes") &&
                            Contains("leaves out \"cp-2\"") && Contains("add it"));
  e = only_error(order(Json{"cp-1"}));
  CHECK_THAT(e.message, Contains("leaves out \"cp-2\", \"cp-3\"") && Contains("add them"));
  e = only_error(order(Json{"cp-1", "cp-2", "cp-3", "w1"}));
  CHECK(e.path == "$.upgrade.order[3]");
  CHECK_THAT(e.message,
             Contains("node \"w1\" is not a control-plane node") && Contains("cp-1, cp-2, cp-3"));
  e = only_error(order(Json{"cp-1", "cp-2", "cp-4"}));
  CHECK(e.path == "$.upgrade.order[2]");
  CHECK_THAT(e.message, Contains("unknown node \"cp-4\"") && Contains("(did you mean"));
  e = only_error(order(Json{"cp-1", "cp-2", "cp-3", "cp-1"}));
  CHECK(e.path == "$.upgrade.order[3]");
  CHECK_THAT(e.message, Contains("\"cp-1\" is listed twice"));
  e = only_error(order(Json::array()));
  CHECK(e.path == "$.upgrade.order");
  e = only_error(order("sequentail"));
  CHECK(e.path == "$.upgrade.order");
  CHECK_THAT(e.message, Contains("unknown order \"sequentail\" (did you mean \"sequential\"?)") &&
                            Contains("[\"cp-3\", \"cp-1\", \"cp-2\"]"));
  e = only_error(order(3));
  CHECK_THAT(e.message, Contains("expected \"sequential\", \"random\" or a list"));
}

TEST_CASE("upgrade timings, stop and emulation are checked", "[loader-upgrade]") {
  auto with = [](Json extra) {
    Json upgrade = {{"to", "1.32.0"}};
    upgrade.update(extra);
    return load_upgrade(upgrade);
  };
  auto e = only_error(with({{"stop", "poweroff"}}));
  CHECK(e.path == "$.upgrade.stop");
  CHECK_THAT(e.message, Contains("unknown stop \"poweroff\" (did you mean \"power-off\"?)") &&
                            Contains("\"terminate\""));
  e = only_error(with({{"stop", "power-off"}, {"grace", "5s"}}));
  CHECK(e.path == "$.upgrade.grace");
  CHECK_THAT(e.message, Contains("does not apply when \"stop\" is \"power-off\""));
  e = only_error(with({{"grace", "-1s"}}));
  CHECK(e.path == "$.upgrade.grace");
  e = only_error(with({{"canary", "-1m"}}));
  CHECK(e.path == "$.upgrade.canary");
  e = only_error(with({{"downtime", "-1s"}}));
  CHECK(e.path == "$.upgrade.downtime");
  e = only_error(with({{"gap", {{"dist", "uniform"}, {"min", "1m"}}}}));
  CHECK(e.path == "$.upgrade.gap.max");
  e = only_error(with({{"startJitter", 5}}));
  CHECK(e.path == "$.upgrade.startJitter");
  e = only_error(with({{"emulation", "yes"}}));
  CHECK(e.path == "$.upgrade.emulation");
  CHECK_THAT(e.message, Contains("expected true or false"));

  e = only_error(with({{"at", "30m"}}));
  CHECK(e.path == "$.upgrade.at");
  CHECK_THAT(e.message, Contains("the upgrade starts at 30m, after the run ends at 30m"));
  e = only_error(with({{"at", "-1s"}}));
  CHECK(e.path == "$.upgrade.at");
  Json doc = base();
  doc["duration"] = "1m";
  doc["controlPlane"] = Json::object();
  doc["upgrade"] = {{"to", "1.32.0"}};
  e = only_error(load(doc));
  CHECK(e.path == "$.upgrade");
  CHECK_THAT(e.message, Contains("2m (the default \"at\")"));
}

TEST_CASE("every new mistake in a file is reported in one pass", "[loader-upgrade]") {
  const LoadResult result = load_with({{"emulationVersion", "1.40.0"}, {"election", "mixd"}},
                                      {{"to", "v1.32.0"}, {"order", {"cp-1"}}, {"stop", "halt"}});
  const std::string text = all_messages(result);
  INFO(text);
  CHECK_FALSE(result.scenario.has_value());
  CHECK(result.errors.size() == 5);
  CHECK_THAT(text, Contains("$.controlPlane.emulationVersion:") &&
                       Contains("$.controlPlane.election:") && Contains("$.upgrade.to:") &&
                       Contains("$.upgrade.order:") && Contains("$.upgrade.stop:"));
}
