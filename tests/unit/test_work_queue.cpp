// The one work queue of the election models, against client-go's util/workqueue contract:
// queue_test.go (TestBasic, TestAddWhileProcessing: a key is never handed out twice at once
// and an Add during processing is not lost), delaying_queue_test.go (TestSimpleQueue,
// TestDeduping: the earliest AddAfter wins) and default_rate_limiters_test.go
// (TestItemExponentialFailureRateLimiter: 1x, 2x, 4x ... the base, capped; Forget resets).
#include <catch2/catch.hpp>

#include "models/election/work_queue.hpp"
#include "fake_env.hpp"

using namespace hasim;
using namespace hasim::election;
using namespace hasim::literals;

namespace {

api::ObjectKey key(std::string name) {
  return api::ObjectKey{api::Kind::lease, "kube-system", std::move(name)};
}

// Fires every due delay timer into the queue.
void fire_due(testing::FakeEnv& env, WorkQueue& queue) {
  env.fire_due([&](TimerId, std::uint64_t tag) { REQUIRE(queue.on_timer(tag)); });
}

}  // namespace

TEST_CASE("work queue: FIFO of distinct keys, one at a time", "[workqueue]") {
  testing::FakeEnv env(1);
  WorkQueue queue(env.tag_space("queue"));
  queue.add(key("a"));
  queue.add(key("b"));
  queue.add(key("a"));  // already queued: no second entry
  REQUIRE(queue.get() == key("a"));
  CHECK_FALSE(queue.get().has_value());  // the one worker holds "a"
  queue.done(key("a"));
  REQUIRE(queue.get() == key("b"));
  queue.done(key("b"));
  CHECK_FALSE(queue.get().has_value());
}

TEST_CASE("work queue: an add while processing is queued again on done", "[workqueue]") {
  testing::FakeEnv env(1);
  WorkQueue queue(env.tag_space("queue"));
  queue.add(key("a"));
  REQUIRE(queue.get() == key("a"));
  queue.add(key("a"));
  queue.add(key("a"));
  CHECK_FALSE(queue.get().has_value());
  queue.done(key("a"));
  REQUIRE(queue.get() == key("a"));  // once, not twice
  queue.done(key("a"));
  CHECK_FALSE(queue.get().has_value());
}

TEST_CASE("work queue: add_after adds when due, and the earliest due wins", "[workqueue]") {
  testing::FakeEnv env(1);
  WorkQueue queue(env.tag_space("queue"));
  queue.add_after(env, key("a"), 10_s);
  queue.add_after(env, key("a"), 20_s);  // later: ignored
  CHECK(env.pending_timers() == 1);
  queue.add_after(env, key("a"), 5_s);  // earlier: replaces the waiting one
  CHECK(env.pending_timers() == 1);
  CHECK(env.next_deadline() == LocalTime{} + 5_s);
  CHECK_FALSE(queue.get().has_value());
  env.advance(5_s);
  fire_due(env, queue);
  REQUIRE(queue.get() == key("a"));
  CHECK_FALSE(queue.on_timer(env.tag_space("other").tag(1)));  // another owner's tag

  queue.add_after(env, key("b"), 0_s);  // no delay: Add
  CHECK(env.pending_timers() == 0);
  queue.done(key("a"));
  CHECK(queue.get() == key("b"));
}

TEST_CASE("work queue: per-item exponential back-off, reset by forget", "[workqueue]") {
  CHECK(item_exponential_failure_delay(0) == 5_ms);
  CHECK(item_exponential_failure_delay(1) == 10_ms);
  CHECK(item_exponential_failure_delay(10) == 5120_ms);
  CHECK(item_exponential_failure_delay(17) == 655360_ms);
  CHECK(item_exponential_failure_delay(18) == 1000_s);
  CHECK(item_exponential_failure_delay(1000) == 1000_s);

  testing::FakeEnv env(1);
  WorkQueue queue(env.tag_space("queue"));
  for (const Duration expected : {5_ms, 10_ms, 20_ms}) {
    queue.add_rate_limited(env, key("a"));
    CHECK(env.next_deadline() == env.monotonic_now() + expected);
    env.advance(expected);
    fire_due(env, queue);
    REQUIRE(queue.get() == key("a"));
    queue.done(key("a"));
  }
  queue.forget(key("a"));
  queue.add_rate_limited(env, key("a"));
  CHECK(env.next_deadline() == env.monotonic_now() + 5_ms);
}

TEST_CASE("work queue: shut_down cancels every delay timer", "[workqueue]") {
  testing::FakeEnv env(1);
  WorkQueue queue(env.tag_space("queue"));
  queue.add_after(env, key("a"), 1_s);
  queue.add_after(env, key("b"), 2_s);
  CHECK(env.pending_timers() == 2);
  queue.shut_down(env);
  CHECK(env.pending_timers() == 0);
}
