#pragma once
// The event queue. Events are totally ordered by (true time, insertion sequence): two
// events at the same instant run in the order they were scheduled, never by address, hash
// or container order. A 4-ary heap of small keys; each event's payload lives in a slot, and
// an EventId (slot, generation) names it for cancellation. Cancelled events stay in the heap
// and are discarded when they reach the top, so cancel is O(1) and the heap never moves
// more than its keys.
#include <cstdint>
#include <vector>

#include "sim/int128.hpp"
#include "sim/time.hpp"

namespace hasim {

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
  struct Key {
    std::int64_t at_ns;
    std::uint64_t sequence;
    std::uint32_t slot;
  };
  struct Slot {
    std::uint32_t generation = 0;
    bool live = false;
    bool cancelled = false;
    std::uint32_t kind = 0;
    std::uint32_t target = 0;
    std::uint64_t payload = 0;
  };
  // (at_ns, sequence) lexicographically, computed as one 128-bit unsigned comparison (the
  // sign bit of at_ns flipped so negative times would still order correctly). It compiles
  // to a compare and a subtract-with-borrow, not two data-dependent branches, which lets
  // pop_key select children without mispredictions.
  static bool before(const Key& a, const Key& b) {
    return wide(a) < wide(b);
  }
  static UInt128 wide(const Key& k) {
    const std::uint64_t time_bits = static_cast<std::uint64_t>(k.at_ns) ^ (std::uint64_t{1} << 63);
    return static_cast<UInt128>(time_bits) << 64 | k.sequence;
  }
  void push_key(Key key);
  Key pop_key();
  void release(std::uint32_t slot);
  void discard_cancelled_top();

  std::vector<Key> heap_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  TrueTime now_{};
  std::uint64_t next_sequence_ = 0;
  std::uint64_t executed_ = 0;
  std::size_t live_ = 0;
};

}  // namespace hasim
