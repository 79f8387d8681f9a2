// Building the CloudCore system into a World: the pods in the store, the CloudCore and
// EdgeCore processes, and the Service whose endpoints follow the pods' readiness.
#include <map>
#include <set>

#include "models/apiserver/trace_kinds.hpp"
#include "models/cloudcore/keepalived.hpp"
#include "models/cloudcore/readiness.hpp"
#include "models/cloudcore/service.hpp"
#include "models/cloudcore/trace_kinds.hpp"
#include "scenarios/cloudcore/cloudcore.hpp"
#include "scenarios/cloudcore/workload.hpp"
#include "scenarios/control_plane/control_plane.hpp"
#include "sim/assert.hpp"
#include "sim/trace_kinds.hpp"
#include "sim/world.hpp"

namespace hasim {
namespace {

// The endpoints controller with the kubelet's status reports under it, outside any process:
// it follows the trace for what can change a CloudCore pod's readiness (a write through an
// apiserver, a container that starts or stops, a node's power) and re-reads the truth (the
// store's pod, the container's state), then moves the Service's endpoint `delay` later.
class EndpointsController final : public TraceObserver {
 public:
  EndpointsController(World& world, std::shared_ptr<const api::IdealStore> store,
                      std::shared_ptr<cloudcore::ServiceEndpoints> service, const CloudCoreSpec& spec)
      : world_(world), store_(std::move(store)), service_(std::move(service)), spec_(spec) {
    for (const std::string& node : spec.nodes) {
      const std::string name = node + "/" + std::string(CloudCoreSpec::kProcess);
      const auto process = world.find_process(name);
      HASIM_ASSERT(process.has_value());
      pods_.emplace(name, Pod{*process, node, TrueTime{}, false});
      pod_objects_.insert(api::describe(
          api::ObjectKey{api::Kind::pod, spec.config.pod_namespace, cloudcore_pod_name(node)}));
    }
  }
  bool wants(std::string_view kind) const override {
    return kind == api::trace_kind::kWrite || kind == trace_kind::kStart ||
           kind == trace_kind::kCrash || kind == trace_kind::kExit ||
           kind == trace_kind::kNodeDown || kind == trace_kind::kPodDelete ||
           kind == trace_kind::kNodeUp;
  }
  void on_event(const TraceEvent& event) override {
    if (!wants(event.kind)) return;
    // Of the writes, only those to a CloudCore pod change its readiness (the delivery's
    // ObjectSync writes are most of them).
    if (event.kind == api::trace_kind::kWrite && !pod_objects_.contains(event.string_field("object"))) {
      return;
    }
    if (event.kind == trace_kind::kStart) {
      const auto it = pods_.find(std::string(event.node) + "/" + std::string(event.proc));
      if (it == pods_.end()) return;
      it->second.started = event.t;
      // PLEG sees the new container at its next relist: ready then, not at once.
      world_.at(event.t + spec_.container_ready_delay, [this] { reconcile(); });
    }
    // After the event's own step: the state it describes is then in place.
    world_.at(event.t, [this] { reconcile(); });
  }

 private:
  struct Pod {
    ProcessId process = 0;
    std::string node;
    TrueTime started{};
    bool ready = false;  // as last reconciled
  };
  void reconcile();
  void publish(const std::string& name, bool ready, const std::string& why);

