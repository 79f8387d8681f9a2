// Every scenario in scenarios/upgrade/ gives its expected no-skew and skew-policy verdicts, and a
// violation's explanation says which leader was too new, which apiserver was older, and how the
// leader was elected.
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>

#include "scenarios/loader.hpp"
#include "properties/run.hpp"

using namespace hasim;

namespace {

struct Expected {
  bool no_skew_holds;
  const char* detail;  // a fragment the no-skew explanation must contain, if violated
  bool skew_policy_holds = true;
};

const std::map<std::string, Expected>& expected() {
  static const std::map<std::string, Expected> table{
      {"lease-upgrade-3.json", {false, "acquired the Lease itself (lease-based election)"}},
      {"lease-rollback-3.json", {false, "at 1.31.0"}},
      {"coordinated-upgrade-3.json", {true, ""}},
      {"coordinated-rollback-3.json", {false, "elected by the election controller"}},
      {"coordinated-emulation-3.json", {true, ""}},
      {"coordinated-load-balancer-3.json", {true, "", false}},
      {"coordinated-emulation-rollback-3.json", {false, "elected by the election controller"}},
      {"coordinated-priority-3.json", {true, ""}},
      {"mixed-upgrade-3.json", {false, "elected by the election controller"}},
      {"coordinated-old-node-crash-3.json", {false, "took over the expired Lease"}},
      // The kubeadm and replace methods: a controller never talks to an older apiserver
      // (skew-policy holds), but the lease race of KEP-4355 remains (no-skew).
      {"kubeadm-lease-upgrade-3.json", {false, "acquired the Lease itself"}},
      {"kubeadm-coordinated-upgrade-3.json", {true, ""}},
      {"replace-lease-upgrade-3.json", {false, "acquired the Lease itself"}},
      {"replace-coordinated-upgrade-3.json", {true, ""}},
      // A lock migration (upgradeLock): no no-skew property; everything else holds.
      {"lock-migration-3.json", {true, ""}},
      // The election controller's reconcile exactly at a Lease's expiry: no no-skew property.
      {"coordinated-expiry-boundary-3.json", {true, ""}},
      // Over a stacked etcd, cp-3's member leads raft, so cp-3's controllers win the first
      // election, and cp-3 is upgraded last: the leases move only when no old apiserver serves.
      {"stacked-etcd-node-by-node.json", {true, ""}},
  };
  return table;
}

}  // namespace

TEST_CASE("every upgrade scenario has an expected verdict", "[upgrade][scenario]") {
  const auto dir = std::filesystem::path(HASIM_SOURCE_DIR) / "scenarios/upgrade";
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;  // NAME.golden: test_golden.cpp
    INFO(entry.path().filename().string());
    CHECK(expected().contains(entry.path().filename().string()));
    ++files;
  }
  CHECK(files == expected().size());
}

TEST_CASE("upgrade scenarios give their expected verdicts", "[upgrade][scenario][scenario-rerun]") {
  for (const auto& [name, want] : expected()) {
    SECTION(name) {
      const std::string path = std::string(HASIM_SOURCE_DIR) + "/scenarios/upgrade/" + name;
      LoadResult load = load_scenario_file(path);
      INFO(format_errors(load.errors, path));
      REQUIRE(load.scenario.has_value());
      const auto result = run_scenario(*load.scenario, {});
      REQUIRE(result.has_value());
      REQUIRE(result->stats.status == RunStatus::completed);
      for (std::size_t i = 0; i < result->property_specs.size(); ++i) {
        const std::string& spec = result->property_specs[i];
        const auto& violation = result->violations[i];
        INFO(spec << ": " << (violation ? violation->detail : "held"));
        if (spec == "skew-policy") {
          CHECK(violation.has_value() != want.skew_policy_holds);
          continue;
        }
        if (spec != "no-skew") {
          CHECK(!violation.has_value());  // single-leader and eventually-leader hold throughout
          continue;
        }
        CHECK(violation.has_value() != want.no_skew_holds);
        if (violation) {
          CHECK(violation->detail.find(want.detail) != std::string::npos);
          CHECK(violation->detail.find("still serving") != std::string::npos);
        }
      }
    }
  }
}
