#pragma once
// The kinds of trace event of KubeEdge CloudCore hot standby (models/cloudcore/), declared
// once (see sim/trace_kinds.hpp for why).
#include <array>
#include <string_view>

namespace hasim::cloudcore::trace_kind {

// TryToPatchPodReadinessGate finished: the condition it wrote, why, and the outcome.
inline constexpr std::string_view kGatePatch = "readiness-gate-patch";
// OnStartedLeading: core.StartModules() (the modules start; CloudHub first syncs its caches).
inline constexpr std::string_view kModulesStart = "cloudcore-modules-start";
// CloudHub's websocket server listens: from now on this CloudCore accepts edge connections.
inline constexpr std::string_view kCloudHubServing = "cloudhub-serving";
// TriggerGracefulShutdown (SIGINT to itself): the modules stop and the process exits.
inline constexpr std::string_view kGracefulShutdown = "cloudcore-graceful-shutdown";
// A CloudHub session with an edge node opened / ended (keepalive timeout, shutdown, closed).
inline constexpr std::string_view kSessionOpen = "cloudhub-session-open";
inline constexpr std::string_view kSessionClose = "cloudhub-session-close";
// EdgeHub (edgecore.hpp): connected to a CloudCore, lost it, one dial failed, an Init gave up.
inline constexpr std::string_view kEdgeConnected = "edgehub-connected";
inline constexpr std::string_view kEdgeDisconnected = "edgehub-disconnected";
inline constexpr std::string_view kEdgeDialFailed = "edgehub-dial-failed";
inline constexpr std::string_view kEdgeInitFailed = "edgehub-init-failed";
// The Service's endpoints (readiness.hpp): a CloudCore pod's address became ready / not ready
// in the load balancer (after the endpoints controller's and kube-proxy's delay).
inline constexpr std::string_view kEndpointReady = "service-endpoint-ready";
inline constexpr std::string_view kEndpointNotReady = "service-endpoint-not-ready";

// keepalived (keepalived.hpp): the vrrp_script's state changed; this host became MASTER (it
// takes the VIP) or went back to BACKUP.
inline constexpr std::string_view kVrrpScript = "vrrp-script";
inline constexpr std::string_view kVrrpMaster = "vrrp-master";
inline constexpr std::string_view kVrrpBackup = "vrrp-backup";

// v1.7+ (active_active.cpp): NegotiateTunnelPort's outcome: the port, and "negotiated",
// "reused", or the error that made the replica panic.
inline constexpr std::string_view kTunnelPort = "cloudcore-tunnel-port";
// UpstreamController wrote this replica's tunnel port into an edge node's Node status: from
// now on kube-apiserver sends `kubectl logs/exec` for it there.
inline constexpr std::string_view kNodeKubeletPort = "node-kubelet-port";
// saveSuccessPoint's Create of an ObjectSync failed (AlreadyExists when another replica
// created it first): logged, and the status is left to whoever created it.
inline constexpr std::string_view kObjectSyncCreateFailed = "objectsync-create-failed";

// Delivery (delivery.hpp): CloudHub wrote a message again (no ACK within 5s), gave one up
// after its last write, SyncController found an object newer than, or gone from, an
// ObjectSync.
inline constexpr std::string_view kMessageResend = "cloudhub-message-resend";
inline constexpr std::string_view kMessageDropped = "cloudhub-message-dropped";
inline constexpr std::string_view kSyncControllerSend = "synccontroller-send";
// EdgeCore's MetaManager (metamanager.hpp): what it did with a resource message (stored,
// removed, a duplicate, a stale version it kept out), and a query for a missing object.
inline constexpr std::string_view kEdgeStoreApply = "metamanager-apply";
inline constexpr std::string_view kEdgeQuery = "metamanager-query";
// The scenario's workload (scenarios/cloudcore/workload.cpp) wrote a pod, ConfigMap or Secret
// meant for edge nodes.
inline constexpr std::string_view kWorkload = "edge-workload";

inline constexpr std::array kAll{kTunnelPort, kNodeKubeletPort, kObjectSyncCreateFailed, kMessageResend, kMessageDropped, kSyncControllerSend,
                                 kEdgeStoreApply, kEdgeQuery, kWorkload, kGatePatch,       kModulesStart,
                                 kCloudHubServing, kGracefulShutdown, kSessionOpen,
                                 kSessionClose,   kEdgeConnected,     kEdgeDisconnected,
                                 kEdgeDialFailed, kEdgeInitFailed,    kEndpointReady,
                                 kEndpointNotReady, kVrrpScript,     kVrrpMaster,
                                 kVrrpBackup};

}  // namespace hasim::cloudcore::trace_kind
