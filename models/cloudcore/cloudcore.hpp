#pragma once
// KubeEdge CloudCore. In active-active mode (v1.7+) it skips all that follows on election
// and the gate: see active_active.cpp. In hot-standby HA (v1.3 - v1.6), as
// cloud/pkg/leaderelection wires it (KE@v1.5.0:cloud/pkg/leaderelection/leaderelection.go,
// KE@v1.5.0:cloud/cmd/cloudcore/app/server.go):
//  - identity "<hostname>_<uuid>", client-go's LeaderElector (models/election) over the
//    "endpointsleases" MultiLock kubeedge/cloudcorelease, 15s / 10s / 2s, no ReleaseOnCancel,
//    through a clientset without an HTTP timeout (utils.KubeClient sets none);
//  - a standby runs no module: CloudHub's websocket server does not listen, so an edge that
//    dials it is refused;
//  - OnStartedLeading: core.StartModules() starts every module in its own goroutine (CloudHub
//    first waits for its informer caches: `informerSync`, then listens), and at once patches
//    the pod's readiness-gate condition kubeedge.io/CloudCoreIsLeader True; a failed patch
//    triggers the graceful shutdown;
//  - OnStoppedLeading: (v1.5) patches the gate False, logging a failure, then
//    TriggerGracefulShutdown (SIGINT to itself): modules clean up and the process exits 0;
//    the kubelet restarts the container, which comes back as a standby;
//  - v1.5 (the kubeedge#2156 fix) also patches the gate False when Run starts, before the
//    election; v1.3 never resets it, so a leader that crashed leaves True behind.
// TryToPatchPodReadinessGate: GET the pod, set the condition, PATCH the status subresource
// (a strategic-merge patch carries no resourceVersion, so it overwrites nothing else),
// retried up to 3 times on Conflict only. The GET's error is overwritten unread, so a failed
// GET still sends the patch (computed from an empty pod: only the condition). Each call builds
// a new clientset (utils.KubeClient) without a timeout: its requests dial a new connection,
// which fails after the rest client's 30s dial timeout when the apiserver is unreachable
// (`patch_dial_timeout`; a reachable but hung apiserver would instead answer 504 after its
// request timeout, which this model cuts at the same 30s).
// CloudHub ends a node's session when no keepalive came for keepaliveInterval (30s;
// KE@v1.5.0:cloud/pkg/cloudhub/handler/messagehandler.go KeepaliveCheckLoop).
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/apiserver/client.hpp"
#include "models/cloudcore/delivery.hpp"
#include "models/election/leader_elector.hpp"

namespace hasim::cloudcore {

// "v1.3" and "v1.5": hot standby (above); "v1.7+": active-active (active_active.cpp), where
// leader election, the readiness gate and /readyz are gone (KE@v1.7.0:cloud/cmd/cloudcore/
// app/server.go): every replica starts its modules at once, after negotiating its tunnel port
// (tunnel_port.hpp), and serves the edges the load balancer sends it.
enum class CloudCoreMode : std::uint8_t { v1_3, v1_5, v1_7_plus };
std::string_view to_string(CloudCoreMode mode);
inline bool is_hot_standby(CloudCoreMode mode) { return mode != CloudCoreMode::v1_7_plus; }

election::LeaderElectionConfig default_election();

struct CloudCoreConfig {
  CloudCoreMode mode = CloudCoreMode::v1_5;
  std::string node;  // os.Hostname(): the identity's first half
  std::string pod_namespace = "kubeedge";  // CLOUDCORE_POD_NAMESPACE
  std::string pod_name;                    // CLOUDCORE_POD_NAME
  std::string lease_namespace = "kubeedge";
  std::string lease_name = "cloudcorelease";
  std::string lock_type = "endpointsleases";
  // 15s / 10s / 2s, ReleaseOnCancel unset, Name "cloudcore" (makeLeaderElectionConfig).
  election::LeaderElectionConfig election = default_election();
  std::vector<std::string> apiservers;  // "node/kube-apiserver"
  bool load_balanced = false;
  Duration informer_sync = seconds(1);       // CloudHub's WaitForCacheSync before it listens
  Duration keepalive_interval = seconds(30);  // cloudHub.keepaliveInterval
  Duration readyz_timeout = seconds(20);      // NewLeaderReadyzAdaptor(20 * time.Second)
  int patch_retries = 3;                      // TryToPatchPodReadinessGate's maxRetries
  Duration patch_dial_timeout = seconds(30);  // net.Dialer Timeout of a new rest client
  DeliveryConfig delivery;                    // the edge nodes, resend and sync periods
  // v1.7+: `time.Sleep(rand.Int31n(10) seconds)` before NegotiateTunnelPort, whole seconds
  // below this bound, drawn from the process's stream.
  Duration tunnel_port_max_wait = seconds(10);
};

class CloudCore final : public Process {
 public:
  explicit CloudCore(CloudCoreConfig config);
  ~CloudCore() override;
  void on_start(Env& env) override;
  void on_message(Env& env, ProcessId from, const Message& message) override;
  void on_timer(Env& env, TimerId timer, std::uint64_t tag) override;
  void on_terminate(Env& env) override;  // SIGTERM: core.GracefulShutdown

