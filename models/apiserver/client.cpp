#include "models/apiserver/client.hpp"

#include "sim/assert.hpp"

namespace hasim::api {

ApiClient::ApiClient(ApiClientConfig config) : config_(std::move(config)) {
  HASIM_ASSERT(!config_.apiservers.empty());
  HASIM_ASSERT(config_.timer_tags.valid());
}

ProcessId ApiClient::endpoint(Env& env) {
  if (!chosen_.has_value()) {
    chosen_ = config_.load_balanced ? balance(env) : 0;
    chosen_process_ = env.process(config_.apiservers[*chosen_]);
  }
  return chosen_process_;
}

// A new connection through the load balancer: uniformly among the backends it has up, in
// apiservers' order (all of them when every one is up, or none is: the draw is the same).
std::size_t ApiClient::balance(Env& env) const {
  const std::size_t n = config_.apiservers.size();
  if (config_.health == nullptr) return env.rng().below(n);
  std::vector<std::size_t> up;
  up.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto backend = config_.health->find(config_.apiservers[i]);
    if (!backend || config_.health->up(*backend)) up.push_back(i);
  }
  if (up.empty() || up.size() == n) return env.rng().below(n);
  return up[env.rng().below(up.size())];
}

void ApiClient::request(Env& env, ContextId context, Verb verb, ObjectKey key, ObjectPtr object,
                        Callback done) {
  auto request = std::make_shared<Request>();
  request->verb = verb;
  request->key = std::move(key);
  request->object = std::move(object);
  send(env, context, std::move(request), std::move(done));
}

void ApiClient::watch(Env& env, ContextId context, ObjectKey key, std::uint64_t resourceVersion,
                      Callback done, WatchHandler events) {
  auto request = std::make_shared<Request>();
  request->verb = Verb::watch;
  request->key = std::move(key);
  request->resourceVersion = resourceVersion;
  watches_[next_id_] = Watch{context, std::move(events)};
  send(env, context, std::move(request), std::move(done));
}

void ApiClient::send(Env& env, ContextId context, std::shared_ptr<Request> request, Callback done) {
  const std::uint64_t id = next_id_++;
  HASIM_ASSERT(id < TagSpace::kLocalLimit);
  request->id = id;
  request->user = config_.user;
  Pending pending{context, std::nullopt, std::move(done)};
  if (config_.timeout.ns > 0)
    pending.timeout = env.set_timer(config_.timeout, config_.timer_tags.tag(id));
  pending_.emplace(id, std::move(pending));
  env.send(endpoint(env), std::move(request));
}

void ApiClient::complete(Env& env, std::uint64_t id, const Response& response) {
  const auto it = pending_.find(id);
  if (it == pending_.end()) return;  // answered after its timeout or cancellation
  Pending pending = std::move(it->second);
  pending_.erase(it);
  if (pending.timeout.has_value()) env.cancel_timer(*pending.timeout);
  const Status status = response.status;
  if (status == Status::client_timeout || status == Status::unavailable ||
      status == Status::timeout) {
    // The load balancer's connection is suspect: the next request may go elsewhere.
    if (config_.load_balanced) chosen_.reset();
    watches_.erase(id);
  }
  pending.done(env, response);
}

void ApiClient::fail_pending(Env& env, std::optional<ContextId> context, Status status) {
  if (context) {
    std::erase_if(watches_, [&](const auto& entry) { return entry.second.context == *context; });
  }
  std::vector<std::uint64_t> ids;
  for (const auto& [id, pending] : pending_) {
    if (!context || pending.context == *context) ids.push_back(id);
  }
  for (std::uint64_t id : ids) {
    Response failed;
    failed.id = id;
    failed.status = status;
    watches_.erase(id);
    complete(env, id, failed);
  }
}

// 410 Gone: before the watch was answered, the request fails; after, the apiserver's cache
// fell behind and ended it, which client-go's watcher reports as an ERROR event (the
// reflector then lists again) rather than letting the watch go silent.
void ApiClient::end_watch(Env& env, std::uint64_t id) {
  const auto it = watches_.find(id);
  if (it == watches_.end()) return;
  Watch watch = std::move(it->second);
  watches_.erase(it);
  if (pending_.find(id) != pending_.end()) return;
  WatchEvent error;
  error.watch = id;
  error.event = WatchEventType::error;
  watch.handler(env, error);
}

void ApiClient::cancel(Env& env, ContextId context) {
  fail_pending(env, context, Status::context_canceled);
}

bool ApiClient::on_message(Env& env, const Message& message) {
  if (const auto* response = message_as<Response>(*message)) {
    if (response->status == Status::gone) end_watch(env, response->id);
    complete(env, response->id, *response);
    return true;
  }
  if (const auto* event = message_as<WatchEvent>(*message)) {
    const auto it = watches_.find(event->watch);
    if (it != watches_.end()) it->second.handler(env, *event);
    return true;
  }
  return false;
}

void ApiClient::on_connection_closed(Env& env, ProcessId peer) {
  if (!chosen_.has_value() || chosen_process_ != peer) return;
  if (config_.load_balanced) chosen_.reset();
  fail_pending(env, std::nullopt, Status::connection_reset);
  std::map<std::uint64_t, Watch> ended;
  ended.swap(watches_);
  for (const auto& [id, watch] : ended) {
    WatchEvent error;
    error.watch = id;
    error.event = WatchEventType::error;
    watch.handler(env, error);
  }
}

bool ApiClient::on_timer(Env& env, std::uint64_t tag) {
  if (!config_.timer_tags.owns(tag)) return false;
  const std::uint64_t id = config_.timer_tags.local(tag);
  const auto it = pending_.find(id);
  HASIM_ASSERT(it != pending_.end());  // completion cancels the timer
  it->second.timeout.reset();          // it has fired
  Response timed_out;
  timed_out.id = id;
  timed_out.status = Status::client_timeout;
  complete(env, id, timed_out);
  return true;
}

}  // namespace hasim::api
