#include "models/election/work_queue.hpp"

#include <algorithm>

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
  if (std::find(queue_.begin(), queue_.end(), key) == queue_.end()) queue_.push_back(key);
}

void WorkQueue::add_after(Env& env, const api::ObjectKey& key, Duration after) {
  if (after.ns <= 0) return add(key);
  const LocalTime due = env.monotonic_now() + after;
  const auto it = std::find_if(waiting_.begin(), waiting_.end(),
                               [&key](const Waiting& w) { return w.key == key; });
  const std::uint64_t id = next_wait_;
  if (it != waiting_.end()) {
    if (it->due <= due) return;  // an earlier AddAfter stands
    env.cancel_timer(it->timer);
    ++next_wait_;
    it->due = due;
    it->timer = env.set_timer(after, timer_tags_.tag(id));
    it->id = id;
    return;
  }
  ++next_wait_;
  waiting_.push_back(Waiting{key, due, env.set_timer(after, timer_tags_.tag(id)), id});
}

void WorkQueue::add_rate_limited(Env& env, const api::ObjectKey& key) {
  add_after(env, key, item_exponential_failure_delay(failures_[key]++));
}

std::optional<api::ObjectKey> WorkQueue::get() {
  if (processing_.has_value() || queue_.empty()) return std::nullopt;
  processing_ = std::move(queue_.front());
  queue_.pop_front();
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
  const std::uint64_t id = timer_tags_.local(tag);
  const auto it =
      std::find_if(waiting_.begin(), waiting_.end(), [id](const Waiting& w) { return w.id == id; });
  HASIM_ASSERT(it != waiting_.end());  // a moved or shut-down wait cancelled its timer
  api::ObjectKey key = std::move(it->key);
  if (it != waiting_.end() - 1) *it = std::move(waiting_.back());
  waiting_.pop_back();
  add(key);
  return true;
}

void WorkQueue::shut_down(Env& env) {
  for (const Waiting& waiting : waiting_) env.cancel_timer(waiting.timer);
  waiting_.clear();
}

}  // namespace hasim::election
