#include "models/apiserver/apiserver.hpp"

#include "models/apiserver/ideal_store.hpp"
#include "models/apiserver/lease_trace.hpp"
#include "models/apiserver/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim::api {
ApiServer::ApiServer(ApiServerConfig config) : config_(std::move(config)) {
  if (config_.make_store) config_.store = config_.make_store();  // one per incarnation
  HASIM_ASSERT(config_.store != nullptr);
  HASIM_ASSERT(config_.conditions != nullptr);
  HASIM_ASSERT(config_.request_timeout.ns > 0);
}

void ApiServer::on_start(Env& env) {
  execute_tags_ = env.tag_space("apiserver-execute");
  timeout_tags_ = env.tag_space("apiserver-timeout");
  forward_tags_ = env.tag_space("apiserver-forward");
  env.trace(trace_kind::kComponentStart, {{"component", "kube-apiserver"},
                                          {"version", config_.version},
                                          {"emulation", config_.emulation}});
  config_.store->start(env);
  if (config_.hook) {
    hook_ = config_.hook();
    hook_->on_start(env);
  }
}

void ApiServer::on_message(Env& env, ProcessId from, const Message& message) {
  if (message_as<StoreNotify>(*message) != nullptr) return pull_events(env);
  // A client's request next, the most frequent message after StoreNotify: neither the store
  // nor the hook takes one, so asking it first spares them a type test each.
  if (message_as<Request>(*message) != nullptr) {
    return receive(env, from, std::static_pointer_cast<const Request>(message));
  }
  if (config_.store->on_message(env, from, message)) return store_moved(env);
  if (message_as<ConnectionClosed>(*message) != nullptr) {
    // A client went away: its watches end here; answers to its requests would go nowhere.
    std::erase_if(watchers_, [from](const Watcher& w) { return w.client == from; });
    return;
  }
  HASIM_ASSERT(hook_ != nullptr);  // only the loopback client gets answers here
  hook_->on_message(env, message);
}

void ApiServer::on_terminate(Env& env) {
  if (hook_ == nullptr) return env.exit(0);
  hook_->on_terminate(env, [](Env& e) { e.exit(0); });
}

void ApiServer::receive(Env& env, ProcessId client, std::shared_ptr<const Request> request) {
  const ApiServerConditions& conditions = *config_.conditions;
  if (conditions.unavailable) return reply(env, client, request->id, Status::unavailable);
  const std::uint64_t key = next_key_++;
  const bool hangs = conditions.hangs(request->verb);
  Duration delay = conditions.extra_latency;
  if (!hangs && config_.processing_latency) delay = delay + config_.processing_latency(env.rng());
  if (!hangs && delay.ns == 0 && config_.store->answers_at_once()) {
    return execute_at_once(env, Pending{client, std::move(request), std::nullopt}, key);
  }
  Pending& pending = pending_.emplace_hint(pending_.end(), key, Pending{})->second;  // keys grow
  pending.client = client;
  pending.request = std::move(request);
  arm_timeout(env, pending, key);
  if (hangs) return;  // the kubernetes#44887 pattern: no answer until 504
  if (delay.ns == 0) return execute(env, key);
  env.set_timer(delay, execute_tags_.tag(key));
}

// Executed now, by a store that answers now or never and schedules nothing when it does not:
// the request is recorded as pending, with its timeout, only if no answer came. That timeout
// is scheduled exactly where one armed first would have been (nothing was scheduled in
// between), and the many requests answered at once touch neither pending_ nor a timer.
void ApiServer::execute_at_once(Env& env, Pending pending, std::uint64_t key) {
  HASIM_ASSERT(config_.store->answers_at_once());
  const Request& request = *pending.request;
  if (request.verb == Verb::watch) return watch(env, pending);
  // One pointer captured, so the callback fits std::function's inline buffer (no allocation):
  // everything it reads lives in this frame, which the at-once store answers within.
  struct Call {
    ApiServer& server;
    Env& env;
    const Pending& pending;
    bool answered = false;
  } call{*this, env, pending};
  dispatch(env, request, [&call](const StoreResult& result) {
    call.answered = true;
    call.server.respond(call.env, call.pending, result);
  });
  if (call.answered) return;
  Pending& waiting = pending_.emplace_hint(pending_.end(), key, std::move(pending))->second;
  arm_timeout(env, waiting, key);
}

