#include "models/election/election_step.hpp"

#include <memory>
#include <variant>

#include "models/election/coordinated_election.hpp"
#include "models/election/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim::election {
namespace {

constexpr Duration kNoRequeue{};
// Half of leaseCandidateValidDuration: a candidate this stale forces a refresh election, so
// it is pinged (and renews) before the garbage collector would delete it.
constexpr Duration kStaleCandidate{kLeaseCandidateValidDuration.ns / 2};

api::ObjectPtr pick_best(const std::vector<api::ObjectPtr>& candidates,
                         const ElectionStepOptions& options) {
  return options.priority ? pick_best_leader_with_priority(candidates)
                          : pick_best_leader_oldest_emulation_version(candidates);
}

// A view into the Lease, valid while the Lease object is: the checks of every step copy nothing.
std::string_view holder_view(const api::LeaseSpec& lease) {
  return lease.holderIdentity.has_value() ? std::string_view(*lease.holderIdentity)
                                          : std::string_view();
}
std::string holder_of(const api::LeaseSpec& lease) { return std::string(holder_view(lease)); }

struct Needed {
  bool needed = false;
  std::optional<std::string> error;
};

// electionNeeded: reads the Lease from the informer cache.
Needed election_needed(const std::vector<api::ObjectPtr>& candidates, const api::ObjectPtr& lease,
                       LocalTime now, const ElectionStepOptions& options) {
  if (lease == nullptr) return {true, {}};
  if (is_lease_expired(lease->lease, now)) return {true, {}};
  if (holder_view(lease->lease).empty()) return {true, {}};
  for (const api::ObjectPtr& candidate : candidates) {
    // Listed candidates are not expired, so renewTime is set.
    if (*candidate->candidate.renewTime + kStaleCandidate < now) return {true, {}};
  }
  const auto strategy = pick_best_strategy_view(candidates);
  if (const auto* error = std::get_if<StrategyError>(&strategy)) return {false, error->message};
  if (std::get<std::string_view>(strategy) != kOldestEmulationVersion) return {false, {}};
  const api::ObjectPtr best = pick_best(candidates, options);
  if (best == nullptr || best->key.name == holder_view(lease->lease)) return {false, {}};
  return {true, {}};
}

std::string describe_candidates(const std::vector<api::ObjectPtr>& candidates) {
  std::string out;
  for (const api::ObjectPtr& c : candidates) {
    if (!out.empty()) out += ", ";
    out +=
        c->key.name + " (" + c->candidate.emulationVersion + "/" + c->candidate.binaryVersion + ")";
  }
  return out;
}

// The step after the ping phase: steps 4-9.
class Elect : public std::enable_shared_from_this<Elect> {
 public:
  Elect(api::ApiTransport& transport, ElectionListers listers, api::ObjectKey lease,
        ElectionStepOptions options, ElectionStepDone done)
      : transport_(transport),
        listers_(listers),
        lease_(std::move(lease)),
        options_(options),
        done_(std::move(done)) {}

  void run(Env& env, const std::vector<api::ObjectPtr>& candidates, LocalTime now) {
    now_ = now;
    // 4: a ping still awaiting its ack within the window: its ack event re-triggers the key.
    for (const api::ObjectPtr& c : candidates) {
      const api::LeaseCandidateSpec& spec = c->candidate;
      if (spec.pingTime &&
          *spec.renewTime<*spec.pingTime&& * spec.pingTime + kElectionDuration> now) {
        return done_(env, kNoRequeue, std::nullopt);
      }
    }
    // 5: the ack set: renewed within the last electionDuration.
    acked_.reserve(candidates.size());
    for (const api::ObjectPtr& c : candidates) {
      if (*c->candidate.renewTime + kElectionDuration > now) acked_.push_back(c);
    }
    if (acked_.empty()) return done_(env, kNoRequeue, "no available candidates");
    // 6
    const auto strategy = pick_best_strategy(acked_);
    if (const auto* error = std::get_if<StrategyError>(&strategy)) {
      return done_(env, kNoRequeue, error->message);
    }
    strategy_ = std::get<std::string>(strategy);
    // 7: the desired Lease.
    desired_ = std::make_shared<api::Object>();
    desired_->key = lease_;
    desired_->lease.strategy = strategy_;
    desired_->lease.leaseDurationSeconds = kDefaultLeaseDurationSeconds;
    desired_->lease.renewTime = api::micro_time(now);
    if (strategy_ == kOldestEmulationVersion) {
      const api::ObjectPtr best = pick_best(acked_, options_);
      if (best == nullptr) return done_(env, kNoRequeue, "should not happen: no best candidate");
      desired_->lease.holderIdentity = best->key.name;
    }  // a third-party strategy: the holder stays unset for another controller to fill in
    // 8: Create; AlreadyExists means read the live object and update it.
    auto self = shared_from_this();
    transport_.request(
        env, transport_.new_context(), api::Verb::create, lease_, desired_,
        [self](Env& e, const api::Response& response) { self->created(e, response); });
  }

