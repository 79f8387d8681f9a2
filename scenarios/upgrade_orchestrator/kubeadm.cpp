// The "kubeadm" upgrade method on the World (models/cluster/upgrade_methods.hpp says what
// kubeadm does and where upstream does it): node after node, each static pod's manifest is
// replaced in kubeadm's order; the kubelet notices it (after a start-jitter draw), stops the
// old pod (SIGTERM, killed after the grace period) and starts the new one once its PLEG sees
// the old one gone; kubeadm polls until the new pod runs before it moves the next manifest;
// then the node is drained and its kubelet upgraded (down for a downtime draw); the next node
// follows after the gap (plus the canary period after the first).
//
// A stacked etcd member is upgraded first on each node, as performEtcdStaticPodUpgrade does
// it (cmd/kubeadm/app/phases/upgrade/staticpods.go): the cluster must answer first
// (GetClusterStatus, "etcd cluster is not healthy"), then the member's manifest is replaced
// like any other (upgradeComponent), and kubeadm waits for etcd to become available again
// (WaitForClusterAvailable: every member answers a Status call) before the kube-apiserver's.
#include <functional>
#include <memory>
#include <optional>

#include "models/cluster/upgrade_plan.hpp"

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

// cmd/kubeadm/app/constants: EtcdAPICallTimeout (2 min) and EtcdAPICallRetryInterval
// (500 ms): getClusterStatus polls each endpoint's Status that often, for that long.
constexpr Duration kEtcdApiCallTimeout = minutes(2);
constexpr Duration kEtcdApiCallRetryInterval = milliseconds(500);
// performEtcdStaticPodUpgrade: WaitForClusterAvailable(retries 10, retryInterval 15 s), each
// attempt a getClusterStatus of up to EtcdAPICallTimeout: how long kubeadm waits at most.
constexpr Duration kEtcdAvailableTimeout = kEtcdApiCallTimeout * 10 + seconds(15) * 9;

class KubeadmUpgrade : public std::enable_shared_from_this<KubeadmUpgrade> {
 public:
  KubeadmUpgrade(World& world, const UpgradeSpec& spec, std::vector<std::string> nodes,
                 const ControlPlaneWiring& wiring, KubeadmEtcd etcd, Rng rng)
      : w_(&world),
        spec_(spec),
        nodes_(std::move(nodes)),
        wiring_(&wiring),
        etcd_(std::move(etcd)),
        rng_(rng) {
    HASIM_ASSERT(spec_.method == UpgradeSpec::Method::kubeadm && !nodes_.empty());
    HASIM_ASSERT(!etcd_.stacked || (!etcd_.members.empty() && etcd_.leader));
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
    if (step.component == cluster::kStackedEtcdComponent && etcd_.stacked) return upgrade_etcd();
    if (step.external) {
      w_->trace_fault(cluster::trace_kind::kUpgradeComponent, node(),
                      {{"component", step.component}, {"skipped", "external etcd"}});
      return next_step();
    }
    move_manifest(step.component);
  }

  // upgradeComponent: the new manifest replaces the old one; the kubelet notices it later.
  // An etcd member has no ComponentVersion (its image is etcd's, not Kubernetes'): its pod
  // counts as replaced once the kubelet has started the new one (relist).
  void move_manifest(const std::string& component) {
    const std::string process = node() + "/" + component;
    const bool etcd = component == cluster::kStackedEtcdComponent;
    std::shared_ptr<ComponentVersion> version = etcd ? nullptr : wiring_->versions.at(process);
    if (version != nullptr) {
      version->binary = spec_.to;
      version->emulation = spec_.to;
    }
    const std::uint64_t starts_before = version != nullptr ? version->starts : 0;
    auto restarted = std::make_shared<bool>(false);
    std::function<bool()> replaced = [version, starts_before, restarted] {
      return version != nullptr ? version->starts > starts_before : *restarted;
    };
    w_->trace_fault(cluster::trace_kind::kUpgradeComponent, node(),
                    {{"component", component}, {"version", spec_.to}});
    auto self = shared_from_this();
    const ProcessId id = *w_->find_process(process);
    const TrueTime noticed = w_->now() + spec_.startJitter.sample(rng_);
    w_->at(noticed, [self, id, restarted] {
      // syncPod: the old pod stops first (a container already stopped has nothing to stop).
      if (self->w_->process_state(id) != ProcessState::stopped) {
        self->w_->terminate(id, self->spec_.grace);
      }
      self->relist(id, self->w_->now() + self->spec_.grace + kPlegRelistPeriod, restarted);
    });
    poll(component, std::move(replaced), w_->now() + cluster::kUpgradeManifestTimeout);
  }

  // The kubelet starts the new pod at the first PLEG relist that finds the old one gone
  // (killed at the latest after the grace period). A node that is down starts it at boot.
  void relist(ProcessId id, TrueTime give_up, std::shared_ptr<bool> restarted) {
    auto self = shared_from_this();
    w_->at(w_->now() + kPlegRelistPeriod, [self, id, give_up, restarted] {
      if (self->w_->process_state(id) == ProcessState::stopped) {
        *restarted = true;
        return self->w_->restart(id);
      }
      // Still running past its kill: the node rebooted it with the new manifest already.
      if (self->w_->now() > give_up) {
        *restarted = true;
        return;
      }
      self->relist(id, give_up, restarted);
    });
  }

