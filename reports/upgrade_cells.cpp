// The upgrade-skew study's cells and options: the grid, the checks that name the flag to
// fix, and the command line that reproduces a study.
#include "reports/upgrade_report.hpp"

#include <algorithm>
#include <limits>
#include <set>

#include "models/election/semver.hpp"
#include "reports/study_flags.hpp"

namespace hasim {
std::string mode_name(ElectionMode mode) { return std::string(to_string(mode)); }
std::string direction_name(UpgradeDirection d) { return std::string(to_string(d)); }
std::string store_name(UpgradeStore store) { return std::string(to_string(store)); }

std::vector<UpgradeCell> upgrade_grid(const std::vector<ElectionMode>& modes,
                                      const std::vector<UpgradeDirection>& directions,
                                      const std::vector<int>& nodes,
                                      const std::vector<UpgradeSpec::Method>& methods,
                                      const std::vector<UpgradeStore>& stores) {
  // A canonical order whatever order the flags list them in: the cell order decides every
  // trial's seed, so "--modes coordinated,lease" and "--modes lease,coordinated" agree. The
  // store is outermost: the stacked cells come after every ideal one, so adding them leaves
  // the ideal cells' seeds, hence their figures, as they were.
  const std::set<int> sizes(nodes.begin(), nodes.end());
  std::vector<UpgradeCell> cells;
  for (UpgradeStore store : kUpgradeStores) {
    if (std::find(stores.begin(), stores.end(), store) == stores.end()) continue;
    for (ElectionMode m : kUpgradeModes) {
      if (std::find(modes.begin(), modes.end(), m) == modes.end()) continue;
      for (UpgradeDirection d : kUpgradeDirections) {
        if (std::find(directions.begin(), directions.end(), d) == directions.end()) continue;
        for (int n : sizes) {
          for (UpgradeSpec::Method method : kUpgradeMethods) {
            if (std::find(methods.begin(), methods.end(), method) == methods.end()) continue;
            cells.push_back(UpgradeCell{m, d, n, method, store});
          }
        }
      }
    }
  }
  return cells;
}

std::vector<UpgradeCell> default_upgrade_cells() {
  return upgrade_grid({std::begin(kUpgradeModes), std::end(kUpgradeModes)},
                      {std::begin(kUpgradeDirections), std::end(kUpgradeDirections)}, {3, 5});
}

std::optional<std::string> validate_upgrade_options(const UpgradeOptions& o) {
  if (o.trials == 0) return "--trials must be at least 1";
  if (o.cells.empty()) {
    return "the study has no cells; give at least one of each of --modes, --directions, "
           "--nodes and --methods";
  }
  if (o.trials > std::numeric_limits<std::uint64_t>::max() / o.cells.size()) {
    return "--trials " + std::to_string(o.trials) + " times " + std::to_string(o.cells.size()) +
           " cells does not fit in 64 bits; use fewer trials";
  }
  for (const UpgradeCell& cell : o.cells) {
    if (cell.nodes < kUpgradeMinNodes || cell.nodes > kUpgradeMaxNodes) {
      return "--nodes " + std::to_string(cell.nodes) + ": a control plane needs " +
             std::to_string(kUpgradeMinNodes) + " to " + std::to_string(kUpgradeMaxNodes) +
             " nodes for a node-by-node upgrade to mean anything, e.g. --nodes 3,5";
    }
    if (cell.store == UpgradeStore::stacked && cell.method == UpgradeSpec::Method::replace) {
      return "--methods replace with --stores stacked: replacing machines with stacked etcd "
             "members (member add and remove) is not modelled; use --methods node,kubeadm "
             "with --stores stacked";
    }
  }
  const auto from = election::parse_semver(o.settings.old_version);
  if (!from) {
    return "--from \"" + o.settings.old_version +
           "\" is not a semantic version MAJOR.MINOR.PATCH, e.g. --from 1.31.0";
  }
  const auto to = election::parse_semver(o.settings.new_version);
  if (!to) {
    return "--to \"" + o.settings.new_version +
           "\" is not a semantic version MAJOR.MINOR.PATCH, e.g. --to 1.32.0";
  }
  if (election::compare(*from, *to) >= 0) {
    return "--from " + o.settings.old_version + " must be older than --to " +
           o.settings.new_version +
           " (a rollback runs from --to back to --from), e.g. --from 1.31.0 --to 1.32.0";
  }
  if (auto problem = election_timing_problem(o.settings.leaseDuration, o.settings.renewDeadline,
                                             o.settings.retryPeriod, "upgrade-skew")) {
    return problem;
  }
  const UpgradeSpec& u = o.settings.upgrade;
  for (const auto& [flag, d] : {std::pair{"--downtime", u.downtime}, std::pair{"--gap", u.gap},
                                std::pair{"startJitter", u.startJitter}}) {
    if (d.a.ns < 0 || d.b.ns < 0) {
      return std::string(flag) + " " + d.describe() + " must not be negative, e.g. 30s..90s";
    }
  }
  return std::nullopt;
}

std::string upgrade_reproduce_command(const UpgradeOptions& o) {
  std::set<std::string> modes, directions, methods, stores;
  std::string store_list;
  bool only_ideal = true;
  std::set<int> nodes;
  std::string mode_list, direction_list, node_list, method_list;
  bool only_node = true;
  for (const UpgradeCell& c : o.cells) {
    if (modes.insert(mode_name(c.mode)).second)
      mode_list += (mode_list.empty() ? "" : ",") + mode_name(c.mode);
    if (directions.insert(direction_name(c.direction)).second)
      direction_list += (direction_list.empty() ? "" : ",") + direction_name(c.direction);
    if (nodes.insert(c.nodes).second)
      node_list += (node_list.empty() ? "" : ",") + std::to_string(c.nodes);
    const std::string method(to_string(c.method));
    if (methods.insert(method).second) method_list += (method_list.empty() ? "" : ",") + method;
    only_node = only_node && c.method == UpgradeSpec::Method::node;
    if (stores.insert(store_name(c.store)).second)
      store_list += (store_list.empty() ? "" : ",") + store_name(c.store);
    only_ideal = only_ideal && c.store == UpgradeStore::ideal;
  }
  const UpgradeSettings& s = o.settings;
  return "hasim report upgrade-skew --trials " + std::to_string(o.trials) + " --seed " +
         std::to_string(o.seed) + " --modes " + mode_list + " --directions " + direction_list +
         " --nodes " + node_list + " --from " + s.old_version + " --to " + s.new_version +
         " --lease-duration " + format_duration(s.leaseDuration) + " --renew-deadline " +
         format_duration(s.renewDeadline) + " --retry-period " + format_duration(s.retryPeriod) +
         " --downtime " + s.upgrade.downtime.describe() + " --gap " + s.upgrade.gap.describe() +
         (only_node ? "" : " --methods " + method_list) +
         (only_ideal ? "" : " --stores " + store_list);
}

}  // namespace hasim
