#pragma once
// client-go's LeaseCandidate controller (tools/leaderelection/leasecandidate.go), which a
// component runs beside its coordinated elector to declare candidacy for a Lease (KEP-4355):
// its own informer on its LeaseCandidate (field selector metadata.name), and a one-key work
// queue whose worker (ensureLease) creates the candidate if the cache lacks it, or else
// updates only renewTime. A success requeues after requeueInterval (5 min), an error retries
// with the controller rate limiter's per-item exponential back-off (5 ms doubling to 1000 s);
// an update whose pingTime is after renewTime (the election controller's ping) enqueues an
// immediate renewal, the ack.
#include <cstdint>
#include <optional>
#include <string>

#include "models/apiserver/informer.hpp"
#include "models/election/work_queue.hpp"

namespace hasim::election {

struct CandidateConfig {
  std::string namespace_ = "kube-system";
  std::string name;       // the component's lock identity
  std::string leaseName;  // the Lease it contends for
  std::string binaryVersion;
  std::string emulationVersion;
  std::string strategy;
  std::optional<std::int32_t> priority;  // the KEP's proposed field (priority mode only)
  Duration requeueInterval = minutes(5);
  TagSpace queue_tags;     // the work queue's delay timers
  TagSpace informer_tags;  // the informer's timers
};

class LeaseCandidate {
 public:
  LeaseCandidate(CandidateConfig config, api::ApiClient& client);

  void run(Env& env);  // Run: start the informer, wait for sync, enqueue once
  bool on_timer(Env& env, std::uint64_t tag);

 private:
  void add(Env& env);      // queue.Add, then the worker takes the key if it is idle
  void process(Env& env);  // the worker: ensureLease, then requeue
  void done(Env& env, bool ok);
  const api::ObjectKey& key() const { return key_; }

  CandidateConfig config_;
  api::ObjectKey key_;  // built once: the worker names it several times per renewal
  api::ApiClient& client_;
  api::Informer informer_;
  WorkQueue queue_;  // of the one key, key()
};

}  // namespace hasim::election
