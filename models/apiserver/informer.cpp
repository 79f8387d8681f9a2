#include "models/apiserver/informer.hpp"

#include "sim/assert.hpp"

namespace hasim::api {
namespace {
constexpr std::uint64_t kRelist = 1;
constexpr std::uint64_t kRewatch = 2;
// client-go reflector: backoff 800ms doubling to 30s; minWatchTimeout 5 min.
constexpr Duration kInitialBackoff = milliseconds(800);
constexpr Duration kMaxBackoff = seconds(30);
constexpr Duration kMinWatchTimeout = minutes(5);
}  // namespace

Informer::Informer(InformerConfig config, ApiClient& client, Handler handler)
    : config_(std::move(config)), client_(client), handler_(std::move(handler)) {
  HASIM_ASSERT(config_.timer_tags.valid());
}

void Informer::run(Env& env, std::function<void(Env&)> synced) {
  HASIM_ASSERT(generation_ == 0);
  on_synced_ = std::move(synced);
  list(env);
}

ObjectPtr Informer::get(const ObjectKey& key) const {
  const auto it = cache_.find(key);
  return it == cache_.end() ? nullptr : it->second;
}

bool Informer::matches(const Object& object) const {
  return object.key.kind == config_.kind &&
         (config_.namespace_.empty() || object.key.namespace_ == config_.namespace_) &&
         (config_.name.empty() || object.key.name == config_.name);
}

void Informer::list(Env& env) {
  const std::uint64_t generation = ++generation_;
  context_ = client_.new_context();
  client_.request(env, context_, Verb::list, ObjectKey{config_.kind, config_.namespace_, {}},
                  nullptr, [this, generation](Env& e, const Response& response) {
                    if (generation != generation_) return;
                    if (response.status != Status::ok) return retry(e);
                    // Replace: what the list lacks was deleted while we were not watching.
                    std::map<ObjectKey, ObjectPtr> listed;
                    for (const ObjectPtr& object : response.items) {
                      if (matches(*object)) listed.emplace(object->key, object);
                    }
                    std::vector<ObjectPtr> gone;
                    for (const auto& [key, object] : cache_) {
                      if (!listed.contains(key)) gone.push_back(object);
                    }
                    for (const ObjectPtr& object : gone) apply(e, WatchEventType::deleted, object);
                    for (const auto& [key, object] : listed)
                      apply(e, WatchEventType::modified, object);
                    last_revision_ = response.resourceVersion;
                    backoff_ = Duration{};
                    watch(e);
                    if (!synced_) {
                      synced_ = true;
                      if (on_synced_) on_synced_(e);
                    }
                  });
}

void Informer::watch(Env& env) {
  const std::uint64_t generation = ++generation_;
  context_ = client_.new_context();
  client_.watch(
      env, context_, ObjectKey{config_.kind, config_.namespace_, config_.name}, last_revision_,
      [this, generation](Env& e, const Response& response) {
        if (generation != generation_) return;
        if (response.status != Status::ok) return retry(e);
        const Duration timeout{kMinWatchTimeout.ns +
                               static_cast<std::int64_t>(
                                   e.rng().below(static_cast<std::uint64_t>(kMinWatchTimeout.ns)))};
        timer_ = e.set_timer(timeout, config_.timer_tags.tag(kRewatch));
      },
      [this, generation](Env& e, const WatchEvent& event) {
        if (generation != generation_) return;
        if (event.event == WatchEventType::error) return retry(e);  // the reflector re-lists
        apply(e, event.event, event.object);
      });
}

void Informer::apply(Env& env, WatchEventType type, const ObjectPtr& object) {
  HASIM_ASSERT(object != nullptr);
  if (!matches(*object)) return;
  if (object->resourceVersion > last_revision_) last_revision_ = object->resourceVersion;
  const auto it = cache_.find(object->key);
  const ObjectPtr old = it == cache_.end() ? nullptr : it->second;
  if (type == WatchEventType::deleted) {
    if (old == nullptr) return;
    cache_.erase(it);
    return handler_(env, type, old, old);
  }
  if (old != nullptr && old->resourceVersion == object->resourceVersion) return;  // a re-list
  if (old == nullptr) {
    cache_.emplace_hint(it, object->key, object);
  } else {
    it->second = object;
  }
  handler_(env, old == nullptr ? WatchEventType::added : WatchEventType::modified, old, object);
}

void Informer::retry(Env& env) {
  client_.cancel(env, context_);
  ++generation_;
  if (timer_.has_value()) env.cancel_timer(*timer_);
  backoff_ = backoff_.ns == 0
                 ? kInitialBackoff
                 : (backoff_.ns * 2 > kMaxBackoff.ns ? kMaxBackoff : Duration{backoff_.ns * 2});
  timer_ = env.set_timer(backoff_, config_.timer_tags.tag(kRelist));
}

void Informer::stop(Env& env) {
  ++generation_;
  client_.cancel(env, context_);
  if (timer_.has_value()) env.cancel_timer(*timer_);
  timer_.reset();
}

bool Informer::on_timer(Env& env, std::uint64_t tag) {
  if (!config_.timer_tags.owns(tag)) return false;
  timer_.reset();
  if (config_.timer_tags.local(tag) == kRelist) return list(env), true;
  HASIM_ASSERT(config_.timer_tags.local(tag) == kRewatch);
  client_.cancel(env, context_);  // the server ends the watch after timeoutSeconds
  watch(env);
  return true;
}

}  // namespace hasim::api
