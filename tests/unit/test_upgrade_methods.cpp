// The kubeadm and replace upgrade methods (models/cluster/upgrade_methods.hpp): their
// decisions by hand, then their sequencing in the scenarios of scenarios/upgrade/: kubeadm
// replaces etcd (skipped), kube-apiserver, kube-controller-manager, kube-scheduler in that
// order and each only after the one before runs its new version, the kubelet last; replace
// has four kube-apiservers serving before it deletes an old machine.
#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <map>
#include <string>
#include <vector>

#include "models/apiserver/trace_kinds.hpp"
#include "models/cluster/trace_kinds.hpp"
#include "models/cluster/upgrade_methods.hpp"
#include "properties/fault_space.hpp"
#include "properties/run.hpp"
#include "reports/upgrade_report.hpp"
#include "scenarios/loader.hpp"
#include "sim/trace_kinds.hpp"

using namespace hasim;
using Catch::Matchers::Contains;

namespace {

struct Seen {
  TrueTime t;
  std::string node;
  std::string proc;
  std::string kind;
  std::string component;
  std::string version;
};

// Keeps the upgrade's own events and every process start and stop.
class Recorder final : public TraceObserver {
 public:
  bool wants(std::string_view kind) const override { return kind != trace_kind::kRecv; }
  void on_event(const TraceEvent& e) override {
    const bool upgrade = e.kind.starts_with("upgrade-");
    const bool lifecycle = e.kind == api::trace_kind::kComponentStart ||
                           e.kind == trace_kind::kExit || e.kind == trace_kind::kCrash;
    if (!upgrade && !lifecycle) return;
    seen.push_back(Seen{e.t, std::string(e.node), std::string(e.proc), std::string(e.kind),
                        std::string(e.string_field("component")),
                        std::string(e.string_field("version"))});
  }
  std::vector<Seen> seen;
};

std::vector<Seen> run_recorded(const std::string& name) {
  const std::string path = std::string(HASIM_SOURCE_DIR) + "/scenarios/upgrade/" + name;
  LoadResult load = load_scenario_file(path);
  INFO(format_errors(load.errors, path));
  REQUIRE(load.scenario.has_value());
  auto recorder = std::make_shared<Recorder>();
  RunOptions options;
  options.hook = [recorder](World& world) { world.trace().add_observer(recorder.get()); };
  const auto result = run_scenario(*load.scenario, options);
  REQUIRE(result.has_value());
  REQUIRE(result->stats.status == RunStatus::completed);
  return recorder->seen;
}

std::string error_of(const std::string& upgrade, const std::string& control_plane = "{}") {
  const std::string text = R"({"name": "t", "duration": "10m", "nodes": 3, "controlPlane": )" +
                           control_plane + R"(, "upgrade": )" + upgrade + "}";
  const LoadResult load = load_scenario_text(text, "t.json");
  REQUIRE(!load.errors.empty());
  return load.errors.front().path + ": " + load.errors.front().message;
}

}  // namespace

TEST_CASE("kubeadm upgrades etcd, then the apiserver, KCM and scheduler", "[upgrade][methods]") {
  std::vector<std::string> order;
  for (const cluster::KubeadmStep& step : cluster::kubeadm_steps()) order.push_back(step.component);
  CHECK(order == std::vector<std::string>{"etcd", "kube-apiserver", "kube-controller-manager",
                                          "kube-scheduler"});
  CHECK(cluster::kubeadm_steps().front().external);  // hasim's store is an external etcd
  // The old pod is healthy right after its manifest moved: the hash must change first.
  CHECK_FALSE(cluster::kubeadm_component_upgraded(false, true));
  CHECK_FALSE(cluster::kubeadm_component_upgraded(true, false));
  CHECK(cluster::kubeadm_component_upgraded(true, true));
}