// The server-side timeout filter answers 504 if the handler has not finished in time.
void ApiServer::arm_timeout(Env& env, Pending& pending, std::uint64_t key) {
  HASIM_ASSERT(!pending.timeout.has_value());
  pending.timeout = env.set_timer(config_.request_timeout, timeout_tags_.tag(key));
}

void ApiServer::execute(Env& env, std::uint64_t key) {
  const auto it = pending_.find(key);
  if (it == pending_.end()) return;  // timed out while waiting
  const Request& request = *it->second.request;
  if (request.verb == Verb::watch) return watch(env, take(env, it));
  dispatch(env, request, [this, &env, key](const StoreResult& result) {
    const auto answered = pending_.find(key);
    if (answered == pending_.end()) return;  // the request timeout answered 504 first
    respond(env, take(env, answered), result);
  });
}

void ApiServer::dispatch(Env& env, const Request& request, Store::Done done) {
  const ProcessId self = env.self();
  switch (request.verb) {
    case Verb::get:
      return config_.store->get(self, request.key, std::move(done));
    case Verb::list:
      return config_.store->list(self, request.key.kind, request.key.namespace_, std::move(done));
    case Verb::create:
      // The registry stamps creationTimestamp (metav1.Time: whole seconds) from its clock.
      return config_.store->create_from(self, *request.object, whole_seconds(env.now()),
                                        std::move(done));
    case Verb::update:
      return config_.store->update_from(self, *request.object, std::move(done));
    case Verb::delete_:
      return config_.store->remove(self, request.key, std::move(done));
    case Verb::watch:
      HASIM_ASSERT(false && "a watch is opened, not dispatched to the store");
      return;
  }
}

ApiServer::Pending ApiServer::take(Env& env, std::map<std::uint64_t, Pending>::iterator it) {
  Pending pending = std::move(it->second);
  pending_.erase(it);
  if (pending.timeout.has_value()) env.cancel_timer(*pending.timeout);
  pending.timeout.reset();
  return pending;
}

void ApiServer::respond(Env& env, const Pending& pending, const StoreResult& result) {
  const Request& request = *pending.request;
  if (is_write(request.verb) && is_success(result.status)) {
    // Properties use this to tell whether a client could still change cluster state.
    env.trace(trace_kind::kWrite,
              {{"user", request.user},
               {"verb", std::string(to_string(request.verb))},
               {"object", describe(request.key)},
               {"rv", static_cast<std::int64_t>(result.object->resourceVersion)}});
    trace_lease_write(env, request, *result.object);
  }
  if (result.status == Status::ok && (request.verb == Verb::get || request.verb == Verb::list)) {
    if (result.object) trace_lease_read(env, request.user, *result.object);
    for (const ObjectPtr& item : result.items) trace_lease_read(env, request.user, *item);
  }
  reply(env, pending.client, request.id, result.status, result.object, result.items,
        result.revision);
}

// A store inside this process (raft_store.hpp) took a message or a timer: its watch cache
// may have moved.
void ApiServer::store_moved(Env& env) {
  if (subscribed_) pull_events(env);
}

void ApiServer::on_timer(Env& env, TimerId /*timer*/, std::uint64_t tag) {
  if (execute_tags_.owns(tag)) return execute(env, execute_tags_.local(tag));
  if (forward_tags_.owns(tag)) {
    forward_timer_.reset();
    return forward_due(env);
  }
  if (timeout_tags_.owns(tag)) {
    const auto it = pending_.find(timeout_tags_.local(tag));
    HASIM_ASSERT(it != pending_.end());  // answered requests cancel their timeout
    const Pending pending = std::move(it->second);
    pending_.erase(it);
    // A store operation already under way may still commit: the client sees 504 for a
    // write that took effect, which is why release() retries on 409 (client-go 500bfe00c).
    reply(env, pending.client, pending.request->id, Status::timeout);
    return;
  }
  if (config_.store->on_timer(env, tag)) return store_moved(env);
  HASIM_ASSERT(hook_ != nullptr);  // every other space is the hook's
  hook_->on_timer(env, tag);
}

