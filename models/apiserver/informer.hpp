#pragma once
// A shared informer's reflector and cache, as client-go runs them for one resource: List,
// then Watch from the list's resourceVersion, applying events to a local cache and handing
// each change to the owner. A watch that fails (410 Gone, an error, a timed-out or cancelled
// request) is re-established by a fresh List after a back-off; a healthy watch is also
// restarted after a random 5-10 min, as the reflector asks the server to end each watch
// (timeoutSeconds = minWatchTimeout * (1 + rand)), which bounds how long a silently broken
// stream goes unnoticed.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "models/apiserver/client.hpp"

namespace hasim::api {

struct InformerConfig {
  Kind kind = Kind::lease;
  std::string namespace_;  // empty: all namespaces
  std::string name;        // non-empty: fieldSelector metadata.name=<name>
  TagSpace timer_tags;     // for this informer's timers
};

class Informer {
 public:
  // (type, old object or null, new object; for deletions the last state)
  using Handler = std::function<void(Env&, WatchEventType, const ObjectPtr&, const ObjectPtr&)>;

  Informer(InformerConfig config, ApiClient& client, Handler handler);

  // Starts listing; `synced` (optional) runs once, after the first List has filled the cache
  // (cache.WaitForCacheSync).
  void run(Env& env, std::function<void(Env&)> synced = {});
  bool on_timer(Env& env, std::uint64_t tag);
  // Ends the list or watch in flight and the timers: nothing of this informer runs again.
  void stop(Env& env);
  bool has_synced() const { return synced_; }

  // The lister: the cache as of the last event applied.
  ObjectPtr get(const ObjectKey& key) const;
  const std::map<ObjectKey, ObjectPtr>& items() const { return cache_; }

 private:
  void list(Env& env);
  void watch(Env& env);
  void apply(Env& env, WatchEventType type, const ObjectPtr& object);
  void retry(Env& env);  // back-off, then List again
  bool matches(const Object& object) const;

  InformerConfig config_;
  ApiClient& client_;
  Handler handler_;
  std::function<void(Env&)> on_synced_;
  std::map<ObjectKey, ObjectPtr> cache_;
  bool synced_ = false;
  std::uint64_t last_revision_ = 0;
  std::uint64_t generation_ = 0;  // ignores answers and events of abandoned lists and watches
  ContextId context_ = 0;
  std::optional<TimerId> timer_;
  Duration backoff_{};
};

}  // namespace hasim::api