TEST_CASE("KCP scales down the oldest outdated machine of the fullest failure domain",
          "[upgrade][methods]") {
  using cluster::Machine;
  CHECK_FALSE(cluster::select_machine_for_scale_down({}).has_value());
  // cp-1..3 in a, b, c; cp-4 (new) joined in a: domain a has two machines, cp-1 is outdated.
  std::vector<Machine> machines{{"cp-1", "a", 0, true},
                                {"cp-2", "b", 1, true},
                                {"cp-3", "c", 2, true},
                                {"cp-4", "a", 3, false}};
  CHECK(cluster::select_machine_for_scale_down(machines) == 0u);
  // Balanced domains: the first name, then the oldest outdated machine in it.
  machines = {{"cp-2", "b", 1, true}, {"cp-3", "c", 2, true}, {"cp-4", "a", 3, false}};
  CHECK(cluster::select_machine_for_scale_down(machines) == 0u);
  // No zones: the oldest outdated machine; never an up-to-date one while one is outdated.
  machines = {{"x", "", 5, false}, {"y", "", 2, true}, {"z", "", 1, true}};
  CHECK(cluster::select_machine_for_scale_down(machines) == 2u);
  // Nothing outdated: every machine is eligible, the oldest goes.
  machines = {{"x", "", 5, false}, {"y", "", 2, false}};
  CHECK(cluster::select_machine_for_scale_down(machines) == 1u);
}

TEST_CASE("replacement machines continue the control plane's numbering", "[upgrade][methods]") {
  CHECK(cluster::replacement_nodes({"cp-1", "cp-2", "cp-3"}, {"store"}) ==
        std::vector<std::string>{"cp-4", "cp-5", "cp-6"});
  CHECK(cluster::replacement_nodes({"cp-1", "cp-2"}, {"cp-3", "store"}) ==
        std::vector<std::string>{"cp-4", "cp-5"});
  CHECK(cluster::replacement_nodes({"alpha", "beta"}, {}) ==
        std::vector<std::string>{"replacement-1", "replacement-2"});
}

TEST_CASE("kubeadm restarts one static pod at a time in kubeadm's order", "[upgrade][methods]") {
  for (const char* name : {"kubeadm-lease-upgrade-3.json", "kubeadm-coordinated-upgrade-3.json"}) {
    SECTION(name) {
      const std::vector<Seen> seen = run_recorded(name);
      std::map<std::string, std::vector<std::string>> moved;  // per node, in order
      std::vector<std::string> nodes;                         // in upgrade order
      std::string waiting;  // "node/component" whose new pod has not started yet
      bool done = false;
      for (const Seen& e : seen) {
        if (e.kind == cluster::trace_kind::kUpgradeComponent) {
          INFO(e.node << " " << e.component << " while " << waiting << " has not started");
          CHECK(waiting.empty());  // the previous component runs its new version
          if (moved[e.node].empty()) nodes.push_back(e.node);
          moved[e.node].push_back(e.component);
          if (e.component != "etcd") waiting = e.node + "/" + e.component;
        } else if (e.kind == api::trace_kind::kComponentStart && e.version == "1.32.0") {
          if (e.node + "/" + e.proc == waiting) waiting.clear();
        } else if (e.kind == cluster::trace_kind::kUpgradeDrain) {
          CHECK(waiting.empty());
          CHECK(moved[e.node].size() == 4);  // the kubelet last
        } else if (e.kind == cluster::trace_kind::kUpgradeDone) {
          done = true;
        }
      }
      CHECK(done);
      CHECK(nodes == std::vector<std::string>{"cp-1", "cp-2", "cp-3"});
      for (const auto& [node, components] : moved) {
        INFO(node);
        CHECK(components == std::vector<std::string>{"etcd", "kube-apiserver",
                                                     "kube-controller-manager", "kube-scheduler"});
      }
    }
  }
}

