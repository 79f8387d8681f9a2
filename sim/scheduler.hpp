#pragma once
// The event queue. Events are totally ordered by (true time, insertion sequence): two
// events at the same instant run in the order they were scheduled, never by address, hash
// or container order. Each event's payload lives in a slot, and an EventId (slot,
// generation) names it for cancellation.
//
// The queue is a radix heap (Ahuja, Mehlhorn, Orlin, Tarjan 1990) over event times: chosen
// on measurement against the 4-ary heap and the 128-bit-key radix heap before it (README,
// "Benchmarks"). A radix heap needs monotone keys, which a simulator gives for free: every new
// event is at or after now(), so its time is at or above the last one popped. A key lives in
// the bucket of the highest digit in which it differs from last_ (the boundary below, see the
// run); popping empties the lowest non-empty bucket into lower ones, so a key moves only downwards,
// by appends to vectors (no compare-and-swap walk over a tree of cache lines).
//
// Ties need no key bits: every bucket's entries are in insertion-sequence order. A schedule
// appends the largest sequence yet; a bucket is emptied only when every lower one is empty,
// and its entries are dealt out in order, so each receiving bucket stays sorted.
//
// The near future is a run: a short vector sorted by (time, sequence), popped from the front.
// When the run is used up, the lowest bucket is taken: if it holds at most kRunEntries, it is
// sorted (stably, by time) into the run and last_ becomes its largest time; otherwise it is
// dealt into lower buckets relative to the start of its range (in the same pass that drops its
// cancelled entries: one read of each entry), and entries at that start go to the run. Every
// key in a bucket is above last_ and every key in the run at or below it, so a new event at
// or before last_ (the same instant, or earlier than a peek at next_time() reached) is placed
// in the run by insertion, and the lowest levels of the heap are never walked key by key.
//
// Cancellation is O(1): a bit per slot. A cancelled entry is dropped the next time its bucket
// is emptied, usually long before its time comes, so timers reset before they fire (leases,
// raft) do not pile up in the queue.
#include <array>
#include <cstdint>
#include <vector>

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
  // Times as unsigned keys: the sign bit flipped, so signed times order as unsigned.
  using Key = std::uint64_t;
  static constexpr int kSlotBits = 24;  // at most 16.7 M pending events (asserted)
  struct Entry {
    Key time;
    std::uint32_t slot;
  };
  // Buckets by the highest differing digit (kRadixBits wide) from last_ and the key's value
  // of that digit: bucket level * kRadix + digit. The digit is above last_'s, so bucket 0 is
  // never used (keys at or below last_ go to the run). Wider digits mean fewer moves per key (a key
  // moves at most once per level) but more buckets to find the lowest non-empty among.
  static constexpr int kRadixBits = 5;
  static constexpr int kRadix = 1 << kRadixBits;
  static constexpr int kLevels = (64 + kRadixBits - 1) / kRadixBits;
  static constexpr int kBuckets = kLevels * kRadix;
  static constexpr int kMaskWords = (kBuckets + 63) / 64;
  static_assert(kMaskWords <= 64);
  // A bucket this small is sorted into the run rather than dealt out (measured: README).
  static constexpr std::size_t kRunEntries = 32;
  static Key key_of(TrueTime at);
  static TrueTime time_of(Key key);

  struct Slot {
    std::uint64_t sequence = 0;
    std::uint64_t payload = 0;
    std::uint32_t generation = 0;
    std::uint32_t kind = 0;
    std::uint32_t target = 0;
    bool live = false;  // scheduled and not yet popped or dropped (cancelled ones too)
  };

  int bucket_of(Key key) const;
  // Into a bucket (time above last_) or the run (at or below it).
  void insert(Entry entry);
  void insert_into_run(Entry entry);
  // Doubles a full bucket's capacity (out of line: see insert()).
  static void grow(std::vector<Entry>& bucket);
  // Makes the run non-empty from the lowest bucket(s); false if nothing is left.
  bool refill();
  // Empties bucket `b`, the lowest non-empty one, into the run or into lower buckets.
  void take(int b);
  // Sorts a bucket of at most kRunEntries, whose keys lie in [start, start + 2^shift), into
  // the (empty) run; last_ becomes its largest key.
  void sort_into_run(std::vector<Entry>& from, Key start, int shift);
  // Places n entries in [start, start + 2^shift) into `placed` in the order of the digit below
  // `shift`, stably.
  static void counting_sort(const Entry* entries, std::size_t n, Entry* placed, Key start,
                            int shift);
  // At most this many: insertion sort alone (measured: 4 and 8 alike on the hold model; the
  // raft cluster's buckets are mostly this small).
  static constexpr std::size_t kFewEntries = 4;
  bool cancelled(std::uint32_t slot) const { return (cancelled_[slot >> 6] >> (slot & 63)) & 1; }
  void set_cancelled(std::uint32_t slot, bool on);
  void release(std::uint32_t slot);
  // Releases a cancelled entry's slot, clearing its bit.
  void drop(std::uint32_t slot);
  // The live front entry's slot, after refill(); UINT32_MAX when empty.
  std::uint32_t front();
  // pop() of the run's front entry, live, in `slot`.
  void pop_front(std::uint32_t slot, Event& out);
  // pop() when the run is used up or its front was cancelled.
  bool pop_refilled(Event& out);
  // A new slot on the free list (none was free).
  void add_slot();

  std::array<std::vector<Entry>, kBuckets> buckets_;
  std::vector<Entry> run_;  // sorted by (time, sequence); entries before head_ are popped
  std::size_t head_ = 0;
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
  Key last_;  // keys in buckets are above it, keys in the run at or below it
  std::vector<Slot> slots_;
  std::vector<std::uint64_t> cancelled_;  // one bit per slot: compact, read on every split
  // Entries cancelled and not yet dropped (their bits set); while none, no bit is read.
  std::size_t cancelled_held_ = 0;
  std::vector<std::uint32_t> free_slots_;  // the first free_count_ are free; one per slot
  std::size_t free_count_ = 0;
  TrueTime now_{};
  std::uint64_t next_sequence_ = 0;
  std::uint64_t executed_ = 0;
  std::size_t live_ = 0;
};

}  // namespace hasim
