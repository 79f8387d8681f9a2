#pragma once
// kube-apiserver's post-start hook for Coordinated Leader Election
// (run_with_leaderelection.go): over the loopback client, a classic (uncoordinated) Lease
// lock kube-system/leader-election-controller with identity <hostname>_<uuid> and
// ReleaseOnCancel, timed by --coordinated-leadership-{lease-duration,renew-deadline,
// retry-period} (15s/10s/2s); the election runs inside wait.Until(RetryPeriod), so an
// apiserver that loses the lease campaigns again. OnStartedLeading starts a fresh election
// controller (and its candidate GC); the end of the leading context stops it. Only one
// apiserver's controller is active at a time, which keeps controllers from fighting.
#include <memory>
#include <optional>
#include <string>

#include "models/apiserver/apiserver.hpp"
#include "models/apiserver/scoped_transport.hpp"
#include "models/election/election_controller.hpp"
#include "models/election/leader_elector.hpp"
#include "models/election/resource_lock.hpp"

namespace hasim::election {

inline constexpr std::string_view kElectionControllerLease = "leader-election-controller";

struct RunWithLeaderElectionConfig {
  std::string hostname;
  std::string loopback;           // this apiserver's "node/kube-apiserver" name
  LeaderElectionConfig election;  // releaseOnCancel is forced on
  ElectionStepOptions options;
};

class RunWithLeaderElection final : public api::ApiServerHook {
 public:
  explicit RunWithLeaderElection(RunWithLeaderElectionConfig config);
  ~RunWithLeaderElection() override;

  void on_start(Env& env) override;
  void on_message(Env& env, const Message& message) override;
  void on_timer(Env& env, std::uint64_t tag) override;
  void on_terminate(Env& env, std::function<void(Env&)> stopped) override;

 private:
  void campaign(Env& env);  // one iteration of wait.Until: a fresh elector, Run

  RunWithLeaderElectionConfig config_;
  std::string identity_;
  std::unique_ptr<api::ApiClient> client_;
  std::unique_ptr<ResourceLock> lock_;
  // The elector's contexts, so a new campaign (wait.Until's next round) can end whatever the
  // returned elector still has in flight before it is replaced: in Go the old goroutine's
  // late response is dropped; here its callback must not reach a destroyed elector.
  std::unique_ptr<api::ScopedTransport> elector_transport_;
  std::unique_ptr<LeaderElector> elector_;
  std::unique_ptr<ElectionController> controller_;
  ElectionControllerConfig controller_config_;  // with its timer tag spaces
  TagSpace elector_tags_;
  TagSpace until_tags_;  // wait.Until's wait between campaigns
  std::optional<TimerId> until_timer_;
  std::function<void(Env&)> stopped_;  // set by SIGTERM
};

}  // namespace hasim::election
