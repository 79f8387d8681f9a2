#pragma once
// API objects as kube-apiserver stores them: metadata with a resourceVersion (the only
// mutual-exclusion mechanism Kubernetes offers, a compare-and-swap on it) and the specs the
// control-plane components use today: coordination.k8s.io/v1 Lease, Endpoints / ConfigMap
// carrying annotations (the legacy leader-election lock) or data, and the
// coordination.k8s.io/v1beta1 LeaseCandidate of Coordinated Leader Election (KEP-4355), and
// the part of a v1 Pod that pod readiness reads (spec.readinessGates, status.conditions; KubeEdge
// CloudCore patches its own pod's readiness-gate condition).
#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/time.hpp"

namespace hasim::api {

enum class Kind : std::uint8_t {
  lease,
  endpoints,
  config_map,
  lease_candidate,
  pod,
  secret,       // v1 Secret: `data` (KubeEdge delivers it to edge nodes)
  object_sync,  // reliablesyncs.kubeedge.io/v1alpha1 ObjectSync (KubeEdge CloudCore)
  node,         // v1 Node (cluster-scoped, namespace ""): KubeEdge's edge nodes
  etcd,         // druid.gardener.cloud/v1alpha1 Etcd: etcd-druid writes its status
};
std::string_view to_string(Kind kind);

struct ObjectKey {
  Kind kind = Kind::lease;
  std::string namespace_;
  std::string name;
  auto operator<=>(const ObjectKey&) const = default;
  bool operator==(const ObjectKey&) const = default;
};
// "Lease kube-system/kube-scheduler"
std::string describe(const ObjectKey& key);

// coordination.k8s.io/v1 LeaseSpec. Every field is optional (a pointer in Go); times are the
// writer's wall clock (MicroTime), never compared by the apiserver.
struct LeaseSpec {
  std::optional<std::string> holderIdentity;
  std::optional<std::int32_t> leaseDurationSeconds;
  std::optional<LocalTime> acquireTime;
  std::optional<LocalTime> renewTime;
  std::optional<std::int32_t> leaseTransitions;
  std::optional<std::string> strategy;         // CoordinatedLeaseStrategy (KEP-4355)
  std::optional<std::string> preferredHolder;  // set by the CLE controller: "end of term"
  bool operator==(const LeaseSpec&) const = default;
};

// coordination.k8s.io/v1beta1 LeaseCandidateSpec. Times are MicroTime from the writer's
// wall clock: the candidate writes renewTime, the election controller writes pingTime.
struct LeaseCandidateSpec {
  std::string leaseName;  // required, immutable: the Lease this candidate contends for
  std::optional<LocalTime> pingTime;
  std::optional<LocalTime> renewTime;
  std::string binaryVersion;     // semver without a leading "v"
  std::string emulationVersion;  // <= binaryVersion; required for OldestEmulationVersion
  std::string strategy;          // "OldestEmulationVersion" or a qualified third-party name
  // KEP-4355 "Priority-based CLE" (KEP PR #5357): proposed, not implemented upstream; only
  // the controller's `priority` mode reads it. Unset or > 0.
  std::optional<std::int32_t> priority;
  bool operator==(const LeaseCandidateSpec&) const = default;
};

// The v1 Pod fields pod readiness depends on, besides its containers' readiness (which the
// kubelet reports from the container runtime; see models/cloudcore/readiness.hpp).
struct PodReadiness {
  std::vector<std::string> readinessGates;  // spec.readinessGates[].conditionType
  // status.conditions[] as type -> status ("True", "False", "Unknown").
  std::map<std::string, std::string> conditions;
  bool operator==(const PodReadiness&) const = default;
};

// The v1 Pod spec fields KubeEdge's delivery reads: spec.nodeName (a pod bound to an edge
// node is sent there) and the ConfigMaps and Secrets its volumes and env reference (the edge
// queries those it lacks; KE@v1.5.0:cloud/pkg/edgecontroller/manager/location.go).
struct PodSpec {
  std::string nodeName;
  std::vector<std::string> configMaps;  // names, in the pod's namespace
  std::vector<std::string> secrets;
  bool operator==(const PodSpec&) const = default;
};

// reliablesyncs.kubeedge.io/v1alpha1 ObjectSync, named "<nodeName>.<objectUID>" in the
// object's namespace (KE@v1.5.0:cloud/pkg/apis/reliablesyncs/v1alpha1/objectsync_types.go):
// the resourceVersion of the object the edge node last acknowledged.
struct ObjectSyncSpec {
  std::string objectKind;  // "pod", "configmap", "secret" (the message's resource type)
  std::string objectName;
  // status.objectResourceVersion; unset until the first UpdateStatus.
  std::optional<std::uint64_t> objectResourceVersion;
  bool operator==(const ObjectSyncSpec&) const = default;
};

struct Object {
  Object() = default;
  // Copies only the parts that are set (object.cpp): most parts belong to other kinds and are
  // empty, and even an empty string's copy is an out-of-line call; a Lease or LeaseCandidate
  // is copied on every write the control plane makes.
  Object(const Object& other);
  Object(Object&&) = default;
  Object& operator=(const Object&) = default;
  Object& operator=(Object&&) = default;

  ObjectKey key;
  std::string uid;  // metadata.uid: set by whoever creates it here (the ideal store does not)
  std::uint64_t resourceVersion = 0;  // 0 in a request: no precondition (create)
  // Set by kube-apiserver on create from its wall clock, whole seconds (metav1.Time).
  LocalTime creationTimestamp{};
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  LeaseSpec lease;                          // kind lease
  std::map<std::string, std::string> data;  // kind config_map
  LeaseCandidateSpec candidate;             // kind lease_candidate
  PodReadiness pod;                         // kind pod
  PodSpec pod_spec;                         // kind pod
  ObjectSyncSpec object_sync;               // kind object_sync
  // Kind node: status.daemonEndpoints.kubeletEndpoint.Port, where kube-apiserver sends
  // `kubectl logs/exec` for the node (KubeEdge v1.7+: the tunnel port of a CloudCore).
  int kubelet_port = 0;
};

// metav1.MicroTime keeps microseconds, metav1.Time whole seconds: a time written to the API
// loses what is finer (rounded down, also before the epoch).
LocalTime micro_time(LocalTime time);
LocalTime whole_seconds(LocalTime time);
using ObjectPtr = std::shared_ptr<const Object>;

// HTTP status codes the clients here distinguish, with the reason a Go client tests for
// (errors.IsNotFound, IsConflict, IsAlreadyExists, IsTimeout).
enum class Status : std::uint8_t {
  ok,                // 200
  created,           // 201
  not_found,         // 404
  conflict,          // 409 Conflict: stale resourceVersion, "the object has been modified"
  already_exists,    // 409 AlreadyExists
  gone,              // 410: a watch's resourceVersion is older than the history kept
  unavailable,       // 503
  timeout,           // 504: the server-side request timeout expired
  client_timeout,    // the client's own http.Client timeout expired (no response seen)
  context_canceled,  // the caller's context ended first
  not_initialized,   // a lock's local check failed before any request was made
  connection_reset,  // the server's process went away mid-request (EOF / connection reset)
};
bool is_success(Status status);
std::string_view to_string(Status status);

}  // namespace hasim::api
