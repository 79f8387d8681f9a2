#pragma once
// The kinds of trace event of the workload controllers and kubelets (scenarios/workloads/),
// declared once (see sim/trace_kinds.hpp for why). A container restarted by its kubelet is
// cluster::trace_kind::kKubeletRestart, as for static pods. Never rename a kind.
#include <array>
#include <string_view>

namespace hasim::workloads::trace_kind {

inline constexpr std::string_view kSetScaled = "sts-replicas";  // spec.replicas set
// The template changed (a new update revision), or the rollout completed (current revision).
inline constexpr std::string_view kSetRevision = "sts-revision";
// A container now crashes at every start until `until_ns` (CrashLoopBackOff).
inline constexpr std::string_view kCrashLoop = "container-crash-loop";
// A pod's image cannot be pulled: its containers never start.
inline constexpr std::string_view kImagePullBackOff = "pod-image-pull-backoff";
inline constexpr std::string_view kPodCreate = "pod-create";  // the controller created it
inline constexpr std::string_view kPodScheduled = "pod-scheduled";
inline constexpr std::string_view kPodUnschedulable = "pod-unschedulable";  // FitError
inline constexpr std::string_view kPodReady = "pod-ready";
inline constexpr std::string_view kPodNotReady = "pod-not-ready";
// A deletion was asked for (deletionTimestamp set), and the pod object is gone.
inline constexpr std::string_view kPodDelete = "pod-deletion";
inline constexpr std::string_view kPodGone = "pod-gone";
// The node lifecycle controller marked a node NotReady (its pods not ready), or Ready again.
inline constexpr std::string_view kNodeNotReady = "node-not-ready";
inline constexpr std::string_view kNodeReady = "node-ready";
// A claim's PersistentVolume was provisioned in a zone (WaitForFirstConsumer).
inline constexpr std::string_view kVolumeProvisioned = "pv-provisioned";
// A claim was deleted with its volume (kubectl delete pvc).
inline constexpr std::string_view kClaimDeleted = "pvc-deleted";
// The PodDisruptionBudget's status changed; an eviction's outcome (eviction.go).
inline constexpr std::string_view kPdbStatus = "pdb-status";
inline constexpr std::string_view kPodEviction = "pod-eviction";
// kubectl cordon / uncordon, and kubectl drain's progress ("result": started, evicted,
// failed, done, refused).
inline constexpr std::string_view kCordon = "node-cordon";
inline constexpr std::string_view kUncordon = "node-uncordon";
inline constexpr std::string_view kDrain = "drain";

inline constexpr std::array kAll{
    kSetScaled,    kPodCreate,        kPodScheduled,      kPodUnschedulable,
    kPodReady,     kPodNotReady,      kPodDelete,         kPodGone,
    kNodeNotReady, kNodeReady,        kVolumeProvisioned, kPdbStatus,
    kPodEviction,  kCordon,           kUncordon,          kDrain,
    kSetRevision,  kImagePullBackOff, kCrashLoop,         kClaimDeleted};

}  // namespace hasim::workloads::trace_kind
