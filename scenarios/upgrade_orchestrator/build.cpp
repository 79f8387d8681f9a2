// Runs a scenario's upgrade plan (models/cluster/upgrade_plan.hpp) against the World: the
// kubelet replaces a node's static pods (SIGTERM with the grace period, and a container that
// outlives it is killed), or the node is powered off; while it is down its versions change;
// then each component starts at the new version. A stacked etcd member is one more static
// pod of its node: stopped with the others, started first when the node is back.
#include "models/cluster/trace_kinds.hpp"
#include "models/cluster/upgrade_plan.hpp"
#include "models/election/semver.hpp"
#include "scenarios/control_plane/control_plane.hpp"
#include "scenarios/etcd/etcd.hpp"
#include "scenarios/upgrade_orchestrator/methods.hpp"
#include "scenarios/upgrade_orchestrator/upgrade_orchestrator.hpp"
#include "sim/assert.hpp"

namespace hasim {

bool is_rollback(const Scenario& scenario) {
  const auto* cp = scenario.section<ControlPlaneSpec>();
  const auto* upgrade = scenario.section<UpgradeSpec>();
  HASIM_ASSERT(upgrade != nullptr && cp != nullptr);
  const auto from = election::parse_semver(cp->version);
  const auto to = election::parse_semver(upgrade->to);
  HASIM_ASSERT(from && to);  // the loader checked
  return election::compare(*to, *from) < 0;
}

std::string newer_version(const Scenario& scenario) {
  const auto* cp = scenario.section<ControlPlaneSpec>();
  const auto* upgrade = scenario.section<UpgradeSpec>();
  HASIM_ASSERT(cp != nullptr);
  if (upgrade == nullptr) return cp->version;
  return is_rollback(scenario) ? cp->version : upgrade->to;
}

bool upgrades_stacked_etcd(const Scenario& scenario) {
  const auto* cp = scenario.section<ControlPlaneSpec>();
  HASIM_ASSERT(cp != nullptr);
  return cp->etcd.model == EtcdModel::raft && cp->etcd.topology == EtcdTopology::stacked;
}

namespace {

// What kubeadm's etcd step finds: stacked members (their endpoints and who leads), or none.
KubeadmEtcd kubeadm_etcd(const Scenario& scenario, const BuildState& built) {
  KubeadmEtcd etcd;
  if (!upgrades_stacked_etcd(scenario)) return etcd;
  const EtcdSpec* spec = scenario.section<EtcdSpec>();
  const EtcdWiring* wiring = built.get<EtcdWiring>();
  HASIM_ASSERT(spec != nullptr && wiring != nullptr && wiring->leaders != nullptr);
  etcd.stacked = true;
  etcd.downgrade = is_rollback(scenario);
  for (const std::string& member : spec->members) etcd.members.push_back(member + "/etcd");
  etcd.leader = [wiring = *wiring] { return current_raft_leader(wiring); };
  return etcd;
}

// "kubeadm" and "replace": executors that wait for the cluster (methods.hpp).
void schedule_reactive_upgrade(World& world, const Scenario& scenario, const BuildState& built,
                               const ControlPlaneWiring& wiring, Rng rng) {
  const UpgradeSpec& spec = *scenario.section<UpgradeSpec>();
  const ControlPlaneSpec& cp = *scenario.section<ControlPlaneSpec>();
  if (spec.method == UpgradeSpec::Method::kubeadm) {
    std::vector<std::string> order = cluster::upgrade_order(spec, cp.nodes, rng);
    return schedule_kubeadm_upgrade(world, spec, std::move(order), wiring,
                                    kubeadm_etcd(scenario, built), rng);
  }
  // The loader refuses replace over stacked members (member add and remove not modelled).
  HASIM_ASSERT(!upgrades_stacked_etcd(scenario));
  HASIM_ASSERT(spec.method == UpgradeSpec::Method::replace);
  std::map<std::string, std::string> zones;
  for (const NodeSpec& node : scenario.nodes) zones[node.name] = node.zone;
  schedule_replace_upgrade(world, spec, cp.nodes, zones, wiring, rng);
}

}  // namespace

void schedule_upgrade(World& world, const Scenario& scenario, BuildState& built) {
  const UpgradeSpec& spec = *scenario.section<UpgradeSpec>();
  const ControlPlaneSpec& cp = *scenario.section<ControlPlaneSpec>();
  const ControlPlaneWiring& wiring = *built.get<ControlPlaneWiring>();
  const bool rollback = is_rollback(scenario);
  Rng rng = world.fork_rng("scenario/upgrade");
  if (spec.method != UpgradeSpec::Method::node) {
    return schedule_reactive_upgrade(world, scenario, built, wiring, rng);
  }
  const std::string from_emulation = cp.emulationVersion.empty() ? cp.version : cp.emulationVersion;
  World* w = &world;
  const bool power_off = spec.stop == UpgradeSpec::Stop::power_off;
  const bool stacked = upgrades_stacked_etcd(scenario);
  const std::vector<std::string> pods = cluster::upgraded_static_pods(stacked);
  for (const cluster::UpgradeAction& action :
       cluster::plan_upgrade(spec, cp.nodes, cp.version, from_emulation, rollback, rng, stacked)) {
    const NodeId node = *world.find_node(action.node);
    switch (action.kind) {
      case cluster::UpgradeAction::Kind::stop_node:
        world.at(action.at, [w, node, action, power_off, pods, grace = spec.grace] {
          w->trace_fault(cluster::trace_kind::kUpgradeStop, action.node,
                         {{"pass", static_cast<std::int64_t>(action.pass)}});
          if (power_off) return w->node_down(node);
          for (const std::string& component : pods) {
            w->terminate(*w->find_process(action.node + "/" + component), grace);
          }
        });
        break;
      case cluster::UpgradeAction::Kind::node_up: {
        std::vector<std::shared_ptr<ComponentVersion>> versions;
        for (const std::string& component : cluster::control_plane_components()) {
          versions.push_back(wiring.versions.at(action.node + "/" + component));
        }
        world.at(action.at, [w, node, action, versions, power_off] {
          for (const std::shared_ptr<ComponentVersion>& version : versions) {
            version->binary = action.binary;
            version->emulation = action.emulation;
          }
          w->trace_fault(cluster::trace_kind::kUpgradeNodeUp, action.node,
                         {{"version", action.binary}, {"emulation", action.emulation}});
          if (power_off) w->node_up(node);  // the kubelet starts every static pod at boot
        });
        break;
      }
      case cluster::UpgradeAction::Kind::start_component:
        if (power_off) break;
        world.at(action.at, [w, action] {
          const ProcessId process = *w->find_process(action.node + "/" + action.component);
          // A container that ignored SIGTERM past its grace period was killed already; one
          // still running is replaced.
          if (w->process_state(process) != ProcessState::stopped) w->crash(process, "replaced");
          w->restart(process);
        });
        break;
    }
  }
}

}  // namespace hasim
