#pragma once
// The decisions of the two upgrade methods that follow real tools, kept free of the World so
// tests drive them by hand (the executors are scenarios/upgrade_orchestrator/kubeadm.cpp and
// replace.cpp):
//
//  kubeadm  `kubeadm upgrade apply` / `kubeadm upgrade node`, in place, one node after another
//           (cmd/kubeadm/app/phases/upgrade/staticpods.go, StaticPodControlPlane): etcd first
//           (performEtcdStaticPodUpgrade, which returns at once for an external etcd), then
//           constants.ControlPlaneComponents in order: kube-apiserver, kube-controller-manager,
//           kube-scheduler. upgradeComponent moves the new manifest in, waits for the mirror
//           pod's hash to change (WaitForStaticPodHashChange: "otherwise ... kubeadm checks the
//           API endpoint ... of the OLD Static Pod component and proceeds quickly enough") and
//           for the pod to run (WaitForPodsWithLabel), within UpgradeManifestTimeout (5 min).
//           Then the documented procedure drains the node, upgrades and restarts the kubelet
//           and uncordons it.
//  replace  Cluster API's KubeadmControlPlane rollout (controlplane/kubeadm/internal/controllers:
//           upgrade.go, scale.go) with the default RollingUpdate maxSurge 1: while a machine is
//           outdated, scale up (a new machine at the new version joins) once preflightChecks
//           pass (every machine's kube-apiserver, kube-controller-manager and kube-scheduler
//           pods healthy, no deletion in progress), then scale down: selectMachineForScaleDown
//           picks an outdated machine in the failure domain with most machines, the oldest
//           there; it is drained and deleted. So for a while N+1 kube-apiservers serve.
//           No etcd member is created or removed: the control plane's store is the ideal one
//           or an external etcd (the loader refuses replace over stacked members: member add
//           and remove during a rollout are not modelled).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/time.hpp"

namespace hasim::cluster {

// kubeadm's order on each node. etcd is skipped unless the control plane stands on stacked
// members: the ideal store stands for an external etcd, and performEtcdStaticPodUpgrade
// refuses to touch one ("external etcd detected"). A stacked member is upgraded first
// (scenarios/upgrade_orchestrator/kubeadm.cpp: the cluster's health checked, the manifest
// replaced, then WaitForClusterAvailable).
struct KubeadmStep {
  std::string component;
  // Not a static pod on this node unless etcd is stacked: traced, nothing restarted.
  bool external = false;
};
const std::vector<KubeadmStep>& kubeadm_steps();

// staticpods.go UpgradeManifestTimeout, and the waiter's poll interval
// (apiclient.KubeWaiter polls every constants.KubernetesAPICallRetryInterval, 500 ms).
inline constexpr Duration kUpgradeManifestTimeout = minutes(5);
inline constexpr Duration kKubeadmPollInterval = milliseconds(500);

// Whether upgradeComponent may go on to the next component: the kubelet has replaced the
// static pod since the manifest moved (the mirror pod's hash changed) and the new one runs.
bool kubeadm_component_upgraded(bool replaced_since_manifest_moved, bool running);

// KCP's requeue interval when preflight checks fail (consts.go preflightFailedRequeueAfter).
// (Its deleteRequeueAfter, 30 s, is the scenario's "gap" here.)
inline constexpr Duration kPreflightFailedRequeueAfter = seconds(15);
// kubeadm's static pod probes (cmd/kubeadm/app/util/staticpod: LivenessProbe/StartupProbe
// InitialDelaySeconds 10): a joined machine's pods report healthy no sooner.
inline constexpr Duration kStaticPodProbeDelay = seconds(10);

// A control-plane Machine as KCP sees it.
struct Machine {
  std::string node;
  std::string failure_domain;  // the node's zone
  std::size_t created = 0;     // creation order: lower is older
  bool outdated = false;       // runs the old version
};

// selectMachineForScaleDown for a rollout: among the outdated machines (all machines if none
// is), the failure domain with most machines (counting every machine; ties: the domain's
// name, first), then the oldest eligible machine there. Empty input: none.
std::optional<std::size_t> select_machine_for_scale_down(const std::vector<Machine>& machines);

// Names for the machines a replace upgrade creates, one per control-plane node: the nodes'
// common "PREFIX-N" numbering continued ("cp-1".."cp-3" -> "cp-4".."cp-6"), otherwise
// "replacement-1"...; a name in `taken` is skipped.
std::vector<std::string> replacement_nodes(const std::vector<std::string>& control_plane,
                                           const std::vector<std::string>& taken);

}  // namespace hasim::cluster