 private:
  void created(Env& env, const api::Response& response) {
    if (is_success(response.status)) {
      trace(env, trace_kind::kCleElect, "created the Lease");
      return done_(env, kDefaultRequeueInterval, std::nullopt);
    }
    if (response.status != api::Status::already_exists) {
      return done_(
          env, kNoRequeue,
          "create " + api::describe(lease_) + ": " + std::string(api::to_string(response.status)));
    }
    auto self = shared_from_this();
    transport_.request(env, transport_.new_context(), api::Verb::get, lease_, nullptr,
                       [self](Env& e, const api::Response& got) { self->update(e, got); });
  }

  // 9
  void update(Env& env, const api::Response& got) {
    if (got.status != api::Status::ok) {
      return done_(env, kNoRequeue,
                   "get " + api::describe(lease_) + ": " + std::string(api::to_string(got.status)));
    }
    const api::LeaseSpec& existing = got.object->lease;
    const std::optional<std::string>& desired = desired_->lease.holderIdentity;
    const bool no_holder = desired.has_value() && holder_view(existing).empty();
    const bool expired_and_new = is_lease_expired(existing, now_) && desired.has_value() &&
                                 existing.holderIdentity != desired;
    const bool strategy_changed = existing.strategy != strategy_;
    const bool different_holder = desired.has_value() && desired != existing.holderIdentity;
    // The spec alone first: most steps change nothing, and an Object is large to copy.
    api::LeaseSpec spec = existing;
    if (strategy_changed) spec.strategy = strategy_;
    std::string decision;
    if (no_holder || expired_and_new) {
      // Take over. leaseTransitions is left alone.
      spec.preferredHolder.reset();
      spec.holderIdentity = desired;
      spec.renewTime = api::micro_time(now_);
      spec.leaseDurationSeconds = kDefaultLeaseDurationSeconds;
      spec.acquireTime.reset();
      decision = no_holder ? "filled the empty Lease" : "took over the expired Lease";
    } else if (different_holder) {
      spec.preferredHolder = desired;  // end of term: the holder should yield
      decision = "end of term";
    }
    if (spec == existing) return done_(env, kDefaultRequeueInterval, std::nullopt);
    auto lease = std::make_shared<api::Object>(*got.object);
    lease->lease = std::move(spec);
    auto self = shared_from_this();
    transport_.request(
        env, transport_.new_context(), api::Verb::update, lease_, lease,
        [self, decision, previous = holder_of(existing)](Env& e, const api::Response& response) {
          if (!is_success(response.status)) {
            return self->done_(e, kNoRequeue,
                               "update " + api::describe(self->lease_) + ": " +
                                   std::string(api::to_string(response.status)));
          }
          if (decision == "end of term") {
            e.trace(trace_kind::kClePreempt,
                    {{"lease", self->lease_.namespace_ + "/" + self->lease_.name},
                     {"holder", previous},
                     {"preferredHolder", *self->desired_->lease.holderIdentity},
                     {"acked", describe_candidates(self->acked_)}});
          } else if (!decision.empty()) {
            self->trace(e, trace_kind::kCleElect, decision);
          }
          self->done_(e, kDefaultRequeueInterval, std::nullopt);
        });
  }

  void trace(Env& env, std::string_view kind, const std::string& reason) {
    env.trace(kind, {{"lease", lease_.namespace_ + "/" + lease_.name},
                     {"holder", desired_->lease.holderIdentity.value_or("")},
                     {"reason", reason + "; acked: " + describe_candidates(acked_) + "; " +
                                    (options_.priority ? "priority, then " : "") + strategy_}});
  }

