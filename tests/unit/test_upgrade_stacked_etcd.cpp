// Upgrades over a stacked etcd (issue 13 part 3): each node's etcd member is a static pod of
// its node. The node method stops it with the node's other components and starts it first
// when the node is back; kubeadm upgrades it first on each node and goes on only once every
// member answers again (performEtcdStaticPodUpgrade's WaitForClusterAvailable). Over the
// ideal store the plan is the one it always was.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "models/cluster/trace_kinds.hpp"
#include "models/cluster/upgrade_plan.hpp"
#include "properties/run.hpp"
#include "reports/upgrade_report.hpp"
#include "scenarios/loader.hpp"
#include "sim/trace_kinds.hpp"

using namespace hasim;

namespace {

struct Seen {
  TrueTime t;
  std::string node;
  std::string proc;
  std::string kind;
  std::string component;
};

// The upgrade's own events and every process start, exit and crash.
class Recorder final : public TraceObserver {
 public:
  bool wants(std::string_view kind) const override {
    return kind.starts_with("upgrade-") || kind == trace_kind::kStart ||
           kind == trace_kind::kExit || kind == trace_kind::kCrash;
  }
  void on_event(const TraceEvent& e) override {
    if (!wants(e.kind)) return;
    seen.push_back(Seen{e.t, std::string(e.node), std::string(e.proc), std::string(e.kind),
                        std::string(e.string_field("component"))});
  }
  std::vector<Seen> seen;
};

struct Recorded {
  std::vector<Seen> seen;
  RunResult result;
};

Recorded run_recorded(const LoadResult& load, const std::string& where) {
  INFO(format_errors(load.errors, where));
  REQUIRE(load.scenario.has_value());
  auto recorder = std::make_shared<Recorder>();
  RunOptions options;
  options.hook = [recorder](World& world) { world.trace().add_observer(recorder.get()); };
  auto result = run_scenario(*load.scenario, options);
  REQUIRE(result.has_value());
  REQUIRE(result->stats.status == RunStatus::completed);
  return {recorder->seen, std::move(*result)};
}

// A stacked 3-node control plane upgraded with `method`.
std::string stacked_text(const std::string& method) {
  return R"({"name": "t", "seed": 3, "duration": "14m",
             "nodes": [{"name": "cp-1", "zone": "a"}, {"name": "cp-2", "zone": "b"},
                       {"name": "cp-3", "zone": "c"}],
             "network": {"latency": {"dist": "lognormal", "median": "1ms", "p99": "10ms"}},
             "controlPlane": {"version": "1.31.0", "election": "lease"},
             "etcd": {"members": ["cp-1", "cp-2", "cp-3"]},
             "upgrade": {"at": "1m", "to": "1.32.0", "method": ")" +
         method + R"("},
             "properties": ["raft-safety", "skew-policy", "single-leader"]})";
}

}  // namespace

TEST_CASE("a stacked etcd member starts first when its node is back, without a draw",
          "[upgrade][etcd]") {
  UpgradeSpec spec;
  spec.to = "1.32.0";
  const std::vector<std::string> nodes{"cp-1", "cp-2", "cp-3"};
  Rng a(7), b(7);
  const auto plain = cluster::plan_upgrade(spec, nodes, "1.31.0", "1.31.0", false, a);
  const auto stacked = cluster::plan_upgrade(spec, nodes, "1.31.0", "1.31.0", false, b, true);
  // One more action per node: etcd's start, at the instant the node is back.
  REQUIRE(stacked.size() == plain.size() + nodes.size());
  std::vector<cluster::UpgradeAction> others;
  std::map<std::string, TrueTime> up;
  for (const cluster::UpgradeAction& action : stacked) {
    if (action.kind == cluster::UpgradeAction::Kind::node_up) up[action.node] = action.at;
    if (action.component == "etcd") {
      INFO(action.node);
      CHECK(action.at == up.at(action.node));  // right after its node_up, before the others
      continue;
    }
    if (action.kind == cluster::UpgradeAction::Kind::start_component) {
      CHECK(action.at >= up.at(action.node));
    }
    others.push_back(action);
  }
  // Every other action is the plan without etcd, to the nanosecond: the same draws.
  REQUIRE(others.size() == plain.size());
  for (std::size_t i = 0; i < plain.size(); ++i) {
    CHECK(others[i].at == plain[i].at);
    CHECK(others[i].component == plain[i].component);
  }
  CHECK(cluster::upgraded_static_pods(false) == cluster::control_plane_components());
  CHECK(cluster::upgraded_static_pods(true).front() == "etcd");
}

