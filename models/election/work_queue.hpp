#pragma once
// client-go's workqueue (k8s.io/client-go/util/workqueue) as a controller with one worker
// uses it, sans-IO:
//  - queue.go: a FIFO of distinct keys. Add of a key already queued does nothing; Add of the
//    key the worker holds marks it dirty, and Done queues it again (a key is never processed
//    twice at once, and an update during processing is not lost).
//  - delaying_queue.go: AddAfter adds the key once `after` has passed; while it waits, a later
//    AddAfter only moves it earlier (the earliest due time wins). AddAfter(<= 0) is Add.
//  - default_rate_limiters.go: AddRateLimited waits per item 5 ms * 2^failures, at most
//    1000 s (ItemExponentialFailureRateLimiter, the per-item half of
//    DefaultTypedControllerRateLimiter; its 10 qps bucket never binds for these queues);
//    Forget resets the item's count.
// The queue never runs the worker itself: its owner calls get() when the worker is idle, and
// after add() or on_timer() says a key became ready.
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <vector>

#include "models/apiserver/object.hpp"
#include "sim/env.hpp"

namespace hasim::election {

// 5 ms * 2^failures, at most 1000 s.
Duration item_exponential_failure_delay(std::uint32_t failures);

class WorkQueue {
 public:
  // `timer_tags`: the space for the delay timers.
  explicit WorkQueue(TagSpace timer_tags);

  void add(const api::ObjectKey& key);
  void add_after(Env& env, const api::ObjectKey& key, Duration after);
  void add_rate_limited(Env& env, const api::ObjectKey& key);
  void forget(const api::ObjectKey& key) { failures_.erase(key); }
  // Get, for the one worker: the next key, or nothing if a key is being processed or none is
  // queued.
  std::optional<api::ObjectKey> get();
  // Done: the worker finished `key`; a key added meanwhile is queued again.
  void done(const api::ObjectKey& key);
  // True if `tag` was one of this queue's delay timers; its key has been added.
  bool on_timer(std::uint64_t tag);
  // ShutDown: cancels the delay timers; the queue is not used again.
  void shut_down(Env& env);

 private:
  struct Waiting {
    api::ObjectKey key;
    LocalTime due;  // local monotonic
    TimerId timer = 0;
    std::uint64_t id = 0;
  };

  TagSpace timer_tags_;
  // Flat and scanned: a controller's queue holds a few keys (its Leases, or one candidate), and
  // every step adds, takes and requeues one, where tree nodes cost an allocation each.
  std::deque<api::ObjectKey> queue_;  // FIFO of distinct keys
  std::optional<api::ObjectKey> processing_;
  bool dirty_ = false;            // processing_ was added again while being processed
  std::vector<Waiting> waiting_;  // one per key, in no particular order (none is ever relied on)
  std::uint64_t next_wait_ = 1;
  std::map<api::ObjectKey, std::uint32_t> failures_;
};

}  // namespace hasim::election