  api::ApiTransport& transport_;
  ElectionListers listers_;
  api::ObjectKey lease_;
  ElectionStepOptions options_;
  ElectionStepDone done_;
  LocalTime now_{};
  std::vector<api::ObjectPtr> acked_;
  std::string strategy_;
  std::shared_ptr<api::Object> desired_;
};

// The concurrent pings of step 3 (an errgroup): completes when every Update has answered.
struct Pings {
  std::size_t outstanding = 0;
  std::optional<std::string> error;
  ElectionStepDone done;
};

}  // namespace

std::vector<api::ObjectPtr> lease_candidates_for(const ElectionListers& listers,
                                                 const api::ObjectKey& lease, LocalTime now) {
  HASIM_ASSERT(listers.candidates != nullptr);
  std::vector<api::ObjectPtr> out;
  out.reserve(listers.candidates->size());  // one allocation: this runs on every step
  for (const auto& [key, candidate] : *listers.candidates) {
    // The lease name first: it tells the Leases' candidates apart, the namespace seldom does.
    if (candidate->candidate.leaseName != lease.name || key.namespace_ != lease.namespace_) {
      continue;
    }
    if (!is_lease_candidate_expired(*candidate, now)) out.push_back(candidate);
  }
  return out;
}

void reconcile_election_step(Env& env, api::ApiTransport& transport, ElectionListers listers,
                             const api::ObjectKey& lease, ElectionStepOptions options,
                             ElectionStepDone done) {
  HASIM_ASSERT(lease.kind == api::Kind::lease);
  HASIM_ASSERT(listers.leases != nullptr);
  const LocalTime now = env.now();
  // 1
  const std::vector<api::ObjectPtr> candidates = lease_candidates_for(listers, lease, now);
  if (candidates.empty()) return done(env, kNoRequeue, std::nullopt);
  // 2
  const auto cached = listers.leases->find(lease);
  const Needed needed = election_needed(
      candidates, cached == listers.leases->end() ? nullptr : cached->second, now, options);
  if (!needed.needed) return done(env, kDefaultRequeueInterval, needed.error);
  // 3: ping.
  bool can_vote_yet = true;
  std::vector<std::shared_ptr<api::Object>> pings;
  for (const api::ObjectPtr& c : candidates) {
    const api::LeaseCandidateSpec& spec = c->candidate;
    if (spec.pingTime && *spec.pingTime + kElectionDuration > now && spec.renewTime &&
        *spec.renewTime < *spec.pingTime) {
      can_vote_yet = false;  // an ack is outstanding
      continue;
    }
    if (spec.renewTime && *spec.renewTime + kElectionDuration > now) continue;  // fresh: acked
    if (!spec.pingTime ||
        (*spec.pingTime + kElectionDuration < now && *spec.renewTime >= *spec.pingTime)) {
      auto ping = std::make_shared<api::Object>(*c);
      ping->candidate.pingTime = api::micro_time(now);
      pings.push_back(std::move(ping));
      can_vote_yet = false;
    }  // else an old ping never answered: the candidate drops out of the ack set
  }
  if (pings.empty()) {
    if (!can_vote_yet) return done(env, kDefaultRequeueInterval, std::nullopt);
    auto elect = std::make_shared<Elect>(transport, listers, lease, options, std::move(done));
    return elect->run(env, candidates, now);
  }
  if (env.tracing(trace_kind::kClePing)) {  // nothing else reads the lease's name built here
    env.trace(trace_kind::kClePing, {{"lease", lease.namespace_ + "/" + lease.name},
                                     {"candidates", static_cast<std::int64_t>(pings.size())}});
  }
  auto group = std::make_shared<Pings>();
  group->outstanding = pings.size();
  group->done = std::move(done);
  for (const auto& ping : pings) {
    transport.request(env, transport.new_context(), api::Verb::update, ping->key, ping,
                      [group, key = ping->key](Env& e, const api::Response& response) {
                        if (!is_success(response.status) && !group->error) {
                          group->error = "ping " + api::describe(key) + ": " +
                                         std::string(api::to_string(response.status));
                        }
                        if (--group->outstanding > 0) return;
                        // Pinged: wait for the acks (their events re-trigger the key).
                        group->done(e, kDefaultRequeueInterval, group->error);
                      });
  }
}

}  // namespace hasim::election