  World& world_;
  std::shared_ptr<const api::IdealStore> store_;
  std::shared_ptr<cloudcore::ServiceEndpoints> service_;
  CloudCoreSpec spec_;  // a copy: the observer outlives no scenario reference
  std::map<std::string, Pod> pods_;  // by "node/cloudcore"
  std::set<std::string, std::less<>> pod_objects_;  // "Pod kubeedge/cloudcore-NODE", as traced
};

void EndpointsController::reconcile() {
  for (auto& [name, pod] : pods_) {
    const ProcessState state = world_.process_state(pod.process);
    // A paused container still runs, as far as the kubelet can tell.
    const bool containers_ready = state != ProcessState::stopped &&
                                  world_.now() >= pod.started + spec_.container_ready_delay;
    const api::ObjectKey key{api::Kind::pod, spec_.config.pod_namespace,
                             cloudcore_pod_name(pod.node)};
    const auto it = store_->objects().find(key);
    HASIM_ASSERT(it != store_->objects().end());  // created at build, never deleted
    const auto why = cloudcore::pod_not_ready(*it->second, containers_ready);
    if (why.has_value() == !pod.ready) continue;
    pod.ready = !why.has_value();
    const bool ready = pod.ready;
    const std::string reason = why.value_or("Ready");
    // A copy: clang 14 cannot capture a structured binding.
    world_.at(world_.now() + spec_.endpoints_delay,
              [this, endpoint = name, ready, reason] { publish(endpoint, ready, reason); });
  }
}

void EndpointsController::publish(const std::string& name, bool ready, const std::string& why) {
  if (!service_->set_ready(name, ready)) return;
  const Pod& pod = pods_.at(name);
  world_.trace_fault(ready ? cloudcore::trace_kind::kEndpointReady
                           : cloudcore::trace_kind::kEndpointNotReady,
                     pod.node, {{"process", name}, {"pod", cloudcore_pod_name(pod.node)}, {"why", why}});
}

// Where the VIP points, outside any process: it follows the keepalived instances' VRRP
// state from the trace. The host that became MASTER last and still is holds it (the edges'
// network follows the last gratuitous ARP); the CloudCore on that host is the load balancer's
// one backend.
class VipTracker final : public TraceObserver {
 public:
  VipTracker(World& world, std::shared_ptr<cloudcore::ServiceEndpoints> service)
      : world_(world), service_(std::move(service)) {}
  bool wants(std::string_view kind) const override {
    return kind == cloudcore::trace_kind::kVrrpMaster ||
           kind == cloudcore::trace_kind::kVrrpBackup || kind == trace_kind::kCrash ||
           kind == trace_kind::kExit || kind == trace_kind::kNodeDown;
  }
  void on_event(const TraceEvent& event) override {
    if (!wants(event.kind)) return;
    const std::string node(event.node);
    const bool keepalived = event.proc == CloudCoreSpec::kKeepalivedProcess;
    if (event.kind == cloudcore::trace_kind::kVrrpMaster) {
      std::erase(masters_, node);
      masters_.push_back(node);  // the latest gratuitous ARP wins
    } else if (keepalived || event.kind == trace_kind::kNodeDown) {
      std::erase(masters_, node);
    } else {
      return;
    }
    const std::string owner = masters_.empty() ? "" : masters_.back();
    if (owner == owner_) return;
    if (!owner_.empty()) publish(owner_, false);
    owner_ = owner;
    if (!owner_.empty()) publish(owner_, true);
  }

