#pragma once
// The event queue. Events are totally ordered by (true time, insertion sequence): two
// events at the same instant run in the order they were scheduled, never by address, hash
// or container order. A 4-ary heap of small keys; each event's payload lives in a slot, and
// an EventId (slot, generation) names it for cancellation. Cancelled events stay in the heap
// and are discarded when they reach the top, so cancel is O(1) and the heap never moves
// more than its keys.
#include <cstdint>
#include <new>
#include <vector>

#include "sim/int128.hpp"
#include "sim/time.hpp"

namespace hasim {

// Allocates on 64-byte boundaries so heap nodes' children share one cache line.
template <typename T>
struct CacheAlignedAllocator {
  using value_type = T;
  CacheAlignedAllocator() = default;
  template <typename U>
  CacheAlignedAllocator(const CacheAlignedAllocator<U>&) {}
  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{64}));
  }
  void deallocate(T* p, std::size_t) { ::operator delete (p, std::align_val_t{64}); }
  bool operator==(const CacheAlignedAllocator&) const { return true; }
};

struct EventId {
  std::uint32_t slot = UINT32_MAX;
  std::uint32_t generation = 0;
  bool valid() const { return slot != UINT32_MAX; }
  bool operator==(const EventId&) const = default;
};

// What an event carries; the driver (World) decides what kind/target/payload mean.
struct Event {
  TrueTime at;
  std::uint64_t sequence = 0;
  std::uint32_t kind = 0;
  std::uint32_t target = 0;
  std::uint64_t payload = 0;
};

class Scheduler {
 public:
  // `at` must not precede now(): the past cannot be changed.
  EventId schedule(TrueTime at, std::uint32_t kind, std::uint32_t target, std::uint64_t payload);
  // True if the event was pending and is now cancelled; false if it already ran or was
  // cancelled before (stale ids are harmless, because generations differ).
  bool cancel(EventId id);
  bool is_pending(EventId id) const;
  // Removes the next live event, advances now() to its time, and returns true; false when
  // nothing is pending.
  bool pop(Event& out);
  // Time of the next live event, or TrueTime::max() when empty. Discards cancelled tops.
  TrueTime next_time();

  TrueTime now() const { return now_; }
  std::size_t pending() const { return live_; }
  std::uint64_t executed() const { return executed_; }

 private:
  // A heap key is 16 bytes, so one cache line holds a node's four children: the true time,
  // and the insertion sequence with the slot packed below it. The sequence dominates `order`
  // and is unique, so comparing (at_ns, order) is exactly comparing (at_ns, sequence).
  static constexpr int kSlotBits = 24;  // at most 16.7 M pending events (asserted)
  static constexpr std::uint64_t kMaxSequence = std::uint64_t{1} << (64 - kSlotBits);
  struct Key {
    std::int64_t at_ns;
    std::uint64_t order;  // sequence << kSlotBits | slot
    std::uint32_t slot() const {
      return static_cast<std::uint32_t>(order & ((1u << kSlotBits) - 1));
    }
    std::uint64_t sequence() const { return order >> kSlotBits; }
  };
  static_assert(sizeof(Key) == 16);
  struct Slot {
    std::uint32_t generation = 0;
    bool live = false;
    bool cancelled = false;
    std::uint32_t kind = 0;
    std::uint32_t target = 0;
    std::uint64_t payload = 0;
  };
  // (at_ns, order) lexicographically, as one 128-bit unsigned comparison (the sign bit of
  // at_ns flipped so the order of signed times is kept). A compare and a subtract-with-borrow
  // instead of two data-dependent branches, so choosing the smallest child does not mispredict.
  static bool before(const Key& a, const Key& b) { return wide(a) < wide(b); }
  static UInt128 wide(const Key& k) {
    const std::uint64_t time_bits = static_cast<std::uint64_t>(k.at_ns) ^ (std::uint64_t{1} << 63);
    return static_cast<UInt128>(time_bits) << 64 | k.order;
  }
  // Logical index i lives at heap_[i + kPad]: then the children of i, 4i+1..4i+4, sit at
  // 4(i+1)..4(i+1)+3, one 64-byte-aligned cache line.
  static constexpr std::size_t kPad = 3;
  Key* keys() { return heap_.data() + kPad; }
  std::size_t size() const { return heap_.size() - kPad; }
  void push_key(Key key);
  // Puts `key` at logical index `i` (a hole) and moves it down until the heap is valid.
  void sift_down(std::size_t i, Key key);
  // Removes the root if pop() left it as a hole (see hole_at_root_).
  void settle();
  void release(std::uint32_t slot);
  void discard_cancelled_top();

  std::vector<Key, CacheAlignedAllocator<Key>> heap_{kPad, Key{0, 0}};
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  TrueTime now_{};
  std::uint64_t next_sequence_ = 0;
  std::uint64_t executed_ = 0;
  std::size_t live_ = 0;
  // pop() leaves the root as a hole, because the handler of a popped event usually schedules
  // its successor at once: schedule() then fills the hole with one sift-down (replace-top)
  // instead of a sift-down for the removal plus a sift-up for the insertion. Any other use
  // of the heap settles the hole first, so order is unaffected.
  bool hole_at_root_ = false;
};

}  // namespace hasim
