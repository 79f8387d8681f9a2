// The load balancer's backend health (models/apiserver/load_balancer.hpp): haproxy's fall and
// rise, cross-checked against a naive reading of the check history; and how a scenario asks
// for it (controlPlane.loadBalancerHealthCheck), each mistake reported at its path.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <string>
#include <vector>

#include "models/apiserver/load_balancer.hpp"
#include "scenarios/control_plane/spec.hpp"
#include "scenarios/loader.hpp"

using Catch::Matchers::Contains;
using hasim::api::HealthCheckConfig;
using hasim::api::LoadBalancerHealth;

namespace {

// Naive: the state after `checks` is found by looking back at windows of the history. A
// backend that is up goes down at the first check that ends `fall` failures in a row counted
// since it last came up; one that is down comes up at the first check that ends `rise`
// passes in a row counted since it went down.
bool naive_up(const std::vector<bool>& checks, int fall, int rise) {
  bool up = true;
  std::size_t since = 0;  // the first check after the last change
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const std::size_t need = static_cast<std::size_t>(up ? fall : rise);
    if (i + 1 < since + need) continue;
    bool all = true;
    for (std::size_t j = i + 1 - need; j <= i; ++j) all = all && checks[j] != up;
    if (all) {
      up = !up;
      since = i + 1;
    }
  }
  return up;
}

hasim::LoadResult load_cp(hasim::Json control_plane) {
  hasim::Json doc{{"name", "t"},
                  {"duration", "1m"},
                  {"nodes", hasim::Json::array({{{"name", "cp-1"}}, {{"name", "cp-2"}}})}};
  control_plane["nodes"] = {"cp-1", "cp-2"};
  doc["controlPlane"] = std::move(control_plane);
  return hasim::load_scenario_text(doc.dump(), "test.json");
}

}  // namespace

TEST_CASE("load balancer: down after fall failed checks in a row, up after rise passed",
          "[load-balancer]") {
  LoadBalancerHealth health({"cp-1/kube-apiserver", "cp-2/kube-apiserver"}, HealthCheckConfig{});
  CHECK(health.up(0));
  CHECK_FALSE(health.observe(0, false).has_value());
  CHECK_FALSE(health.observe(0, false).has_value());
  CHECK_FALSE(health.observe(0, true).has_value());  // a pass breaks the run
  CHECK_FALSE(health.observe(0, false).has_value());
  CHECK_FALSE(health.observe(0, false).has_value());
  CHECK(health.observe(0, false) == std::optional<bool>{false});
  CHECK_FALSE(health.up(0));
  CHECK(health.up(1));
  CHECK_FALSE(health.observe(0, true).has_value());
  CHECK(health.observe(0, true) == std::optional<bool>{true});
  CHECK(health.up(0));
  CHECK(health.find("cp-2/kube-apiserver") == std::optional<std::size_t>{1});
  CHECK_FALSE(health.find("cp-9/kube-apiserver").has_value());
}

TEST_CASE("load balancer: the streak unit agrees with the naive history reading",
          "[load-balancer]") {
  rc::prop("observe() == naive_up()", [](const std::vector<bool>& checks) {
    const int fall = *rc::gen::inRange(1, 5);
    const int rise = *rc::gen::inRange(1, 5);
    LoadBalancerHealth health({"b"}, HealthCheckConfig{hasim::seconds(2), fall, rise});
    std::vector<bool> seen;
    for (bool passed : checks) {
      const bool before = health.up(0);
      const auto changed = health.observe(0, passed);
      seen.push_back(passed);
      RC_ASSERT(health.up(0) == naive_up(seen, fall, rise));
      RC_ASSERT(changed.has_value() == (health.up(0) != before));
    }
  });
}

TEST_CASE("load balancer health check: read from controlPlane, refused without a balancer",
          "[load-balancer]") {
  auto ok = load_cp({{"access", "loadBalancer"},
                     {"loadBalancerHealthCheck", {{"interval", "5s"}, {"fall", 2}, {"rise", 4}}}});
  REQUIRE(ok.scenario.has_value());
  const auto& h = ok.scenario->section<hasim::ControlPlaneSpec>()->loadBalancerHealthCheck;
  CHECK(h.enabled);
  CHECK(h.interval == hasim::seconds(5));
  CHECK(h.fall == 2);
  CHECK(h.rise == 4);

  auto local = load_cp({{"loadBalancerHealthCheck", {{"enabled", false}}}});
  REQUIRE(local.errors.size() == 1);
  CHECK(local.errors[0].path == "$.controlPlane.loadBalancerHealthCheck");
  CHECK_THAT(local.errors[0].message, Contains("needs \"access\": \"loadBalancer\""));

  auto zero = load_cp({{"access", "loadBalancer"}, {"loadBalancerHealthCheck", {{"fall", 0}}}});
  REQUIRE(zero.errors.size() == 1);
  CHECK(zero.errors[0].path == "$.controlPlane.loadBalancerHealthCheck.fall");

  auto typo = load_cp({{"access", "loadBalancer"}, {"loadBalancerHealthCheck", {{"inter", "2s"}}}});
  REQUIRE(typo.errors.size() == 1);
  CHECK_THAT(typo.errors[0].message, Contains("interval"));
}
