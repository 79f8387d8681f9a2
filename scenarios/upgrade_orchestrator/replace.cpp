// The "replace" upgrade method on the World: KubeadmControlPlane's rolling replacement with
// maxSurge 1 (models/cluster/upgrade_methods.hpp says what Cluster API does and where). One
// reconcile loop: while a machine is outdated, scale up when there are no more machines than
// control-plane nodes, else scale down; each only after preflightChecks pass (every machine's
// static pods run, its node has joined), requeueing after preflightFailedRequeueAfter. A new
// machine's node boots after a provisioning draw and its kubelet starts the static pods at
// the new version. A deleted machine is drained and its node shut down (SIGTERM to every
// container, the node gone after the grace period; or powered off); the next reconcile waits
// the gap (deleteRequeueAfter in Cluster API; the scenario's "gap" here, plus the canary
// period after the first replacement).
#include <memory>

#include "models/cluster/trace_kinds.hpp"
#include "models/cluster/upgrade_methods.hpp"
#include "models/cluster/upgrade_plan.hpp"
#include "scenarios/control_plane/control_plane.hpp"
#include "scenarios/upgrade_orchestrator/methods.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

class ReplaceUpgrade : public std::enable_shared_from_this<ReplaceUpgrade> {
 public:
  ReplaceUpgrade(World& world, const UpgradeSpec& spec, const std::vector<std::string>& nodes,
                 const std::map<std::string, std::string>& zones, const ControlPlaneWiring& wiring,
                 Rng rng)
      : w_(&world), spec_(spec), wiring_(&wiring), rng_(rng), desired_(nodes.size()) {
    HASIM_ASSERT(spec_.method == UpgradeSpec::Method::replace);
    HASIM_ASSERT(spec_.replacements.size() == nodes.size());
    for (const std::string& node : nodes) add_machine(node, zones.at(node), true);
    for (const std::string& node : spec_.replacements) zones_[node] = zones.at(node);
  }

  void start() { requeue(TrueTime{spec_.at.ns}); }

 private:
  struct Joined {
    // Machine.status.nodeRef is set and its pods' health conditions are true.
    bool joined = false;
  };

  void add_machine(const std::string& node, const std::string& zone, bool outdated) {
    machines_.push_back(cluster::Machine{node, zone, created_++, outdated});
    joined_.push_back(Joined{outdated});
  }

  // ctrl.Result{Requeue...}: one pending reconcile at a time; a newer request (a watch event
  // such as a node joining) supersedes an older one.
  void requeue(TrueTime at) {
    auto self = shared_from_this();
    w_->at(at, [self, generation = ++generation_] {
      if (generation == self->generation_) self->reconcile();
    });
  }

  // upgradeControlPlane: scale up while Replicas <= desired, else scale down an outdated one.
  void reconcile() {
    const bool outdated = std::any_of(machines_.begin(), machines_.end(),
                                      [](const cluster::Machine& m) { return m.outdated; });
    if (!outdated) return w_->trace_fault(cluster::trace_kind::kUpgradeDone, "", {});
    if (machines_.size() <= desired_) return scale_up();
    const auto victim = cluster::select_machine_for_scale_down(machines_);
    HASIM_ASSERT(victim.has_value());
    if (!preflight(*victim)) return requeue(w_->now() + cluster::kPreflightFailedRequeueAfter);
    scale_down(*victim);
  }

  // preflightChecks: every machine but `excluded` has a node whose control-plane pods run.
  bool preflight(std::optional<std::size_t> excluded) const {
    for (std::size_t i = 0; i < machines_.size(); ++i) {
      if (excluded && i == *excluded) continue;
      if (!joined_[i].joined) return false;  // "does not have a corresponding Node yet"
      for (const std::string& component : cluster::control_plane_components()) {
        const ProcessId id = *w_->find_process(machines_[i].node + "/" + component);
        if (w_->process_state(id) != ProcessState::running) return false;
      }
    }
    return true;
  }

  void scale_up() {
    if (!preflight(std::nullopt)) return requeue(w_->now() + cluster::kPreflightFailedRequeueAfter);
    HASIM_ASSERT(next_spare_ < spec_.replacements.size());
    const std::string node = spec_.replacements[next_spare_++];
    for (const std::string& component : cluster::control_plane_components()) {
      ComponentVersion& version = *wiring_->versions.at(node + "/" + component);
      version.binary = spec_.to;
      version.emulation = spec_.to;
    }
    w_->trace_fault(cluster::trace_kind::kUpgradeMachineCreate, node, {{"version", spec_.to}});
    add_machine(node, zones_.at(node), false);
    auto self = shared_from_this();
    w_->at(w_->now() + spec_.provision.sample(rng_), [self, node] {
      // kubeadm join: the kubelet starts every static pod of the new version at boot. The
      // Machine counts as joined, its pods healthy, once their probes pass: kubeadm's static
      // pod probes start after initialDelaySeconds (10 s); KCP reconciles then.
      self->w_->node_up(*self->w_->find_node(node));
      self->w_->at(self->w_->now() + cluster::kStaticPodProbeDelay, [self, node] {
        for (std::size_t i = 0; i < self->machines_.size(); ++i) {
          if (self->machines_[i].node == node) self->joined_[i].joined = true;
        }
        self->requeue(self->w_->now());
      });
    });
    requeue(w_->now());  // scaleUpControlPlane returns Requeue: true
  }

  // The Machine is deleted: drained (static pods stay), its node shut down.
  void scale_down(std::size_t victim) {
    const cluster::Machine machine = machines_[victim];
    machines_.erase(machines_.begin() + static_cast<std::ptrdiff_t>(victim));
    joined_.erase(joined_.begin() + static_cast<std::ptrdiff_t>(victim));
    w_->trace_fault(cluster::trace_kind::kUpgradeMachineDelete, machine.node, {});
    const NodeId node = *w_->find_node(machine.node);
    Duration gone{};
    if (spec_.stop == UpgradeSpec::Stop::terminate) {
      for (const std::string& component : cluster::control_plane_components()) {
        w_->terminate(*w_->find_process(machine.node + "/" + component), spec_.grace);
      }
      gone = spec_.grace;
    }
    Duration wait = gone + spec_.gap.sample(rng_);
    if (first_) wait = wait + spec_.canary;
    first_ = false;
    World* w = w_;
    w_->at(w_->now() + gone, [w, node] { w->node_down(node); });
    requeue(w_->now() + wait);
  }

  World* w_;
  UpgradeSpec spec_;
  const ControlPlaneWiring* wiring_;
  Rng rng_;
  std::size_t desired_;
  std::vector<cluster::Machine> machines_;
  std::vector<Joined> joined_;  // beside machines_
  std::map<std::string, std::string> zones_;
  std::size_t created_ = 0;
  std::size_t next_spare_ = 0;
  std::uint64_t generation_ = 0;
  bool first_ = true;
};

}  // namespace

void schedule_replace_upgrade(World& world, const UpgradeSpec& spec,
                              const std::vector<std::string>& nodes,
                              const std::map<std::string, std::string>& zones,
                              const ControlPlaneWiring& wiring, Rng rng) {
  auto upgrade = std::make_shared<ReplaceUpgrade>(world, spec, nodes, zones, wiring, rng);
  upgrade->start();
}

}  // namespace hasim
