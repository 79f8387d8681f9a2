#pragma once
// One step of kube-apiserver's Coordinated Leader Election controller for one Lease,
// reconcileElectionStep in pkg/controlplane/controller/leaderelection, following it step by
// step (see reference §4.2): stateless, recomputed from the Lease and its LeaseCandidates
// each time. It decides whether an election is needed, pings candidates (concurrently, as
// since kubernetes#130533) and waits up to electionDuration for their acks, then creates the
// Lease for the best acked candidate, takes over an expired or empty one, or marks the end of
// the current holder's term with preferredHolder.
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "models/apiserver/client.hpp"

namespace hasim::election {

inline constexpr Duration kDefaultRequeueInterval = seconds(5);
inline constexpr std::int32_t kDefaultLeaseDurationSeconds = 5;

// The informers' caches the step reads (listers): Leases and LeaseCandidates by key.
struct ElectionListers {
  const std::map<api::ObjectKey, api::ObjectPtr>* leases = nullptr;
  const std::map<api::ObjectKey, api::ObjectPtr>* candidates = nullptr;
};

struct ElectionStepOptions {
  bool priority = false;  // the KEP's proposed Priority field ranks candidates first
};

// requeue: zero means noRequeue; error: what the controller would log (HandleError).
using ElectionStepDone =
    std::function<void(Env&, Duration requeue, const std::optional<std::string>& error)>;

// `lease` is the Lease's key (kind lease). Writes go through `transport`; the listers must
// stay valid until `done` runs. The controller's clock is env.now() (wall time).
void reconcile_election_step(Env& env, api::ApiTransport& transport, ElectionListers listers,
                             const api::ObjectKey& lease, ElectionStepOptions options,
                             ElectionStepDone done);

// The candidates of `lease` that are not expired, in the lister's order (by name here).
std::vector<api::ObjectPtr> lease_candidates_for(const ElectionListers& listers,
                                                 const api::ObjectKey& lease, LocalTime now);

}  // namespace hasim::election
