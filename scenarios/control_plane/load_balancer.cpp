// The load balancer in front of the kube-apiservers (controlPlane.access "loadBalancer"): its
// health checks of each apiserver's /readyz (models/apiserver/load_balancer.hpp), every
// interval, outside every node (a cloud load balancer, or haproxy as kubeadm's HA guide runs
// it; its own path to a backend is not partitioned). A check passes when the backend's node
// is up, its kube-apiserver runs (a paused one answers nothing), answers at all (no
// apiserver-unavailable, no apiserver-hang of every verb) and is ready: over etcd members, its
// last /readyz etcd check passed (raft_store.hpp); over the ideal store, always.
#include "models/apiserver/trace_kinds.hpp"
#include "scenarios/control_plane/control_plane.hpp"
#include "scenarios/control_plane/load_balancer.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

bool check_passes(const World& world, const std::string& node_name,
                  const ControlPlaneWiring& wiring) {
  const auto node = world.find_node(node_name);
  const auto apiserver = world.find_process(node_name + "/" + std::string(kApiServerProcess));
  HASIM_ASSERT(node.has_value() && apiserver.has_value());
  if (!world.is_up(*node) || world.process_state(*apiserver) != ProcessState::running) return false;
  const api::ApiServerConditions& c = *wiring.conditions.at(node_name);
  if (c.unavailable || (c.hang && c.hang_verbs.empty())) return false;
  const auto slot = wiring.stores.find(node_name);
  if (slot == wiring.stores.end()) return true;  // the ideal store is always there
  const std::shared_ptr<api::Store> store = slot->second->lock();
  return store != nullptr && !store->not_ready().has_value();
}

void schedule_round(World& world, const ControlPlaneWiring& wiring, TrueTime at);

// One round of checks, then the next round one interval later (bounded by the run's end).
void check_round(World& world, const ControlPlaneWiring& wiring) {
  api::LoadBalancerHealth& health = *wiring.balancer;
  for (std::size_t b = 0; b < health.size(); ++b) {
    const std::string& name = health.name(b);
    const std::string node_name = name.substr(0, name.find('/'));
    const auto changed = health.observe(b, check_passes(world, node_name, wiring));
    if (!changed) continue;
    world.trace_fault(api::trace_kind::kLoadBalancerBackend, node_name,
                      {{"backend", name}, {"up", std::int64_t{*changed}}});
  }
  schedule_round(world, wiring, world.now() + health.config().interval);
}

void schedule_round(World& world, const ControlPlaneWiring& wiring, TrueTime at) {
  World* w = &world;
  const ControlPlaneWiring* wired = &wiring;
  world.at(at, [w, wired] { check_round(*w, *wired); });
}

}  // namespace

void add_load_balancer(const ControlPlaneSpec& cp, ControlPlaneWiring& wiring) {
  if (!cp.loadBalancer || !cp.loadBalancerHealthCheck.enabled) return;
  std::vector<std::string> backends;
  for (const std::string& node : cp.nodes) backends.push_back(node + "/" + std::string(kApiServerProcess));
  const LoadBalancerHealthSpec& spec = cp.loadBalancerHealthCheck;
  wiring.balancer = std::make_shared<api::LoadBalancerHealth>(
      std::move(backends), api::HealthCheckConfig{spec.interval, spec.fall, spec.rise});
}

void start_health_checks(World& world, const ControlPlaneWiring& wiring) {
  if (wiring.balancer == nullptr) return;
  schedule_round(world, wiring, TrueTime{} + wiring.balancer->config().interval);
}

}  // namespace hasim
