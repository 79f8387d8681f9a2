#include "models/cluster/upgrade_methods.hpp"

#include <algorithm>
#include <map>

#include "models/cluster/upgrade_spec.hpp"
#include "sim/assert.hpp"

namespace hasim {

const std::vector<std::string>& upgrade_method_names() {
  static const std::vector<std::string> kNames{"node", "kubeadm", "replace"};
  return kNames;
}

std::string_view to_string(UpgradeSpec::Method method) {
  const auto index = static_cast<std::size_t>(method);
  HASIM_ASSERT(index < upgrade_method_names().size());
  return upgrade_method_names()[index];
}

}  // namespace hasim

namespace hasim::cluster {

const std::vector<KubeadmStep>& kubeadm_steps() {
  static const std::vector<KubeadmStep> kSteps{{"etcd", true},
                                               {"kube-apiserver", false},
                                               {"kube-controller-manager", false},
                                               {"kube-scheduler", false}};
  return kSteps;
}

bool kubeadm_component_upgraded(bool replaced_since_manifest_moved, bool running) {
  // Health alone is not enough: right after the manifest moves, the old pod is still healthy.
  return replaced_since_manifest_moved && running;
}

std::optional<std::size_t> select_machine_for_scale_down(const std::vector<Machine>& machines) {
  if (machines.empty()) return std::nullopt;
  const bool any_outdated =
      std::any_of(machines.begin(), machines.end(), [](const Machine& m) { return m.outdated; });
  auto eligible = [&](const Machine& m) { return m.outdated || !any_outdated; };
  // MachineInFailureDomainWithMostMachines: count every machine per failure domain, among
  // the domains that hold an eligible machine (std::map: ties go to the first name).
  std::map<std::string, std::size_t> per_domain;
  for (const Machine& m : machines) ++per_domain[m.failure_domain];
  std::optional<std::string> domain;
  std::size_t most = 0;
  for (const auto& entry : per_domain) {
    const std::string& name = entry.first;  // a copy-free name a lambda may capture (clang 14)
    const bool has_eligible = std::any_of(machines.begin(), machines.end(), [&](const Machine& m) {
      return m.failure_domain == name && eligible(m);
    });
    if (has_eligible && entry.second > most) {
      domain = name;
      most = entry.second;
    }
  }
  HASIM_ASSERT(domain.has_value());
  std::optional<std::size_t> oldest;
  for (std::size_t i = 0; i < machines.size(); ++i) {
    const Machine& m = machines[i];
    if (m.failure_domain != *domain || !eligible(m)) continue;
    if (!oldest || m.created < machines[*oldest].created) oldest = i;
  }
  HASIM_ASSERT(oldest.has_value());
  return oldest;
}

namespace {

// "cp-3" -> {"cp-", 3}, "n3" -> {"n", 3}: a name ending in a number (up to 6 digits) after
// a non-empty prefix; nothing otherwise.
std::optional<std::pair<std::string, int>> numbered(const std::string& name) {
  std::size_t digits = 0;
  while (digits < name.size() && name[name.size() - 1 - digits] >= '0' &&
         name[name.size() - 1 - digits] <= '9') {
    ++digits;
  }
  if (digits == 0 || digits > 6 || digits == name.size()) return {};
  const std::size_t split = name.size() - digits;
  return std::pair{name.substr(0, split), std::stoi(name.substr(split))};
}

}  // namespace

std::vector<std::string> replacement_nodes(const std::vector<std::string>& control_plane,
                                           const std::vector<std::string>& taken) {
  HASIM_ASSERT(!control_plane.empty());
  std::string prefix = "replacement-";
  int next = 1;
  if (const auto first = numbered(control_plane.front())) {
    prefix = first->first;
    bool common = true;
    for (const std::string& node : control_plane) {
      const auto n = numbered(node);
      common = common && n && n->first == prefix;
      if (n && n->second >= next) next = n->second + 1;
    }
    if (!common) {
      prefix = "replacement-";
      next = 1;
    }
  }
  auto used = [&](const std::string& name) {
    return std::find(taken.begin(), taken.end(), name) != taken.end() ||
           std::find(control_plane.begin(), control_plane.end(), name) != control_plane.end();
  };
  std::vector<std::string> names;
  // Bounded: each name is tried once, and at most |taken| + |control_plane| are in use.
  for (std::size_t tries = 0; names.size() < control_plane.size(); ++tries) {
    HASIM_ASSERT(tries <= taken.size() + 2 * control_plane.size());
    const std::string name = prefix + std::to_string(next++);
    if (!used(name)) names.push_back(name);
  }
  return names;
}

}  // namespace hasim::cluster