void ApiServer::reply(Env& env, ProcessId client, std::uint64_t id, Status status, ObjectPtr object,
                      std::vector<ObjectPtr> items, std::uint64_t revision) {
  auto response = std::make_shared<Response>();
  response->id = id;
  response->status = status;
  response->object = std::move(object);
  response->items = std::move(items);
  response->resourceVersion = revision;
  env.send(client, std::move(response));
}

// Watch: a client lists first, then watches from the list's resourceVersion; events after it
// reach the client from this instance's watch cache, which trails the store by watch_lag.
void ApiServer::watch(Env& env, const Pending& pending) {
  HASIM_ASSERT(!pending.timeout.has_value());  // taken out of pending_, its timer cancelled
  const Request& request = *pending.request;
  if (!subscribed_) {
    subscribed_ = true;
    seen_revision_ = config_.store->revision();
    config_.store->subscribe(env.self());
  }
  std::vector<StoreEvent> backlog;
  const std::uint64_t from =
      request.resourceVersion == 0 ? seen_revision_ : request.resourceVersion;
  if (!config_.store->events_after(from, backlog)) {
    return reply(env, pending.client, request.id, Status::gone);
  }
  Watcher watcher{pending.client,         request.id,       request.key.kind,
                  request.key.namespace_, request.key.name, from, request.user};
  reply(env, pending.client, request.id, Status::ok, {}, {}, config_.store->revision());
  // The cache has released everything up to `released`: the new watcher gets that part of the
  // backlog now, in revision order; the events still queued in the cache reach it as they do
  // every other watcher.
  const std::uint64_t released =
      outgoing_.empty() ? seen_revision_ : outgoing_.front().event.revision - 1;
  for (const StoreEvent& event : backlog) {
    if (event.revision <= released) send_event(env, watcher, event);
  }
  watchers_.push_back(std::move(watcher));
}

void ApiServer::pull_events(Env& env) {
  std::vector<StoreEvent> events;
  events.swap(pulled_);  // empty, with the capacity of earlier pulls
  HASIM_ASSERT(events.empty());
  struct GiveBack {  // the buffer returns on every path, emptied
    std::vector<StoreEvent>& events;
    std::vector<StoreEvent>& spare;
    ~GiveBack() {
      events.clear();
      spare.swap(events);
    }
  } give_back{events, pulled_};
  if (!config_.store->events_after(seen_revision_, events)) {
    // The cache fell behind the store's history: watchers must re-list (410 Gone).
    for (const Watcher& watcher : watchers_)
      reply(env, watcher.client, watcher.watch, Status::gone);
    watchers_.clear();
    seen_revision_ = config_.store->revision();
    return;
  }
  if (events.empty()) return;
  seen_revision_ = events.back().revision;
  const Duration lag = config_.watch_lag ? config_.watch_lag(env.rng()) : Duration{};
  LocalTime due = env.monotonic_now() + lag;
  // Watch order is revision order even when lags are drawn independently.
  if (!outgoing_.empty() && outgoing_.back().due > due) due = outgoing_.back().due;
  for (StoreEvent& event : events) outgoing_.push_back(Outgoing{due, std::move(event)});
  forward_due(env);
}

void ApiServer::send_event(Env& env, Watcher& watcher, const StoreEvent& event) {
  const ObjectKey& key = event.object->key;
  if (key.kind != watcher.kind || event.revision <= watcher.after) return;
  if (!watcher.namespace_.empty() && key.namespace_ != watcher.namespace_) return;
  if (!watcher.name.empty() && key.name != watcher.name) return;
  watcher.after = event.revision;
  auto message = std::make_shared<WatchEvent>();
  message->watch = watcher.watch;
  message->event = event.type;
  message->object = event.object;
  if (event.type != WatchEventType::deleted) trace_lease_read(env, watcher.user, *event.object);
  env.send(watcher.client, std::move(message));
}

void ApiServer::forward_due(Env& env) {
  const LocalTime now = env.monotonic_now();
  while (!outgoing_.empty() && outgoing_.front().due <= now) {
    for (Watcher& watcher : watchers_) send_event(env, watcher, outgoing_.front().event);
    outgoing_.pop_front();
  }
  if (!outgoing_.empty() && !forward_timer_.has_value()) {
    forward_timer_ = env.set_timer(outgoing_.front().due - now, forward_tags_.tag());
  }
}

}  // namespace hasim::api
