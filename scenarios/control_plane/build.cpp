#include "scenarios/control_plane/control_plane.hpp"
#include "scenarios/control_plane/load_balancer.hpp"

#include "models/cluster/upgrade_spec.hpp"

#include "models/apiserver/ideal_store.hpp"
#include "models/cluster/component.hpp"
#include "models/cluster/kubelet_backoff.hpp"
#include "models/cluster/trace_kinds.hpp"
#include "models/election/run_with_leader_election.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

std::function<Duration(Rng&)> sampler(const DurationDistribution& distribution) {
  if (distribution.kind == DurationDistribution::Kind::constant && distribution.a.ns == 0) {
    return {};  // no draw at all: keeps the random streams of zero-latency runs untouched
  }
  return [distribution](Rng& rng) { return distribution.sample(rng); };
}

// Whether components (and the apiserver's election controller) of this binary version use
// Coordinated Leader Election. Mixed: the newer of the upgrade's two versions does.
struct ElectionPolicy {
  ElectionMode mode = ElectionMode::lease;
  std::string newer;
  std::string target;  // upgrade.to (a component's upgradeLock applies at this binary)
  bool coordinated(const std::string& binary) const {
    return mode == ElectionMode::coordinated || (mode == ElectionMode::mixed && binary == newer);
  }
};

ElectionPolicy election_policy(const Scenario& scenario) {
  const ControlPlaneSpec& cp = *scenario.section<ControlPlaneSpec>();
  const auto* upgrade = scenario.section<UpgradeSpec>();
  const ElectionPolicy policy{cp.election, newer_version(scenario),
                              upgrade == nullptr ? std::string() : upgrade->to};
  HASIM_ASSERT(cp.election != ElectionMode::mixed || scenario.section<UpgradeSpec>() != nullptr);
  return policy;
}

cluster::ComponentConfig component_config(const ControlPlaneSpec& cp, const ElectionSpec& spec,
                                          std::string_view component, const std::string& node,
                                          const ControlPlaneWiring& wiring) {
  cluster::ComponentConfig config;
  config.component = std::string(component);
  config.node = node;
  config.lock_type = spec.lock;
  config.election.leaseDuration = spec.leaseDuration;
  config.election.renewDeadline = spec.renewDeadline;
  config.election.retryPeriod = spec.retryPeriod;
  config.election.releaseOnCancel = spec.releaseOnCancel;
  config.election.coordinatedFallbackAfter = cp.coordination.fallbackAfter;
  config.election.renewRequests = spec.renewRequests == RenewRequestsMode::unbounded
                                      ? election::RenewRequests::unbounded
                                      : election::RenewRequests::bounded;
  config.candidate_renew_interval = cp.coordination.candidateRenewInterval;
  config.client_timeout = spec.clientTimeout;
  config.work_interval = spec.workInterval;
  config.exit_zero_when_terminated = component == kSchedulerProcess;
  // The node's own apiserver first: "local" access uses only it.
  config.apiservers.push_back(node + "/" + std::string(kApiServerProcess));
  if (cp.loadBalancer) {
    for (const std::string& other : cp.nodes) {
      if (other != node) config.apiservers.push_back(other + "/" + std::string(kApiServerProcess));
    }
  }
  config.load_balanced = cp.loadBalancer;
  config.lb_health = wiring.balancer;
  return config;
}

// The kubelet restarts static-pod containers that exit or crash, with back-off; a container
// it stopped itself (terminate) stays stopped.
void supervise(World& world, const KubeletSpec& spec) {
  if (!spec.restart) return;
  const cluster::BackoffPolicy policy{spec.backoff, spec.maxBackoff, spec.resetAfter};
  auto backoff = std::make_shared<cluster::KubeletBackoff>(policy);
  World* w = &world;
  world.set_stop_handler([w, backoff, policy](ProcessId process, StopReason reason, int) {
    if (reason == StopReason::terminated) return;
    const Duration delay = backoff->restart_delay(process, w->now());
    // The policy too, for properties/control_plane/crashloop_backoff.hpp.
    w->trace_fault(cluster::trace_kind::kKubeletRestart, w->node_name(w->process_node(process)),
                   {{"process", w->process_name(process)},
                    {"after_ns", delay.ns},
                    {"backoff_ns", policy.initial.ns},
                    {"max_ns", policy.max.ns},
                    {"reset_ns", policy.reset_after.ns}});
    w->at(w->now() + delay, [w, process] {
      if (w->process_state(process) == ProcessState::stopped) w->restart(process);
    });
  });
}

