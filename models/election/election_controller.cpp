#include "models/election/election_controller.hpp"

#include <memory>

#include "models/election/coordinated_election.hpp"
#include "models/election/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim::election {
namespace {
bool pending_ping(const api::Object& candidate) {
  const api::LeaseCandidateSpec& spec = candidate.candidate;
  return spec.pingTime.has_value() && spec.renewTime.has_value() &&
         *spec.renewTime < *spec.pingTime;
}

api::ObjectKey lease_of(const api::Object& candidate) {
  return api::ObjectKey{api::Kind::lease, candidate.key.namespace_, candidate.candidate.leaseName};
}
}  // namespace

ElectionController::ElectionController(ElectionControllerConfig config, api::ApiClient& client)
    : config_(config),
      transport_(client),
      leases_(api::InformerConfig{api::Kind::lease, {}, {}, config.lease_informer_tags}, client,
              [this](Env& env, api::WatchEventType, const api::ObjectPtr&,
                     const api::ObjectPtr& lease) { enqueue(env, lease->key); }),
      candidates_(
          api::InformerConfig{api::Kind::lease_candidate, {}, {}, config.candidate_informer_tags},
          client,
          [this](Env& env, api::WatchEventType, const api::ObjectPtr&,
                 const api::ObjectPtr& candidate) {
            if (pending_ping(*candidate)) return;  // our own ping's echo
            enqueue(env, lease_of(*candidate));
          }),
      queue_(config.queue_tags) {}

void ElectionController::run(Env& env) {
  auto synced = [this](Env& e) {
    if (synced_ || !leases_.has_synced() || !candidates_.has_synced()) return;
    synced_ = true;
    for (const auto& [key, candidate] : candidates_.items()) enqueue(e, lease_of(*candidate));
    gc_timer_ = e.set_timer(kLeaseCandidateGCPeriod, config_.gc_tags.tag());
    work(e);
  };
  leases_.run(env, synced);
  candidates_.run(env, synced);
}

void ElectionController::stop(Env& env) {
  stopped_ = true;
  leases_.stop(env);
  candidates_.stop(env);
  queue_.shut_down(env);
  if (gc_timer_.has_value()) env.cancel_timer(*gc_timer_);
  gc_timer_.reset();
  transport_.cancel_all(env);  // the step in flight finishes now, with errors, and stops
}

void ElectionController::enqueue(Env& env, const api::ObjectKey& lease) {
  if (stopped_) return;
  queue_.add(lease);
  work(env);
}

void ElectionController::work(Env& env) {
  if (stopped_ || !synced_) return;
  const std::optional<api::ObjectKey> next = queue_.get();
  if (!next.has_value()) return;
  const ElectionListers listers{&leases_.items(), &candidates_.items()};
  reconcile_election_step(
      env, transport_, listers, *next, config_.options,
      [this, key = *next](Env& e, Duration requeue, const std::optional<std::string>& error) {
        if (stopped_) return;
        if (error)
          e.trace(trace_kind::kCleError,
                  {{"lease", key.namespace_ + "/" + key.name}, {"error", *error}});
        if (requeue.ns > 0) queue_.add_after(e, key, requeue);
        queue_.done(key);
        work(e);
      });
}

bool ElectionController::on_timer(Env& env, std::uint64_t tag) {
  if (leases_.on_timer(env, tag) || candidates_.on_timer(env, tag)) return true;
  if (tag == config_.gc_tags.tag()) {
    gc_timer_.reset();
    collect_garbage(env);
    return true;
  }
  if (!queue_.on_timer(tag)) return false;
  work(env);
  return true;
}

void ElectionController::collect_garbage(Env& env) {
  collect_lease_candidates(env, transport_, candidates_.items(), [](Env& e, int deleted) {
    if (deleted > 0) e.trace(trace_kind::kCleGc, {{"deleted", static_cast<std::int64_t>(deleted)}});
  });
  gc_timer_ = env.set_timer(kLeaseCandidateGCPeriod, config_.gc_tags.tag());
}

void collect_lease_candidates(Env& env, api::ApiTransport& transport,
                              const std::map<api::ObjectKey, api::ObjectPtr>& candidates,
                              std::function<void(Env&, int deleted)> done) {
  struct Pass {
    int outstanding = 1;  // released after the loop, so `done` runs once, at the end
    int deleted = 0;
    std::function<void(Env&, int)> done;
    void finish(Env& env) {
      if (--outstanding == 0) done(env, deleted);
    }
  };
  auto pass = std::make_shared<Pass>();
  pass->done = std::move(done);
  for (const auto& [key, candidate] : candidates) {
    if (!is_lease_candidate_expired(*candidate, env.now())) continue;
    ++pass->outstanding;
    transport.request(
        env, transport.new_context(), api::Verb::get, key, nullptr,
        [pass, &transport, key = key](Env& e, const api::Response& got) {
          if (got.status != api::Status::ok || !is_lease_candidate_expired(*got.object, e.now())) {
            return pass->finish(e);
          }
          transport.request(e, transport.new_context(), api::Verb::delete_, key, nullptr,
                            [pass](Env& e2, const api::Response& r) {
                              if (is_success(r.status)) ++pass->deleted;
                              pass->finish(e2);
                            });
        });
  }
  pass->finish(env);
}

}  // namespace hasim::election
