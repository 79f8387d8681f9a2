#include "models/cluster/upgrade_plan.hpp"

#include <algorithm>
#include <utility>

#include "sim/assert.hpp"

namespace hasim::cluster {
namespace {

// t + d, or TrueTime::max() (an action that never runs) past 64-bit time: a thousand nodes
// with downtimes of years add up beyond it, and such actions fall after the run's end anyway.
TrueTime later(TrueTime t, Duration d) {
  HASIM_ASSERT(d.ns >= 0);
  return d.ns > TrueTime::max().ns - t.ns ? TrueTime::max() : t + d;
}

}  // namespace

std::vector<std::string> upgraded_static_pods(bool stacked_etcd) {
  std::vector<std::string> pods;
  if (stacked_etcd) pods.emplace_back(kStackedEtcdComponent);
  for (const std::string& component : control_plane_components()) pods.push_back(component);
  HASIM_ASSERT(pods.size() == control_plane_components().size() + (stacked_etcd ? 1 : 0));
  return pods;
}

std::vector<std::string> upgrade_order(const UpgradeSpec& spec, std::vector<std::string> nodes,
                                       Rng& rng) {
  if (!spec.order.empty()) nodes = spec.order;
  if (spec.randomOrder) {  // Fisher-Yates from the seed
    for (std::size_t i = nodes.size(); i > 1; --i) {
      std::swap(nodes[i - 1], nodes[rng.below(i)]);
    }
  }
  return nodes;
}

std::vector<UpgradeAction> plan_upgrade(const UpgradeSpec& spec, std::vector<std::string> nodes,
                                        const std::string& from_binary,
                                        const std::string& from_emulation, bool rollback, Rng& rng,
                                        bool stacked_etcd) {
  HASIM_ASSERT(!spec.to.empty() && !nodes.empty());
  nodes = upgrade_order(spec, std::move(nodes), rng);
  // The versions each pass leaves a node at.
  std::vector<std::pair<std::string, std::string>> passes;
  if (!spec.emulation) {
    passes.emplace_back(spec.to, spec.to);
  } else if (!rollback) {
    passes.emplace_back(spec.to, from_emulation);  // new binaries, still emulating the old
    passes.emplace_back(spec.to, spec.to);         // then the emulation version is raised
  } else {
    passes.emplace_back(from_binary, spec.to);  // lower the emulation version first
    passes.emplace_back(spec.to, spec.to);      // then roll binaries back
  }
  std::vector<UpgradeAction> actions;
  TrueTime t{spec.at.ns};
  bool first = true;
  for (std::size_t pass = 0; pass < passes.size(); ++pass) {
    for (const std::string& node : nodes) {
      const int p = static_cast<int>(pass);
      actions.push_back({UpgradeAction::Kind::stop_node, t, node, {}, {}, {}, p});
      const TrueTime up = later(t, spec.downtime.sample(rng));
      actions.push_back(
          {UpgradeAction::Kind::node_up, up, node, {}, passes[pass].first, passes[pass].second, p});
      TrueTime last = up;
      if (stacked_etcd) {
        const std::string etcd(kStackedEtcdComponent);
        actions.push_back({UpgradeAction::Kind::start_component, up, node, etcd, {}, {}, p});
      }
      for (const std::string& component : control_plane_components()) {
        const TrueTime start = later(up, spec.startJitter.sample(rng));
        actions.push_back(
            {UpgradeAction::Kind::start_component, start, node, component, {}, {}, p});
        last = std::max(last, start);
      }
      t = later(last, spec.gap.sample(rng));
      if (first) t = later(t, spec.canary);
      first = false;
    }
  }
  std::stable_sort(actions.begin(), actions.end(),
                   [](const UpgradeAction& a, const UpgradeAction& b) { return a.at < b.at; });
  return actions;
}

}  // namespace hasim::cluster