TEST_CASE("replace serves four apiservers before each old machine goes", "[upgrade][methods]") {
  for (const char* name : {"replace-lease-upgrade-3.json", "replace-coordinated-upgrade-3.json"}) {
    SECTION(name) {
      const std::vector<Seen> seen = run_recorded(name);
      std::map<std::string, std::string> serving;  // apiserver process -> version
      std::size_t most = 0;
      std::vector<std::string> created, deleted;
      bool upgrading = false;
      for (const Seen& e : seen) {
        const std::string process = e.node + "/" + e.proc;
        if (e.kind == api::trace_kind::kComponentStart && e.component == "kube-apiserver") {
          serving[process] = e.version;
        } else if ((e.kind == trace_kind::kExit || e.kind == trace_kind::kCrash) &&
                   serving.erase(process) > 0 && upgrading) {
          CHECK(serving.size() >= 3);  // maxSurge 1: never below the desired replicas
        } else if (e.kind == cluster::trace_kind::kUpgradeMachineCreate) {
          upgrading = true;
          created.push_back(e.node);
        } else if (e.kind == cluster::trace_kind::kUpgradeMachineDelete) {
          INFO("deleting " << e.node << " at t=" << e.t.ns);
          CHECK(serving.size() == 4);  // the new machine joined and serves first
          deleted.push_back(e.node);
        }
        most = std::max(most, serving.size());
      }
      CHECK(most == 4);
      CHECK(created == std::vector<std::string>{"cp-4", "cp-5", "cp-6"});
      CHECK(deleted == std::vector<std::string>{"cp-1", "cp-2", "cp-3"});
      REQUIRE(serving.size() == 3);
      for (const auto& [process, version] : serving) CHECK(version == "1.32.0");
    }
  }
}

TEST_CASE("the upgrade method is checked with the key and the fix named", "[upgrade][methods]") {
  CHECK_THAT(error_of(R"({"to": "1.32.0", "method": "kubeadmm"})"),
             Contains("$.upgrade.method") && Contains("did you mean \"kubeadm\"") &&
                 Contains("\"replace\""));
  CHECK_THAT(error_of(R"({"to": "1.32.0", "method": "replace", "order": "random"})"),
             Contains("$.upgrade.order") && Contains("does not apply to \"method\": \"replace\""));
  CHECK_THAT(error_of(R"({"to": "1.32.0", "method": "replace", "downtime": "1m"})"),
             Contains("$.upgrade.downtime") && Contains("\"provision\""));
  CHECK_THAT(error_of(R"({"to": "1.32.0", "method": "kubeadm", "stop": "power-off"})"),
             Contains("$.upgrade.stop") && Contains("never powers a node off"));
  CHECK_THAT(error_of(R"({"to": "1.32.0", "provision": "1m"})"),
             Contains("$.upgrade.provision") && Contains("only \"replace\""));
  CHECK_THAT(error_of(R"({"to": "1.32.0", "method": "kubeadm", "emulation": true})"),
             Contains("$.upgrade.emulation"));
  CHECK_THAT(error_of(R"({"to": "1.32.0", "method": "replace"})", R"({"access": "loadBalancer"})"),
             Contains("$.upgrade.method") && Contains("loadBalancer"));
  // A replace adds its machines as nodes, powered off until created.
  const LoadResult load = load_scenario_text(
      R"({"name": "t", "duration": "10m", "nodes": 3, "controlPlane": {},
          "upgrade": {"to": "1.32.0", "method": "replace"}})",
      "t.json");
  INFO(format_errors(load.errors, "t.json"));
  REQUIRE(load.scenario.has_value());
  std::vector<std::string> down;
  for (const NodeSpec& node : load.scenario->nodes) {
    if (!node.up_at_start) down.push_back(node.name);
  }
  CHECK(down == std::vector<std::string>{"n4", "n5", "n6"});
}

TEST_CASE("upgrade-skew takes the method as its innermost dimension", "[upgrade][methods]") {
  // The default grid is the node method's alone, named as before methods existed.
  for (const UpgradeCell& cell : default_upgrade_cells()) {
    CHECK(cell.method == UpgradeSpec::Method::node);
  }
  CHECK(describe(default_upgrade_cells().front()) == "lease/upgrade/3");
  const auto cells =
      upgrade_grid({ElectionMode::lease}, {UpgradeDirection::upgrade}, {3},
                   {UpgradeSpec::Method::replace, UpgradeSpec::Method::node});
  REQUIRE(cells.size() == 2);
  CHECK(describe(cells[0]) == "lease/upgrade/3");
  CHECK(describe(cells[1]) == "lease/upgrade/3/replace");
  CHECK(mode_label(cells[1]) == "lease (replace)");
  // A replace cell's scenario has the new machines, powered off, and names them.
  const Scenario scenario = upgrade_scenario(UpgradeSettings{}, cells[1]);
  CHECK(scenario.section<UpgradeSpec>()->replacements ==
        std::vector<std::string>{"cp-4", "cp-5", "cp-6"});
  std::size_t down = 0;
  for (const NodeSpec& node : scenario.nodes) down += node.up_at_start ? 0 : 1;
  CHECK(down == 3);
  UpgradeOptions options;
  options.cells = cells;
  CHECK_THAT(upgrade_reproduce_command(options), Contains("--methods node,replace"));
  options.cells = default_upgrade_cells();
  CHECK_THAT(upgrade_reproduce_command(options), !Contains("--methods"));
}

