#include "sim/scheduler.hpp"

#include "sim/assert.hpp"

namespace hasim {

EventId Scheduler::schedule(TrueTime at, std::uint32_t kind, std::uint32_t target,
                            std::uint64_t payload) {
  HASIM_ASSERT(at >= now_);
  std::uint32_t slot;
  if (free_slots_.empty()) {
    HASIM_ASSERT(slots_.size() < UINT32_MAX - 1);
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  Slot& s = slots_[slot];
  HASIM_ASSERT(!s.live);
  s.live = true;
  s.cancelled = false;
  s.kind = kind;
  s.target = target;
  s.payload = payload;
  push_key({at.ns, next_sequence_++, slot});
  ++live_;
  return {slot, s.generation};
}

bool Scheduler::is_pending(EventId id) const {
  if (!id.valid() || id.slot >= slots_.size()) return false;
  const Slot& s = slots_[id.slot];
  return s.live && !s.cancelled && s.generation == id.generation;
}

bool Scheduler::cancel(EventId id) {
  if (!is_pending(id)) return false;
  slots_[id.slot].cancelled = true;
  HASIM_ASSERT(live_ > 0);
  --live_;
  return true;
}

void Scheduler::release(std::uint32_t slot) {
  Slot& s = slots_[slot];
  HASIM_ASSERT(s.live);
  s.live = false;
  ++s.generation;  // stale EventIds for this slot no longer match
  free_slots_.push_back(slot);
}

void Scheduler::discard_cancelled_top() {
  while (!heap_.empty() && slots_[heap_.front().slot].cancelled) {
    release(pop_key().slot);
  }
}

TrueTime Scheduler::next_time() {
  discard_cancelled_top();
  return heap_.empty() ? TrueTime::max() : TrueTime{heap_.front().at_ns};
}

bool Scheduler::pop(Event& out) {
  discard_cancelled_top();
  if (heap_.empty()) {
    HASIM_ASSERT(live_ == 0);
    return false;
  }
  const Key key = pop_key();
  const Slot& s = slots_[key.slot];
  HASIM_ASSERT(key.at_ns >= now_.ns);
  out = Event{TrueTime{key.at_ns}, key.sequence, s.kind, s.target, s.payload};
  now_ = out.at;
  release(key.slot);
  --live_;
  ++executed_;
  return true;
}

void Scheduler::push_key(Key key) {
  std::size_t i = heap_.size();
  heap_.push_back(key);
  while (i > 0) {
    const std::size_t parent = (i - 1) / 4;
    if (!before(key, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = key;
}

Scheduler::Key Scheduler::pop_key() {
  HASIM_ASSERT(!heap_.empty());
  const Key top = heap_.front();
  const Key last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n == 0) return top;
  std::size_t i = 0;
  for (;;) {
    const std::size_t first = 4 * i + 1;
    if (first >= n) break;
    std::size_t best = first;
    const std::size_t end = first + 4 < n ? first + 4 : n;
    for (std::size_t c = first + 1; c < end; ++c) {
      if (before(heap_[c], heap_[best])) best = c;
    }
    if (!before(heap_[best], last)) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = last;
  return top;
}

}  // namespace hasim