// One control-plane node's kube-apiserver, kube-controller-manager and kube-scheduler; each
// factory reads its own component's versions when the process (re)starts, so an upgrade can
// change them one static pod at a time (kubeadm) or a node at a time.
void add_node_components(World& world, const Scenario& scenario, const ElectionPolicy& policy,
                         const std::shared_ptr<api::IdealStore>& store,
                         const std::string& node_name, ControlPlaneWiring& wiring) {
  const ControlPlaneSpec& cp = *scenario.section<ControlPlaneSpec>();
  const auto node = world.find_node(node_name);
  HASIM_ASSERT(node.has_value());
  auto conditions = std::make_shared<api::ApiServerConditions>();
  wiring.conditions[node_name] = conditions;
  const ComponentVersion initial{cp.version,
                                 cp.emulationVersion.empty() ? cp.version : cp.emulationVersion};
  auto version_of = [&](std::string_view component) {
    auto version = std::make_shared<ComponentVersion>(initial);
    wiring.versions[node_name + "/" + std::string(component)] = version;
    return version;
  };
  api::ApiServerConfig apiserver{
      store, conditions, cp.requestTimeout, sampler(cp.apiserverLatency), sampler(cp.watchLag), {},
      {},    {},         {}};
  if (cp.etcd.model == EtcdModel::raft) {
    apiserver.make_store = raft_store_factory(scenario, node_name);
    if (wiring.balancer != nullptr) {
      // The balancer's checks read the running incarnation's /readyz.
      auto slot = std::make_shared<std::weak_ptr<api::Store>>();
      wiring.stores[node_name] = slot;
      apiserver.make_store = [make = std::move(apiserver.make_store), slot] {
        std::shared_ptr<api::Store> made = make();
        *slot = made;
        return made;
      };
    }
  }
  election::RunWithLeaderElectionConfig cle;
  cle.hostname = node_name;
  cle.loopback = node_name + "/" + std::string(kApiServerProcess);
  cle.election.leaseDuration = cp.coordination.leaseDuration;
  cle.election.renewDeadline = cp.coordination.renewDeadline;
  cle.election.retryPeriod = cp.coordination.retryPeriod;
  cle.options.priority = cp.coordination.priority;
  world.add_process(
      *node, std::string(kApiServerProcess),
      [apiserver, cle, version = version_of(kApiServerProcess), policy] {
        api::ApiServerConfig config = apiserver;
        ++version->starts;
        config.version = version->binary;
        config.emulation = version->emulation;
        if (policy.coordinated(version->binary)) {  // --feature-gates=CoordinatedLeaderElection
          config.hook = [cle] { return std::make_unique<election::RunWithLeaderElection>(cle); };
        }
        return std::make_unique<api::ApiServer>(std::move(config));
      });
  for (const auto& [process, spec] : {std::pair{kControllerManagerProcess, &cp.controllerManager},
                                      std::pair{kSchedulerProcess, &cp.scheduler}}) {
    const auto base = component_config(cp, *spec, process, node_name, wiring);
    world.add_process(
        *node, std::string(process),
        [base, version = version_of(process), policy, upgrade_lock = spec->upgradeLock] {
          cluster::ComponentConfig config = base;
          ++version->starts;
          if (!upgrade_lock.empty() && version->binary == policy.target) {
            config.lock_type = upgrade_lock;
          }
          config.version = version->binary;
          config.emulation = version->emulation;
          config.coordinated = policy.coordinated(version->binary);
          return std::make_unique<cluster::Component>(std::move(config));
        });
  }
}

std::shared_ptr<api::IdealStore> ideal_store(World& world, const ControlPlaneSpec& cp) {
  // The loader adds the store's node (kStoreNode; "etcd" for a replay of format 1) and gives
  // it the stream name "etcd" (store_node_spec): issue 11 part 5 renamed it from "etcd" to
  // "store" without changing a single random draw.
  const auto store_node = world.find_node(cp.storeNode);
  HASIM_ASSERT(store_node.has_value());
  World* w = &world;
  const NodeId store_id = *store_node;
  api::IdealStoreHooks hooks;
  hooks.reachable = [w, store_id](ProcessId caller) {
    const NodeId node = w->process_node(caller);
    return w->reachable(node, store_id) && w->reachable(store_id, node);
  };
  // One notice for every post: it carries nothing, and a write wakes every apiserver.
  auto notice = std::make_shared<const api::StoreNotify>();
  hooks.notify = [w, notice](const std::vector<ProcessId>& subscribers) {
    w->post_each(subscribers, notice);
  };
  return std::make_shared<api::IdealStore>(std::move(hooks));
}

}  // namespace

void add_control_plane(World& world, const Scenario& scenario, BuildState& built) {
  HASIM_ASSERT(scenario.section<ControlPlaneSpec>() != nullptr);
  const ControlPlaneSpec& cp = *scenario.section<ControlPlaneSpec>();
  ControlPlaneWiring* wiring = &built.set(ControlPlaneWiring{});
  // Over etcd members each apiserver makes its own store (raft_store_factory); there is no
  // ideal store and no node for it.
  std::shared_ptr<api::IdealStore> store;
  if (cp.etcd.model == EtcdModel::ideal) store = ideal_store(world, cp);
  wiring->store = store;
  const ElectionPolicy policy = election_policy(scenario);

  // The upgrade's replacement machines (method "replace") run the same static pods; their
  // nodes start powered off and join when the orchestrator creates them.
  std::vector<std::string> nodes = cp.nodes;
  if (const auto* upgrade = scenario.section<UpgradeSpec>()) {
    nodes.insert(nodes.end(), upgrade->replacements.begin(), upgrade->replacements.end());
  }
  add_load_balancer(cp, *wiring);
  for (const std::string& node_name : nodes)
    add_node_components(world, scenario, policy, store, node_name, *wiring);
  start_health_checks(world, *wiring);
  supervise(world, cp.kubelet);
  track_leaders(world, scenario, *wiring);
}

}  // namespace hasim