 private:
  void publish(const std::string& node, bool ready) {
    const std::string process = node + "/" + std::string(CloudCoreSpec::kProcess);
    const bool changed = service_->set_ready(process, ready);
    HASIM_ASSERT(changed);
    world_.trace_fault(ready ? cloudcore::trace_kind::kEndpointReady
                             : cloudcore::trace_kind::kEndpointNotReady,
                       node, {{"process", process}, {"pod", cloudcore_pod_name(node)}, {"why", "VIP"}});
  }
  World& world_;
  std::shared_ptr<cloudcore::ServiceEndpoints> service_;
  std::vector<std::string> masters_;  // in the order they last became MASTER
  std::string owner_;
};

void add_keepalived(World& world, const CloudCoreSpec& spec,
                    const std::shared_ptr<cloudcore::ServiceEndpoints>& service) {
  for (std::size_t i = 0; i < spec.nodes.size(); ++i) {
    cloudcore::KeepalivedConfig config;
    config.node = spec.nodes[i];
    config.cloudcore = spec.nodes[i] + "/" + std::string(CloudCoreSpec::kProcess);
    for (const std::string& peer : spec.nodes) {
      if (peer != config.node) {
        config.peers.push_back(peer + "/" + std::string(CloudCoreSpec::kKeepalivedProcess));
      }
    }
    // The guide's two instances: MASTER priority 100 on the first host, BACKUP 99 elsewhere.
    config.initial_master = i == 0;
    config.priority = i == 0 ? 100 : 99;
    world.add_process(*world.find_node(config.node), std::string(CloudCoreSpec::kKeepalivedProcess),
                      [config] { return std::make_unique<cloudcore::Keepalived>(config); });
  }
  auto tracker = std::make_shared<VipTracker>(world, service);
  world.trace().add_observer(tracker.get());
  world.keep_alive(tracker);
}

// The HA Deployment's pod as the scheduler and kubelet leave it: the readiness gate declared,
// its condition not yet written (so not Ready).
void create_pod(api::IdealStore& store, ProcessId caller, const CloudCoreSpec& spec,
                const std::string& node) {
  api::Object pod;
  pod.key = api::ObjectKey{api::Kind::pod, spec.config.pod_namespace, cloudcore_pod_name(node)};
  // v1.7+ patches no gate; a declared one would keep the pod from Ready for good (kubeedge#3273,
  // fixed in the manifests for v1.9): hasim's v1.7+ pod declares none.
  if (cloudcore::is_hot_standby(spec.config.mode)) {
    pod.pod.readinessGates.emplace_back(cloudcore::kLeaderGate);
  }
  bool created = false;
  store.create(caller, std::move(pod), [&created](const api::StoreResult& result) {
    created = result.status == api::Status::created || result.status == api::Status::ok;
  });
  HASIM_ASSERT(created);  // the ideal store answers at once, and the names are distinct
}

// v1.7+: each edge node's Node, as its first registration left it (createNode), so the
// replicas' UpstreamController can write their tunnel port into its status.
void create_edge_nodes(api::IdealStore& store, ProcessId caller, const CloudCoreSpec& spec) {
  for (const std::string& node : spec.edge_nodes) {
    api::Object object;
    object.key = api::ObjectKey{api::Kind::node, "", node};
    bool created = false;
    store.create(caller, std::move(object), [&created](const api::StoreResult& result) {
      created = api::is_success(result.status);
    });
    HASIM_ASSERT(created);  // the ideal store answers at once, and the names are distinct
  }
}

}  // namespace

void add_cloudcore(World& world, const Scenario& scenario, BuildState& built) {
  const CloudCoreSpec& spec = *scenario.section<CloudCoreSpec>();
  const ControlPlaneSpec& cp = *scenario.section<ControlPlaneSpec>();
  const ControlPlaneWiring* wiring = built.get<ControlPlaneWiring>();
  HASIM_ASSERT(wiring != nullptr && wiring->store != nullptr);  // the loader requires it
  for (const std::string& node_name : spec.nodes) {
    const auto node = world.find_node(node_name);
    HASIM_ASSERT(node.has_value());
    cloudcore::CloudCoreConfig config = spec.config;
    config.node = node_name;
    config.pod_name = cloudcore_pod_name(node_name);
    // In-cluster config: the "kubernetes" Service, load-balanced over every apiserver.
    for (const std::string& cp_node : cp.nodes) {
      config.apiservers.push_back(cp_node + "/" + std::string(kApiServerProcess));
    }
    config.load_balanced = config.apiservers.size() > 1;
    config.delivery.edge_nodes = spec.edge_nodes;
    const ProcessId process = world.add_process(
        *node, std::string(CloudCoreSpec::kProcess),
        [config] { return std::make_unique<cloudcore::CloudCore>(config); });
    create_pod(*wiring->store, process, spec, node_name);
  }
  const auto writer = world.find_process(cp.nodes.front() + "/" + std::string(kApiServerProcess));
  HASIM_ASSERT(writer.has_value());
  add_edge_workload(world, spec, *wiring->store, *writer);
  const bool active_active = !cloudcore::is_hot_standby(spec.config.mode);
  if (active_active) create_edge_nodes(*wiring->store, *writer, spec);
  auto service = std::make_shared<cloudcore::ServiceEndpoints>();
  world.keep_alive(service);
  if (spec.load_balancer == CloudLoadBalancer::keepalived) {
    add_keepalived(world, spec, service);
  } else {
    auto controller = std::make_shared<EndpointsController>(world, wiring->store, service, spec);
    world.trace().add_observer(controller.get());
    world.keep_alive(controller);
  }
  for (const std::string& node_name : spec.edge_nodes) {
    const auto node = world.find_node(node_name);
    HASIM_ASSERT(node.has_value());
    cloudcore::EdgeHubConfig edge = spec.edge;
    edge.node = node_name;
    // edged's nodeStatusUpdateFrequency (10s), modelled for v1.7+'s tunnel-port routing.
    if (active_active) edge.node_status_period = seconds(10);
    const cloudcore::ServiceEndpoints* endpoints = service.get();
    edge.dial = [endpoints](Rng& rng) { return endpoints->pick(rng); };
    world.add_process(*node, std::string(CloudCoreSpec::kEdgeProcess),
                      [edge] { return std::make_unique<cloudcore::EdgeHub>(edge); });
  }
}

}  // namespace hasim
