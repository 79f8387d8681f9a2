#include "sim/scheduler.hpp"

#include "sim/assert.hpp"

namespace hasim {

EventId Scheduler::schedule(TrueTime at, std::uint32_t kind, std::uint32_t target,
                            std::uint64_t payload) {
  HASIM_ASSERT(at >= now_);
  std::uint32_t slot;
  if (free_slots_.empty()) {
    HASIM_ASSERT(slots_.size() < (std::size_t{1} << kSlotBits));
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
  HASIM_ASSERT(next_sequence_ < kMaxSequence);
  const Key key{at.ns, next_sequence_++ << kSlotBits | slot};
  if (hole_at_root_) {
    hole_at_root_ = false;
    sift_down(0, key);
  } else {
    push_key(key);
  }
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
  settle();
  while (size() > 0 && slots_[keys()[0].slot()].cancelled) {
    release(keys()[0].slot());
    hole_at_root_ = true;
    settle();
  }
}

TrueTime Scheduler::next_time() {
  discard_cancelled_top();
  return size() == 0 ? TrueTime::max() : TrueTime{keys()[0].at_ns};
}

bool Scheduler::pop(Event& out) {
  discard_cancelled_top();
  if (size() == 0) {
    HASIM_ASSERT(live_ == 0);
    return false;
  }
  const Key key = keys()[0];
  hole_at_root_ = true;  // removed lazily: see settle()
  const Slot& s = slots_[key.slot()];
  HASIM_ASSERT(key.at_ns >= now_.ns);
  out = Event{TrueTime{key.at_ns}, key.sequence(), s.kind, s.target, s.payload};
  now_ = out.at;
  release(key.slot());
  --live_;
  ++executed_;
  return true;
}

void Scheduler::push_key(Key key) {
  HASIM_ASSERT(!hole_at_root_);
  heap_.push_back(key);
  Key* const heap = keys();
  std::size_t i = size() - 1;
  while (i > 0) {
    const std::size_t parent = (i - 1) / 4;
    if (!before(key, heap[parent])) break;
    heap[i] = heap[parent];
    i = parent;
  }
  heap[i] = key;
}

namespace {
// The index of the earlier of heap[a] and heap[b]. Which child is smallest is a coin toss
// for random times, so a branch here mispredicts about half the time; an arithmetic select
// does not (g++ turns `before(...) ? b : a` back into a branch).
template <typename Key, typename Before>
std::size_t earlier(const Key* heap, std::size_t a, std::size_t b, Before before) {
  const auto take_b = static_cast<std::size_t>(before(heap[b], heap[a]));
  return a ^ ((a ^ b) & (0 - take_b));
}
}  // namespace

void Scheduler::settle() {
  if (!hole_at_root_) return;
  hole_at_root_ = false;
  HASIM_ASSERT(size() > 0);
  const Key last = heap_.back();
  heap_.pop_back();
  if (size() > 0) sift_down(0, last);
}

void Scheduler::sift_down(std::size_t i, Key key) {
  Key* const heap = keys();
  const std::size_t n = size();
  HASIM_ASSERT(i < n);
  // Move the smallest child up until `key` fits. Keys are unique (sequence), so events
  // leave the heap exactly in (time, sequence) order.
  for (;;) {
    const std::size_t first = 4 * i + 1;
    std::size_t best;
    if (first + 4 <= n) {
      const std::size_t left = earlier(heap, first, first + 1, before);
      const std::size_t right = earlier(heap, first + 2, first + 3, before);
      best = earlier(heap, left, right, before);
    } else if (first < n) {
      best = first;
      for (std::size_t c = first + 1; c < n; ++c) best = earlier(heap, best, c, before);
    } else {
      break;
    }
    if (!before(heap[best], key)) break;
    heap[i] = heap[best];
    i = best;
  }
  heap[i] = key;
}

}  // namespace hasim