TEST_CASE("the node method stops a stacked member with its node and starts it first",
          "[upgrade][etcd]") {
  const std::string path =
      std::string(HASIM_SOURCE_DIR) + "/scenarios/upgrade/stacked-etcd-node-by-node.json";
  const Recorded run = run_recorded(load_scenario_file(path), path);
  std::map<std::string, int> stops, etcd_starts;
  std::string down;  // the node the upgrade has stopped and not yet brought back
  bool etcd_first = false;
  for (const Seen& e : run.seen) {
    if (e.kind == cluster::trace_kind::kUpgradeStop) {
      ++stops[e.node];
      down = e.node;
    } else if (e.kind == trace_kind::kExit && e.proc == "etcd") {
      CHECK(e.node == down);  // SIGTERM with the others
    } else if (e.kind == cluster::trace_kind::kUpgradeNodeUp) {
      etcd_first = true;
    } else if (e.kind == trace_kind::kStart && e.node == down && etcd_first) {
      INFO(e.node << " started " << e.proc << " before its etcd member");
      CHECK(e.proc == "etcd");
      ++etcd_starts[e.node];
      etcd_first = false;
    }
  }
  CHECK(stops == std::map<std::string, int>{{"cp-1", 1}, {"cp-2", 1}, {"cp-3", 1}});
  CHECK(etcd_starts == std::map<std::string, int>{{"cp-1", 1}, {"cp-2", 1}, {"cp-3", 1}});
  for (std::size_t i = 0; i < run.result.property_specs.size(); ++i) {
    INFO(run.result.property_specs[i]);
    if (run.result.property_specs[i] == "raft-safety") CHECK(!run.result.violations[i]);
  }
}

TEST_CASE("kubeadm upgrades a stacked member first and waits for the cluster", "[upgrade][etcd]") {
  const Recorded run = run_recorded(load_scenario_text(stacked_text("kubeadm"), "t.json"), "t");
  std::map<std::string, std::vector<std::string>> moved, ready;
  bool etcd_restarted = false;
  bool done = false;
  for (const Seen& e : run.seen) {
    if (e.kind == cluster::trace_kind::kUpgradeComponent) {
      moved[e.node].push_back(e.component);
      etcd_restarted = false;
    } else if (e.kind == trace_kind::kStart && e.proc == "etcd") {
      etcd_restarted = true;
    } else if (e.kind == cluster::trace_kind::kUpgradeComponentReady) {
      if (e.component == "etcd") CHECK(etcd_restarted);  // the new pod, not the old one
      ready[e.node].push_back(e.component);
    } else if (e.kind == cluster::trace_kind::kUpgradeDone) {
      done = true;
    }
    CHECK(e.kind != cluster::trace_kind::kUpgradeFailed);
  }
  CHECK(done);
  const std::vector<std::string> order{"etcd", "kube-apiserver", "kube-controller-manager",
                                       "kube-scheduler"};
  for (const std::string node : {"cp-1", "cp-2", "cp-3"}) {
    INFO(node);
    CHECK(moved[node] == order);
    CHECK(ready[node] == order);
  }
  CHECK(run.result.all_held());
}

TEST_CASE("stacked-etcd cells of upgrade-skew come after every ideal cell", "[upgrade-report]") {
  using M = UpgradeSpec::Method;
  const std::vector<ElectionMode> modes{ElectionMode::lease, ElectionMode::coordinated};
  const std::vector<UpgradeDirection> up{UpgradeDirection::upgrade};
  const auto ideal = upgrade_grid(modes, up, {3}, {M::node, M::kubeadm});
  const auto both = upgrade_grid(modes, up, {3}, {M::node, M::kubeadm},
                                 {UpgradeStore::stacked, UpgradeStore::ideal});
  // The ideal cells keep their places, hence their trials' seeds and figures.
  REQUIRE(both.size() == 2 * ideal.size());
  for (std::size_t i = 0; i < both.size(); ++i) {
    if (i < ideal.size()) CHECK(both[i] == ideal[i]);
    if (i >= ideal.size()) CHECK(both[i].store == UpgradeStore::stacked);
  }
  CHECK(describe(both.back()) == "coordinated/upgrade/3/kubeadm/stacked-etcd");
  CHECK(describe(ideal.front()) == "lease/upgrade/3");
  UpgradeOptions options;
  options.trials = 1;
  options.cells = upgrade_grid(modes, up, {3}, {M::replace}, {UpgradeStore::stacked});
  const auto problem = validate_upgrade_options(options);
  REQUIRE(problem.has_value());
  CHECK_THAT(*problem, Catch::Matchers::Contains("--stores stacked"));
}
