#pragma once
// A leader-elected control-plane component (kube-controller-manager or kube-scheduler) as
// its main() wires client-go: identity hostname_UUID, a lock from NewFromKubeconfig whose
// HTTP client times out after max(1s, renewDeadline/2), RunOrDie, and an OnStoppedLeading
// that exits the process (KCM: "leaderelection lost", exit 1; the scheduler exits 0 when it
// was asked to terminate, 1 otherwise). While it leads, its controllers write to the API
// every workInterval, so a property can tell whether an overlapping leader could still
// change cluster state.
#include <memory>
#include <optional>
#include <string>

#include "models/apiserver/client.hpp"
#include "models/election/lease_candidate.hpp"
#include "models/election/leader_elector.hpp"

namespace hasim::cluster {

struct ComponentConfig {
  std::string component;  // "kube-controller-manager", "kube-scheduler"
  std::string node;       // hostname: the first half of the identity
  std::string version;    // binary version, e.g. "1.31.0"
  std::string emulation;  // --emulated-version; the binary version when not set
  // KEP-4355: publish a LeaseCandidate and elect with Coordinated: true.
  bool coordinated = false;
  Duration candidate_renew_interval = minutes(5);
  std::optional<std::int32_t> priority;  // the KEP's proposed LeaseCandidate priority
  std::string lease_namespace = "kube-system";
  std::string lease_name;                   // defaults to the component name
  std::string lock_type = "leases";         // resourcelock type name
  election::LeaderElectionConfig election;  // LD/RD/RP, releaseOnCancel, name
  std::optional<Duration> client_timeout;   // default max(1s, RD/2); unbounded: none
  Duration healthz_timeout = seconds(20);   // the electionChecker's tolerance
  Duration work_interval = seconds(1);      // zero: the leader does no writes
  bool exit_zero_when_terminated = false;   // the scheduler's behaviour
  std::vector<std::string> apiservers;      // "node/kube-apiserver"
  bool load_balanced = false;
  std::shared_ptr<const api::LoadBalancerHealth> lb_health;  // the balancer's backend health
};

// resourcelock.New(lockType, namespace, name, ...): "leases", "endpoints", "configmaps" or a
// MultiLock "endpointsleases" / "configmapsleases" (primary first, then the Lease).
std::unique_ptr<election::ResourceLock> make_resource_lock(const std::string& lock_type,
                                                          const std::string& namespace_,
                                                          const std::string& name,
                                                          const std::string& identity,
                                                          api::ApiTransport& transport);

// max(1s, renewDeadline/2), as resourcelock.NewFromKubeconfig sets the HTTP client timeout.
Duration default_client_timeout(Duration renewDeadline);

class Component final : public Process {
 public:
  explicit Component(ComponentConfig config);
  ~Component() override;
  void on_start(Env& env) override;
  void on_message(Env& env, ProcessId from, const Message& message) override;
  void on_timer(Env& env, TimerId timer, std::uint64_t tag) override;
  void on_terminate(Env& env) override;

 private:
  std::string lease() const { return config_.lease_namespace + "/" + config_.lease_name; }
  void work(Env& env);
  // component-start: its versions, identity and lease (and, behind a load balancer, the
  // kube-apiservers it may talk to).
  void trace_start(Env& env) const;

  ComponentConfig config_;
  std::string identity_;
  std::unique_ptr<api::ApiClient> client_;
  std::unique_ptr<election::ResourceLock> lock_;
  std::unique_ptr<election::LeaderElector> elector_;
  std::unique_ptr<election::LeaseCandidate> candidate_;
  bool acting_ = false;
  bool terminating_ = false;
  std::optional<TimerId> work_timer_;
  TagSpace work_tags_;
};

}  // namespace hasim::cluster
