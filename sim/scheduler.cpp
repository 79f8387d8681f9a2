#include "sim/scheduler.hpp"

#include <bit>

#include "sim/assert.hpp"

namespace hasim {

namespace {
constexpr std::uint64_t kSignBit = std::uint64_t{1} << 63;
}  // namespace

Scheduler::Scheduler() : last_(make_key(TrueTime{}, 0, 0)) {}

Scheduler::Key Scheduler::make_key(TrueTime at, std::uint64_t sequence, std::uint32_t slot) {
  const std::uint64_t time_bits = static_cast<std::uint64_t>(at.ns) ^ kSignBit;
  return static_cast<Key>(time_bits) << 64 | (sequence << kSlotBits | slot);
}

TrueTime Scheduler::time_of(Key key) {
  return TrueTime{static_cast<std::int64_t>(static_cast<std::uint64_t>(key >> 64) ^ kSignBit)};
}

[[gnu::always_inline]] inline int Scheduler::bucket_of(Key key) const {
  const Key diff = key ^ last_;
  const auto high = static_cast<std::uint64_t>(diff >> 64);
  const auto low = static_cast<std::uint64_t>(diff);
  if (high == 0 && low == 0) return 0;
  const int bit = high != 0 ? 127 - std::countl_zero(high) : 63 - std::countl_zero(low);
  const int level = bit / kRadixBits;
  const auto digit = static_cast<int>(static_cast<std::uint64_t>(key >> (level * kRadixBits)) &
                                      (kRadix - 1));
  return level * kRadix + digit;
}

// Inline: split() calls it for every key it moves. Callers guarantee key >= last_.
[[gnu::always_inline]] inline void Scheduler::insert(Key key) {
  const int b = bucket_of(key);
  buckets_[b].push_back(key);
  mark(b);
}

void Scheduler::set_cancelled(std::uint32_t slot, bool on) {
  const std::uint64_t bit = std::uint64_t{1} << (slot & 63);
  cancelled_[slot >> 6] = on ? cancelled_[slot >> 6] | bit : cancelled_[slot >> 6] & ~bit;
}

EventId Scheduler::schedule(TrueTime at, std::uint32_t kind, std::uint32_t target,
                            std::uint64_t payload) {
  HASIM_ASSERT(at >= now_);
  std::uint32_t slot;
  if (free_slots_.empty()) {
    HASIM_ASSERT(slots_.size() < (std::size_t{1} << kSlotBits));
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
    if (slot % 64 == 0) cancelled_.push_back(0);
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  Slot& s = slots_[slot];
  HASIM_ASSERT(!s.live);
  s.live = true;
  s.kind = kind;
  s.target = target;
  s.payload = payload;
  set_cancelled(slot, false);
  HASIM_ASSERT(next_sequence_ < kMaxSequence);
  const Key key = make_key(at, next_sequence_++, slot);
  if (key < last_) [[unlikely]] {
    rebuild(key);
  } else {
    insert(key);
  }
  ++live_;
  return {slot, s.generation};
}

bool Scheduler::is_pending(EventId id) const {
  if (!id.valid() || id.slot >= slots_.size()) return false;
  const Slot& s = slots_[id.slot];
  return s.live && !cancelled(id.slot) && s.generation == id.generation;
}

bool Scheduler::cancel(EventId id) {
  if (!is_pending(id)) return false;
  set_cancelled(id.slot, true);
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

void Scheduler::split(int b) {
  std::vector<Key>& from = buckets_[b];
  unmark(b);
  // Drop cancelled keys here, in one pass over a compact bitset, and find the smallest live
  // key: it becomes last_, relative to which every other key lands in a lower bucket.
  std::size_t kept = 0;
  Key smallest = ~Key{0};
  for (const Key key : from) {
    const std::uint32_t slot = slot_of(key);
    if (cancelled(slot)) {
      release(slot);
      continue;
    }
    from[kept++] = key;
    smallest = key < smallest ? key : smallest;
  }
  if (kept == 0) {
    from.clear();
    return;
  }
  HASIM_ASSERT(smallest >= last_);
  last_ = smallest;
  // Each key differs from the new last_ below bit b-1, so insert() never appends to `from`.
  for (std::size_t i = 0; i < kept; ++i) insert(from[i]);
  from.clear();
}

bool Scheduler::refill() {
  // Bounded: each split empties a bucket at or above 1 into strictly lower ones.
  while (buckets_[0].empty()) {
    // Bucket 0 is empty here, so the lowest marked bucket is the one to split.
    if (nonempty_words_ == 0) return false;
    const int w = std::countr_zero(nonempty_words_);
    const int b = 64 * w + std::countr_zero(nonempty_[w]);
    HASIM_ASSERT(b > 0);
    split(b);
  }
  return true;
}

std::uint32_t Scheduler::front() {
  // Bucket 0 holds at most one key (keys are unique); a cancel after refill() leaves it there.
  while (refill()) {
    const std::uint32_t slot = slot_of(buckets_[0].back());
    if (!cancelled(slot)) return slot;
    release(slot);
    buckets_[0].pop_back();
    unmark(0);
  }
  return UINT32_MAX;
}

void Scheduler::rebuild(Key floor) {
  HASIM_ASSERT(floor < last_);
  std::vector<Key> all;
  for (int b = 0; b < kBuckets; ++b) {
    all.insert(all.end(), buckets_[b].begin(), buckets_[b].end());
    buckets_[b].clear();
  }
  nonempty_ = {};
  nonempty_words_ = 0;
  last_ = floor;
  insert(floor);
  for (const Key key : all) insert(key);
}

TrueTime Scheduler::next_time() {
  if (front() == UINT32_MAX) return TrueTime::max();
  return time_of(buckets_[0].back());
}

bool Scheduler::pop(Event& out) {
  const std::uint32_t slot = front();
  if (slot == UINT32_MAX) {
    HASIM_ASSERT(live_ == 0);
    return false;
  }
  const Key key = buckets_[0].back();
  buckets_[0].pop_back();
  unmark(0);
  const Slot& s = slots_[slot];
  const TrueTime at = time_of(key);
  HASIM_ASSERT(at >= now_);
  out = Event{at, sequence_of(key), s.kind, s.target, s.payload};
  now_ = at;
  release(slot);
  --live_;
  ++executed_;
  return true;
}

}  // namespace hasim
