#include "models/election/lease_candidate.hpp"

#include "sim/assert.hpp"

namespace hasim::election {

LeaseCandidate::LeaseCandidate(CandidateConfig config, api::ApiClient& client)
    : config_(std::move(config)),
      key_{api::Kind::lease_candidate, config_.namespace_, config_.name},
      client_(client),
      informer_(api::InformerConfig{api::Kind::lease_candidate, config_.namespace_, config_.name,
                                    config_.informer_tags},
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
                }),
      queue_(config_.queue_tags) {
  HASIM_ASSERT(!config_.name.empty() && !config_.leaseName.empty());
  HASIM_ASSERT(!config_.binaryVersion.empty() && !config_.strategy.empty());
}

void LeaseCandidate::run(Env& env) {
  informer_.run(env, [this](Env& e) { add(e); });
}

bool LeaseCandidate::on_timer(Env& env, std::uint64_t tag) {
  if (informer_.on_timer(env, tag)) return true;
  if (!queue_.on_timer(tag)) return false;
  process(env);
  return true;
}

void LeaseCandidate::add(Env& env) {
  queue_.add(key());
  process(env);
}

// ensureLease: the lister (the informer's cache) decides between Create and Update.
void LeaseCandidate::process(Env& env) {
  if (!queue_.get().has_value()) return;  // the worker is busy, or nothing is queued
  const LocalTime now = api::micro_time(env.now());
  const api::ObjectPtr cached = informer_.get(key());
  // A renewal copies the cached object straight into place (versions and strategy are never
  // rewritten); only a create starts from an empty one.
  auto object =
      cached == nullptr ? std::make_shared<api::Object>() : std::make_shared<api::Object>(*cached);
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
    object->candidate.renewTime = now;
  }
  client_.request(
      env, client_.new_context(), verb, object->key, object,
      [this](Env& e, const api::Response& response) { done(e, api::is_success(response.status)); });
}

void LeaseCandidate::done(Env& env, bool ok) {
  if (ok) {
    queue_.forget(key());
    queue_.add_after(env, key(), config_.requeueInterval);
  } else {
    queue_.add_rate_limited(env, key());
  }
  queue_.done(key());
  process(env);
}

}  // namespace hasim::election