  // WaitForStaticPodHashChange, then WaitForPodsWithLabel: poll until the replaced pod runs.
  // etcd's then waits for the cluster (performEtcdStaticPodUpgrade, after upgradeComponent).
  void poll(const std::string& component, std::function<bool()> replaced, TrueTime deadline) {
    const ProcessId id = *w_->find_process(node() + "/" + component);
    const bool running = w_->process_state(id) == ProcessState::running;
    if (cluster::kubeadm_component_upgraded(replaced(), running)) {
      if (component == cluster::kStackedEtcdComponent) {
        auto self = shared_from_this();
        // "[upgrade/etcd] Waiting for etcd to become available"
        return wait_for_etcd(
            w_->now() + kEtcdAvailableTimeout, "timeout waiting for etcd cluster to be available",
            [self] { self->component_ready(std::string(cluster::kStackedEtcdComponent)); });
      }
      return component_ready(component);
    }
    if (w_->now() >= deadline) {
      // kubeadm rolls the manifests back and exits with an error; hasim stops the upgrade
      // there (restoring the old manifests is not modelled).
      return w_->trace_fault(cluster::trace_kind::kUpgradeFailed, node(),
                             {{"component", component}, {"reason", "UpgradeManifestTimeout"}});
    }
    auto self = shared_from_this();
    w_->at(w_->now() + cluster::kKubeadmPollInterval,
           [self, component, replaced = std::move(replaced), deadline] {
             self->poll(component, replaced, deadline);
           });
  }

  void component_ready(const std::string& component) {
    w_->trace_fault(cluster::trace_kind::kUpgradeComponentReady, node(),
                    {{"component", component}, {"version", spec_.to}});
    next_step();
  }

  // performEtcdStaticPodUpgrade for a stacked member.
  void upgrade_etcd() {
    HASIM_ASSERT(etcd_.stacked);
    if (etcd_.downgrade) {
      // The target release's etcd is older than the running one: a non-fatal error, and
      // kubeadm goes on with the other components.
      w_->trace_fault(cluster::trace_kind::kUpgradeComponent, node(),
                      {{"component", std::string(cluster::kStackedEtcdComponent)},
                       {"skipped", "won't downgrade etcd"}});
      return next_step();
    }
    // "Checking health state of etcd before proceeding with the upgrade": GetClusterStatus.
    auto self = shared_from_this();
    wait_for_etcd(w_->now() + kEtcdApiCallTimeout, "etcd cluster is not healthy",
                  [self] { self->move_manifest(std::string(cluster::kStackedEtcdComponent)); });
  }

  // getClusterStatus: a Status call to every member's endpoint, retried every 500 ms, until
  // all answered (then `then`) or `deadline` passed (the upgrade fails with `reason`).
  void wait_for_etcd(TrueTime deadline, std::string_view reason, std::function<void()> then) {
    if (etcd_answers()) return then();
    if (w_->now() >= deadline) {
      return w_->trace_fault(cluster::trace_kind::kUpgradeFailed, node(),
                             {{"component", std::string(cluster::kStackedEtcdComponent)},
                              {"reason", std::string(reason)}});
    }
    auto self = shared_from_this();
    w_->at(w_->now() + kEtcdApiCallRetryInterval, [self, deadline, reason, then = std::move(then)] {
      self->wait_for_etcd(deadline, reason, then);
    });
  }

  // Whether every member answers kubeadm's Status call from this node. A member's Status
  // (v3rpc/maintenance.go) answers from its own state, but etcd serves clients only once
  // the member is ready (embed/serve.go waits for ReadyNotify, closed when the member's
  // publish has been committed): so the member runs, this node reaches it, and it reaches
  // a leader.
  bool etcd_answers() const {
    const NodeId here = *w_->find_node(node());
    const std::optional<std::string> leader = etcd_.leader();
    if (!leader) return false;
    const NodeId lead = w_->process_node(*w_->find_process(*leader));
    for (const std::string& member : etcd_.members) {
      const ProcessId id = *w_->find_process(member);
      const NodeId at = w_->process_node(id);
      if (w_->process_state(id) != ProcessState::running) return false;
      if (!w_->reachable(here, at) || !w_->reachable(at, here)) return false;
      if (!w_->reachable(lead, at) || !w_->reachable(at, lead)) return false;
    }
    return true;
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
  KubeadmEtcd etcd_;
  Rng rng_;
  std::size_t node_ = 0;
  std::size_t step_ = 0;
};

}  // namespace

void schedule_kubeadm_upgrade(World& world, const UpgradeSpec& spec, std::vector<std::string> nodes,
                              const ControlPlaneWiring& wiring, KubeadmEtcd etcd, Rng rng) {
  auto upgrade =
      std::make_shared<KubeadmUpgrade>(world, spec, std::move(nodes), wiring, std::move(etcd), rng);
  upgrade->start();
}

}  // namespace hasim
