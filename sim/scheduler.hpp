#pragma once
// The event queue. Events are totally ordered by (true time, insertion sequence): two
// events at the same instant run in the order they were scheduled, never by address, hash
// or container order. Each event's payload lives in a slot, and an EventId (slot,
// generation) names it for cancellation.
//
// The queue is a radix heap (Ahuja, Mehlhorn, Orlin, Tarjan 1990) over 128-bit keys
// (time, sequence): chosen on measurement against the 4-ary heap it replaced (README,
// "Benchmarks"). A radix heap needs monotone keys, which a simulator gives for free: every
// new event is at or after now() and has a larger sequence than any before, so its key
// exceeds the last one popped. A key lives in the bucket of the highest bit in which it
// differs from the last popped key; popping empties the lowest non-empty bucket into lower
// ones, so a key moves only downwards, by appends to vectors (no compare-and-swap walk over
// a tree of cache lines). Keys are unique (the sequence), so the order is exact.
//
// Cancellation is O(1): a bit per slot. A cancelled key is dropped the next time its bucket
// is emptied, usually long before its time comes, so timers reset before they fire (leases,
// raft) do not pile up in the queue.
#include <array>
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
  Scheduler();
  // `at` must not precede now(): the past cannot be changed.
  EventId schedule(TrueTime at, std::uint32_t kind, std::uint32_t target, std::uint64_t payload);
  // True if the event was pending and is now cancelled; false if it already ran or was
  // cancelled before (stale ids are harmless, because generations differ).
  bool cancel(EventId id);
  bool is_pending(EventId id) const;
  // Removes the next live event, advances now() to its time, and returns true; false when
  // nothing is pending.
  bool pop(Event& out);
  // Time of the next live event, or TrueTime::max() when empty.
  TrueTime next_time();

  TrueTime now() const { return now_; }
  std::size_t pending() const { return live_; }
  std::uint64_t executed() const { return executed_; }

 private:
  // A key is (time with its sign bit flipped, so signed times order as unsigned) << 64 |
  // sequence << kSlotBits | slot. The sequence dominates the low word and is unique, so
  // comparing keys is exactly comparing (time, sequence).
  using Key = UInt128;
  static constexpr int kSlotBits = 24;  // at most 16.7 M pending events (asserted)
  static constexpr std::uint64_t kMaxSequence = std::uint64_t{1} << (64 - kSlotBits);
  // Buckets by the highest differing digit (kRadixBits wide) from last_ and the key's value
  // of that digit: bucket level * kRadix + digit. The digit is above last_'s, so never 0;
  // bucket 0 holds the key equal to last_. Wider digits mean fewer moves per key (a key moves
  // at most once per level) but more buckets to find the lowest non-empty among.
  static constexpr int kRadixBits = 4;
  static constexpr int kRadix = 1 << kRadixBits;
  static constexpr int kBuckets = 128 / kRadixBits * kRadix;
  static constexpr int kMaskWords = kBuckets / 64;
  static_assert(kMaskWords <= 64);
  static Key make_key(TrueTime at, std::uint64_t sequence, std::uint32_t slot);
  static TrueTime time_of(Key key);
  static std::uint32_t slot_of(Key key) {
    return static_cast<std::uint32_t>(key) & ((1u << kSlotBits) - 1);
  }
  static std::uint64_t sequence_of(Key key) { return static_cast<std::uint64_t>(key) >> kSlotBits; }

  struct Slot {
    std::uint32_t generation = 0;
    bool live = false;  // scheduled and not yet popped or dropped (cancelled ones too)
    std::uint32_t kind = 0;
    std::uint32_t target = 0;
    std::uint64_t payload = 0;
  };

  int bucket_of(Key key) const;
  void insert(Key key);
  // Puts the smallest live key in bucket 0, emptying lower buckets as needed; false if no
  // live key is left.
  bool refill();
  // Moves every key of bucket `b` into lower buckets, relative to its smallest live key.
  // Keys of one bucket agree on every digit down to its level, so they all move lower.
  void split(int b);
  // A key below last_ (an event scheduled after next_time() peeked further ahead):
  // re-buckets everything relative to it. Only at a run_until boundary, so rare.
  void rebuild(Key floor);
  bool cancelled(std::uint32_t slot) const { return (cancelled_[slot >> 6] >> (slot & 63)) & 1; }
  void set_cancelled(std::uint32_t slot, bool on);
  void release(std::uint32_t slot);
  // The live front key's slot, after refill(); UINT32_MAX when empty.
  std::uint32_t front();

  std::array<std::vector<Key>, kBuckets> buckets_;
  std::array<std::uint64_t, kMaskWords> nonempty_{};  // bit b set: buckets_[b] holds keys
  std::uint64_t nonempty_words_ = 0;                  // bit w set: nonempty_[w] != 0
  void mark(int b) {
    nonempty_[b >> 6] |= std::uint64_t{1} << (b & 63);
    nonempty_words_ |= std::uint64_t{1} << (b >> 6);
  }
  void unmark(int b) {
    nonempty_[b >> 6] &= ~(std::uint64_t{1} << (b & 63));
    if (nonempty_[b >> 6] == 0) nonempty_words_ &= ~(std::uint64_t{1} << (b >> 6));
  }
  Key last_;                                 // no key in a bucket is below it
  std::vector<Slot> slots_;
  std::vector<std::uint64_t> cancelled_;  // one bit per slot: compact, read on every split
  std::vector<std::uint32_t> free_slots_;
  TrueTime now_{};
  std::uint64_t next_sequence_ = 0;
  std::uint64_t executed_ = 0;
  std::size_t live_ = 0;
};

}  // namespace hasim