  // /readyz on the CloudHub HTTPS server (the ReadyzAdaptor); nullopt = 200.
  std::optional<std::string> readyz(Env& env) const;
  bool serving() const { return serving_; }
  std::size_t sessions() const { return sessions_.size(); }

 private:
  using PatchDone = std::function<void(Env&, api::Status)>;
  std::string lease() const { return config_.lease_namespace + "/" + config_.lease_name; }
  api::ObjectKey pod_key() const;
  void patch_gate(Env& env, std::string_view status, std::string_view why, PatchDone done);
  void patch_attempt(Env& env, std::shared_ptr<api::Object> pod, int attempt,
                     std::string_view why, PatchDone done);
  // One request of TryToPatchPodReadinessGate, on its own context, given up (context
  // canceled) after patch_dial_timeout.
  void patch_request(Env& env, api::Verb verb, std::shared_ptr<api::Object> pod,
                     api::ApiTransport::Callback done);
  void started_leading(Env& env);
  // core.StartModules: the delivery's informers, CloudHub listening after its cache sync.
  void start_modules(Env& env);
  // v1.7+ (active_active.cpp): the random sleep, then NegotiateTunnelPort, then the modules.
  void start_active_active(Env& env);
  void negotiate_tunnel_port(Env& env);
  void write_tunnel_port(Env& env, const api::Response& got, const std::string& ip);
  void tunnel_port_result(Env& env, std::optional<int> port, std::string_view result);
  // UpstreamController.updateNodeStatus: Get the Node, write this replica's tunnel port into
  // its kubelet endpoint, UpdateStatus (failures only logged).
  void update_node_status(Env& env, const std::string& node);
  void stopped_leading(Env& env);
  void graceful_shutdown(Env& env, std::string_view why);
  void on_edge_connect(Env& env, ProcessId from, const std::string& node);
  void on_keepalive(Env& env, ProcessId from, const std::string& node);
  bool session_with(const std::string& node, ProcessId from) const;
  void close_session(Env& env, const std::string& node, std::string_view why, bool tell_edge);

  CloudCoreConfig config_;
  std::string identity_;
  std::unique_ptr<api::ApiClient> client_;
  std::unique_ptr<election::ResourceLock> lock_;
  std::unique_ptr<election::LeaderElector> elector_;
  bool modules_started_ = false;
  bool serving_ = false;  // CloudHub's websocket server listens
  bool shutting_down_ = false;
  TagSpace module_tags_;     // CloudHub's informer sync
  TagSpace keepalive_tags_;  // one per session: tag(session serial)
  TagSpace patch_tags_;      // tag(context) of a patch request in flight
  TagSpace tunnel_tags_;     // v1.7+: the sleep before NegotiateTunnelPort
  std::optional<int> tunnel_port_;  // v1.7+: config.CommonConfig.TunnelPort, once negotiated
  std::map<api::ContextId, TimerId> patch_timers_;
  struct Session {
    ProcessId edge = 0;
    std::uint64_t serial = 0;
    TimerId keepalive_timer = 0;
  };
  std::map<std::string, Session> sessions_;  // by node name
  std::unique_ptr<Delivery> delivery_;        // the modules' delivery, once leading
  std::uint64_t next_serial_ = 1;
  static constexpr std::size_t kMaxSessions = 100'000;  // far above cloudHub.nodeLimit
};

}  // namespace hasim::cloudcore