TEST_CASE("hasim check keeps to rollout-capacity's assumption", "[upgrade][methods]") {
  const std::string path =
      std::string(HASIM_SOURCE_DIR) + "/scenarios/upgrade/replace-lease-upgrade-3.json";
  LoadResult load = load_scenario_file(path);
  REQUIRE(load.scenario.has_value());
  auto has = [](const std::vector<std::string>& list, const std::string& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
  };
  const FaultSpace within = fault_space(*load.scenario, true);
  CHECK_FALSE(has(within.applicable, "crash"));  // it would stop an apiserver mid-rollout
  CHECK_FALSE(has(within.applicable, "node-down"));
  CHECK(has(within.applicable, "partition-isolate"));
  CHECK_FALSE(has(within.hosts, "cp-4"));  // not created yet: nothing of it is drawn
  CHECK(has(within.hosts, "cp-1"));
  const FaultSpace beyond = fault_space(*load.scenario, false);
  CHECK(has(beyond.applicable, "crash"));
  // A scenario that crashes an apiserver says which assumption it breaks.
  FaultSpec crash;
  crash.kind = "crash";
  crash.at = minutes(3);
  crash.targets = {"cp-2/kube-apiserver"};
  load.scenario->faults.push_back(crash);
  const auto broken = broken_assumptions(*load.scenario);
  REQUIRE(broken.size() == 1);
  CHECK_THAT(broken.front(), Contains("rollout-capacity assumes no fault does"));
}

// RapidCheck, as tests/unit/test_upgrade_properties.cpp does for the node method: with no
// fault but the upgrade, whatever the timings, sizes, orders and election modes, kubeadm and
// replace upgrades keep the version-skew policy (a controller only ever talks to its own
// node's apiserver, which is never older), replace never serves fewer apiservers than it
// started with, and every upgrade ends with both leases led.
TEST_CASE("kubeadm and replace upgrades keep skew-policy for arbitrary timings",
          "[upgrade][methods][property]") {
  rc::prop("an upgrade by kubeadm or replace never breaks skew-policy or rollout-capacity", [] {
    UpgradeSettings settings;
    UpgradeCell cell;
    cell.mode = *rc::gen::element(ElectionMode::lease, ElectionMode::coordinated,
                                  ElectionMode::mixed);
    cell.nodes = *rc::gen::element(1, 3, 5);
    cell.method = *rc::gen::element(UpgradeSpec::Method::kubeadm, UpgradeSpec::Method::replace);
    const auto range = [](std::int64_t low, std::int64_t high) {
      const std::int64_t a = *rc::gen::inRange<std::int64_t>(low, high + 1);
      const std::int64_t b = *rc::gen::inRange<std::int64_t>(a, high + 1);
      return DurationDistribution::uniform(seconds(a), seconds(b));
    };
    settings.upgrade.downtime = range(1, 120);
    settings.upgrade.gap = range(0, 90);
    settings.upgrade.startJitter = range(0, 30);
    settings.upgrade.canary = seconds(*rc::gen::inRange<std::int64_t>(0, 120));
    settings.upgrade.randomOrder = cell.method == UpgradeSpec::Method::kubeadm &&
                                   *rc::gen::arbitrary<bool>();
    Scenario scenario = upgrade_scenario(settings, cell);
    scenario.seed = *rc::gen::inRange<std::uint64_t>(1, 1'000'000'000);
    scenario.properties = {"skew-policy", "rollout-capacity", "single-leader"};
    const auto result = run_scenario(scenario, {});
    RC_ASSERT(result.has_value());
    for (const auto& violation : result->violations) {
      if (violation) RC_FAIL(violation->detail);
    }
    RC_ASSERT(run_upgrade_trial(scenario, scenario.seed).leaders_at_end);
  });
}
