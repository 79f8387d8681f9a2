#include "models/election/lease_candidate.hpp"

#include "sim/assert.hpp"

namespace hasim::election {
namespace {
// workqueue.DefaultTypedControllerRateLimiter's per-item part: 5 ms * 2^failures, at most
// 1000 s. (Its 10 qps bucket never binds for one key.)
Duration rate_limited_delay(std::uint32_t failures) {
  constexpr Duration kBase = milliseconds(5);
  constexpr Duration kMax = seconds(1000);
  if (failures >= 18) return kMax;  // 5 ms * 2^18 > 1000 s
  const Duration delay{kBase.ns << failures};
  return delay > kMax ? kMax : delay;
}
}  // namespace

LeaseCandidate::LeaseCandidate(CandidateConfig config, api::ApiClient& client)
    : config_(std::move(config)),
      client_(client),
      informer_(api::InformerConfig{api::Kind::lease_candidate, config_.namespace_, config_.name,
                                    config_.informer_tag},
                client,
                [this](Env& env, api::WatchEventType type, const api::ObjectPtr& /*old*/,
                       const api::ObjectPtr& object) {
                  // Only UpdateFunc is registered: a ping is pingTime after renewTime.
                  if (type != api::WatchEventType::modified) return;
                  const api::LeaseCandidateSpec& spec = object->candidate;
                  if (spec.pingTime.has_value() &&
                      (!spec.renewTime.has_value() || *spec.pingTime > *spec.renewTime)) {
                    add(env);
                  }
                }) {
  HASIM_ASSERT(!config_.name.empty() && !config_.leaseName.empty());
  HASIM_ASSERT(!config_.binaryVersion.empty() && !config_.strategy.empty());
  HASIM_ASSERT((config_.timer_tag & ~api::ApiClient::kTagMask) == 0);
}

api::ObjectKey LeaseCandidate::key() const {
  return api::ObjectKey{api::Kind::lease_candidate, config_.namespace_, config_.name};
}

void LeaseCandidate::run(Env& env) {
  informer_.run(env, [this](Env& e) { add(e); });
}

bool LeaseCandidate::on_timer(Env& env, std::uint64_t tag) {
  if (informer_.on_timer(env, tag)) return true;
  if (tag != config_.timer_tag) return false;
  delay_timer_.reset();
  add(env);
  return true;
}

void LeaseCandidate::add(Env& env) {
  if (processing_) {
    dirty_ = true;
    return;
  }
  if (queued_) return;
  queued_ = true;
  process(env);  // the one worker is idle: it takes the key now
}

void LeaseCandidate::add_after(Env& env, Duration after) {
  if (after.ns <= 0) return add(env);
  const LocalTime due = env.monotonic_now() + after;
  if (delay_timer_.has_value()) {
    if (delay_due_ <= due) return;
    env.cancel_timer(*delay_timer_);
  }
  delay_due_ = due;
  delay_timer_ = env.set_timer(after, config_.timer_tag);
}

// ensureLease: the lister (the informer's cache) decides between Create and Update.
void LeaseCandidate::process(Env& env) {
  queued_ = false;
  processing_ = true;
  const LocalTime now = api::micro_time(env.now());
  const api::ObjectPtr cached = informer_.get(key());
  auto object = std::make_shared<api::Object>();
  api::Verb verb = api::Verb::update;
  if (cached == nullptr) {
    verb = api::Verb::create;
    object->key = key();
    api::LeaseCandidateSpec& spec = object->candidate;
    spec.leaseName = config_.leaseName;
    spec.binaryVersion = config_.binaryVersion;
    spec.emulationVersion = config_.emulationVersion;
    spec.strategy = config_.strategy;
    spec.priority = config_.priority;
    spec.renewTime = now;
  } else {
    *object = *cached;  // versions and strategy are never rewritten
    object->candidate.renewTime = now;
  }
  client_.request(
      env, client_.new_context(), verb, object->key, object,
      [this](Env& e, const api::Response& response) { done(e, api::is_success(response.status)); });
}

void LeaseCandidate::done(Env& env, bool ok) {
  processing_ = false;
  if (ok) {
    failures_ = 0;  // Forget
    add_after(env, config_.requeueInterval);
  } else {
    add_after(env, rate_limited_delay(failures_++));  // AddRateLimited
  }
  if (dirty_) {
    dirty_ = false;
    add(env);
  }
}

}  // namespace hasim::election
