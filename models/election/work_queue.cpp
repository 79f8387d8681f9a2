#include "models/election/work_queue.hpp"

#include "sim/assert.hpp"

namespace hasim::election {
Duration item_exponential_failure_delay(std::uint32_t failures) {
  constexpr Duration kBase = milliseconds(5);
  constexpr Duration kMax = seconds(1000);
  if (failures >= 18) return kMax;  // 5 ms * 2^18 > 1000 s
  const Duration delay{kBase.ns << failures};
  return delay > kMax ? kMax : delay;
}

WorkQueue::WorkQueue(TagSpace timer_tags) : timer_tags_(timer_tags) {
  HASIM_ASSERT(timer_tags_.valid());
}

void WorkQueue::add(const api::ObjectKey& key) {
  if (processing_ == key) {
    dirty_ = true;
    return;
  }
  if (queued_.insert(key).second) queue_.push_back(key);
}

void WorkQueue::add_after(Env& env, const api::ObjectKey& key, Duration after) {
  if (after.ns <= 0) return add(key);
  const LocalTime due = env.monotonic_now() + after;
  // One search of waiting_: a controller requeues its key after every step.
  auto it = waiting_.lower_bound(key);
  if (it != waiting_.end() && it->first == key) {
    if (it->second.due <= due) return;  // an earlier AddAfter stands
    env.cancel_timer(it->second.timer);
    waiting_by_id_.erase(it->second.id);
  } else {
    it = waiting_.emplace_hint(it, key, Waiting{});
  }
  const std::uint64_t id = next_wait_++;
  waiting_by_id_.emplace_hint(waiting_by_id_.end(), id, key);  // ids only grow
  it->second = Waiting{due, env.set_timer(after, timer_tags_.tag(id)), id};
}

void WorkQueue::add_rate_limited(Env& env, const api::ObjectKey& key) {
  add_after(env, key, item_exponential_failure_delay(failures_[key]++));
}

std::optional<api::ObjectKey> WorkQueue::get() {
  if (processing_.has_value() || queue_.empty()) return std::nullopt;
  processing_ = std::move(queue_.front());
  queue_.pop_front();
  queued_.erase(*processing_);
  return processing_;
}

void WorkQueue::done(const api::ObjectKey& key) {
  HASIM_ASSERT(processing_ == key);
  processing_.reset();
  if (dirty_) {
    dirty_ = false;
    add(key);
  }
}

bool WorkQueue::on_timer(std::uint64_t tag) {
  if (!timer_tags_.owns(tag)) return false;
  const auto it = waiting_by_id_.find(timer_tags_.local(tag));
  HASIM_ASSERT(it != waiting_by_id_.end());
  const api::ObjectKey key = std::move(it->second);
  waiting_by_id_.erase(it);
  waiting_.erase(key);
  add(key);
  return true;
}

void WorkQueue::shut_down(Env& env) {
  for (const auto& [key, waiting] : waiting_) env.cancel_timer(waiting.timer);
  waiting_.clear();
  waiting_by_id_.clear();
}

}  // namespace hasim::election
