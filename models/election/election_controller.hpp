#pragma once
// kube-apiserver's Coordinated Leader Election controller (leaderelection_controller.go)
// around reconcile_election_step, and the LeaseCandidate garbage collector
// (leasecandidategc_controller.go): informers on Leases and LeaseCandidates, a work queue of
// Lease keys served by one worker (the apiserver passes workers = 1), requeues only through
// AddAfter, and errors only logged. A LeaseCandidate event enqueues its spec.leaseName,
// except while the candidate is "pending" (pinged and not yet renewed: the controller's own
// ping write). After the caches sync, every candidate's Lease is enqueued once, since the
// controller may start after the informers. Every 30 min the collector deletes candidates
// expired for 30 min, after re-reading each from the API.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>

#include "models/apiserver/informer.hpp"
#include "models/apiserver/scoped_transport.hpp"
#include "models/election/election_step.hpp"
#include "models/election/work_queue.hpp"

namespace hasim::election {

inline constexpr Duration kLeaseCandidateGCPeriod = minutes(30);

struct ElectionControllerConfig {
  ElectionStepOptions options;
  // The spaces of this controller's timers.
  TagSpace queue_tags;
  TagSpace lease_informer_tags;
  TagSpace candidate_informer_tags;
  TagSpace gc_tags;
};

class ElectionController {
 public:
  ElectionController(ElectionControllerConfig config, api::ApiClient& client);

  void run(Env& env);
  bool on_timer(Env& env, std::uint64_t tag);
  // The controller's context ends (its apiserver lost the controller's lease): requests in
  // flight are cancelled, timers stopped; nothing runs again and the object may be destroyed.
  void stop(Env& env);

 private:
  void enqueue(Env& env, const api::ObjectKey& lease);
  void work(Env& env);  // the worker takes the next key, if idle
  void collect_garbage(Env& env);

  ElectionControllerConfig config_;
  api::ScopedTransport transport_;
  api::Informer leases_;
  api::Informer candidates_;
  WorkQueue queue_;  // of Lease keys
  std::optional<TimerId> gc_timer_;
  bool synced_ = false;
  bool stopped_ = false;
};

// One garbage-collection pass over the candidate cache: each candidate expired there is
// read again (GET) and deleted if still expired. `done` gets the number deleted.
void collect_lease_candidates(Env& env, api::ApiTransport& transport,
                              const std::map<api::ObjectKey, api::ObjectPtr>& candidates,
                              std::function<void(Env&, int deleted)> done);

}  // namespace hasim::election
