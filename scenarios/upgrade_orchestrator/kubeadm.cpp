// The "kubeadm" upgrade method on the World (models/cluster/upgrade_methods.hpp says what
// kubeadm does and where upstream does it): node after node, each static pod's manifest is
// replaced in kubeadm's order; the kubelet notices it (after a start-jitter draw), stops the
// old pod (SIGTERM, killed after the grace period) and starts the new one once its PLEG sees
// the old one gone; kubeadm polls until the new pod runs before it moves the next manifest;
// then the node is drained and its kubelet upgraded (down for a downtime draw); the next node
// follows after the gap (plus the canary period after the first).
#include <memory>

#include "models/cluster/trace_kinds.hpp"
#include "models/cluster/upgrade_methods.hpp"
#include "scenarios/control_plane/control_plane.hpp"
#include "scenarios/upgrade_orchestrator/methods.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

// pkg/kubelet: the PLEG relists containers every second; a pod's old containers must be
// seen gone before the new pod's start.
constexpr Duration kPlegRelistPeriod = seconds(1);

class KubeadmUpgrade : public std::enable_shared_from_this<KubeadmUpgrade> {
 public:
  KubeadmUpgrade(World& world, const UpgradeSpec& spec, std::vector<std::string> nodes,
                 const ControlPlaneWiring& wiring, Rng rng)
      : w_(&world), spec_(spec), nodes_(std::move(nodes)), wiring_(&wiring), rng_(rng) {
    HASIM_ASSERT(spec_.method == UpgradeSpec::Method::kubeadm && !nodes_.empty());
    HASIM_ASSERT(spec_.stop == UpgradeSpec::Stop::terminate);  // the loader refuses power-off
  }

  void start() {
    auto self = shared_from_this();
    w_->at(TrueTime{spec_.at.ns}, [self] { self->next_step(); });
  }

 private:
  const std::string& node() const { return nodes_[node_]; }

  // The next step on this node, or the drain and kubelet upgrade after the last component.
  void next_step() {
    HASIM_ASSERT(node_ < nodes_.size() && step_ <= cluster::kubeadm_steps().size());
    if (step_ == cluster::kubeadm_steps().size()) return upgrade_kubelet();
    const cluster::KubeadmStep& step = cluster::kubeadm_steps()[step_++];
    if (step.external) {
      w_->trace_fault(cluster::trace_kind::kUpgradeComponent, node(),
                      {{"component", step.component}, {"skipped", "external etcd"}});
      return next_step();
    }
    move_manifest(step.component);
  }

  // upgradeComponent: the new manifest replaces the old one; the kubelet notices it later.
  void move_manifest(const std::string& component) {
    const std::string process = node() + "/" + component;
    std::shared_ptr<ComponentVersion> version = wiring_->versions.at(process);
    version->binary = spec_.to;
    version->emulation = spec_.to;
    const std::uint64_t starts_before = version->starts;
    w_->trace_fault(cluster::trace_kind::kUpgradeComponent, node(),
                    {{"component", component}, {"version", spec_.to}});
    auto self = shared_from_this();
    const ProcessId id = *w_->find_process(process);
    const TrueTime noticed = w_->now() + spec_.startJitter.sample(rng_);
    w_->at(noticed, [self, id] {
      // syncPod: the old pod stops first (a container already stopped has nothing to stop).
      if (self->w_->process_state(id) != ProcessState::stopped) {
        self->w_->terminate(id, self->spec_.grace);
      }
      self->relist(id, self->w_->now() + self->spec_.grace + kPlegRelistPeriod);
    });
    poll(component, version, starts_before, w_->now() + cluster::kUpgradeManifestTimeout);
  }

  // The kubelet starts the new pod at the first PLEG relist that finds the old one gone
  // (killed at the latest after the grace period). A node that is down starts it at boot.
  void relist(ProcessId id, TrueTime give_up) {
    auto self = shared_from_this();
    w_->at(w_->now() + kPlegRelistPeriod, [self, id, give_up] {
      if (self->w_->process_state(id) == ProcessState::stopped) return self->w_->restart(id);
      // Still running past its kill: the node rebooted it with the new manifest already.
      if (self->w_->now() > give_up) return;
      self->relist(id, give_up);
    });
  }

  // WaitForStaticPodHashChange, then WaitForPodsWithLabel: poll until the replaced pod runs.
  void poll(const std::string& component, std::shared_ptr<ComponentVersion> version,
            std::uint64_t starts_before, TrueTime deadline) {
    const ProcessId id = *w_->find_process(node() + "/" + component);
    const bool running = w_->process_state(id) == ProcessState::running;
    if (cluster::kubeadm_component_upgraded(version->starts > starts_before, running)) {
      w_->trace_fault(cluster::trace_kind::kUpgradeComponentReady, node(),
                      {{"component", component}, {"version", spec_.to}});
      return next_step();
    }
    if (w_->now() >= deadline) {
      // kubeadm rolls the manifests back and exits with an error; hasim stops the upgrade
      // there (restoring the old manifests is not modelled).
      return w_->trace_fault(cluster::trace_kind::kUpgradeFailed, node(),
                             {{"component", component}, {"reason", "UpgradeManifestTimeout"}});
    }
    auto self = shared_from_this();
    w_->at(w_->now() + cluster::kKubeadmPollInterval,
           [self, component, version, starts_before, deadline] {
             self->poll(component, version, starts_before, deadline);
           });
  }

  // kubectl drain (static pods stay: drain never evicts mirror pods), the kubelet upgraded
  // and restarted (its running containers survive a kubelet restart), kubectl uncordon.
  void upgrade_kubelet() {
    w_->trace_fault(cluster::trace_kind::kUpgradeDrain, node(), {});
    auto self = shared_from_this();
    w_->at(w_->now() + spec_.downtime.sample(rng_), [self] {
      self->w_->trace_fault(cluster::trace_kind::kUpgradeKubelet, self->node(),
                            {{"version", self->spec_.to}});
      self->next_node();
    });
  }

  void next_node() {
    ++node_;
    step_ = 0;
    if (node_ == nodes_.size()) return w_->trace_fault(cluster::trace_kind::kUpgradeDone, "", {});
    Duration wait = spec_.gap.sample(rng_);
    if (node_ == 1) wait = wait + spec_.canary;
    auto self = shared_from_this();
    w_->at(w_->now() + wait, [self] { self->next_step(); });
  }

  World* w_;
  UpgradeSpec spec_;
  std::vector<std::string> nodes_;
  const ControlPlaneWiring* wiring_;
  Rng rng_;
  std::size_t node_ = 0;
  std::size_t step_ = 0;
};

}  // namespace

void schedule_kubeadm_upgrade(World& world, const UpgradeSpec& spec, std::vector<std::string> nodes,
                              const ControlPlaneWiring& wiring, Rng rng) {
  auto upgrade = std::make_shared<KubeadmUpgrade>(world, spec, std::move(nodes), wiring, rng);
  upgrade->start();
}

}  // namespace hasim
