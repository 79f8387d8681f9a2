#include "sim/scheduler.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "sim/assert.hpp"

namespace hasim {

namespace {
constexpr std::uint64_t kSignBit = std::uint64_t{1} << 63;

// Exclusive prefix sums of 32 byte counts that total at most 255, eight bytes at a time: a
// little-endian word times 0x0101...01 holds in each byte the sum of the bytes up to it, and no
// byte carries into the next (every sum fits). A loop of 32 dependent additions cost the hold
// model more than the rest of the counting sort.
void exclusive_prefix_sums(std::array<std::uint8_t, 32>& counts) {
  static_assert(std::endian::native == std::endian::little);
  constexpr std::uint64_t kOnes = 0x0101010101010101;
  std::uint64_t carry = 0;  // the sum of the words before
  for (std::size_t w = 0; w < 4; ++w) {
    std::uint64_t x;
    std::memcpy(&x, counts.data() + 8 * w, 8);
    const std::uint64_t inclusive = x * kOnes;
    const std::uint64_t exclusive = inclusive - x + carry * kOnes;  // bytewise: no borrow
    std::memcpy(counts.data() + 8 * w, &exclusive, 8);
    carry += inclusive >> 56;
  }
  HASIM_ASSERT(carry <= 255);
}
}  // namespace

// last_ starts below every time, so the first event goes to a bucket (or, at the earliest
// possible time, to the run).
Scheduler::Scheduler() : last_(0) {}

Scheduler::Key Scheduler::key_of(TrueTime at) { return static_cast<Key>(at.ns) ^ kSignBit; }

TrueTime Scheduler::time_of(Key key) { return TrueTime{static_cast<std::int64_t>(key ^ kSignBit)}; }

[[gnu::always_inline]] inline int Scheduler::bucket_of(Key key) const {
  HASIM_ASSERT(key > last_);  // keys at or below last_ go to the run
  const Key diff = key ^ last_;
  const int level = (63 - std::countl_zero(diff)) / kRadixBits;
  const auto digit = static_cast<int>((key >> (level * kRadixBits)) & (kRadix - 1));
  return level * kRadix + digit;
}

// Inline: take() calls it for every entry it deals out. Callers guarantee time >= now().
[[gnu::always_inline]] inline void Scheduler::insert(Entry entry) {
  if (entry.time <= last_) return insert_into_run(entry);
  const int b = bucket_of(entry.time);
  std::vector<Entry>& bucket = buckets_[b];
  if (bucket.empty()) mark(b);  // a non-empty bucket is marked already
  if (bucket.size() == bucket.capacity()) [[unlikely]] {
    grow(bucket);
  }
  // Tells the compiler push_back will not reallocate: without the (inlined) reallocation,
  // schedule() and take() save and restore no registers for it.
  if (bucket.size() == bucket.capacity()) __builtin_unreachable();
  bucket.push_back(entry);
}

[[gnu::noinline]] void Scheduler::grow(std::vector<Entry>& bucket) {
  HASIM_ASSERT(bucket.size() == bucket.capacity());
  bucket.reserve(std::max<std::size_t>(2 * bucket.capacity(), 8));
}

void Scheduler::insert_into_run(Entry entry) {
  HASIM_ASSERT(entry.time <= last_);
  // At or after the run's last entry: an append. An entry goes after those of equal time,
  // which were scheduled before it.
  if (run_.size() == head_ || run_.back().time <= entry.time) return run_.push_back(entry);
  const auto first = run_.begin() + static_cast<std::ptrdiff_t>(head_);
  const auto at = std::upper_bound(first, run_.end(), entry.time,
                                   [](Key time, const Entry& e) { return time < e.time; });
  // Inside the run. A control plane's land on average about a quarter of the way in (a reply
  // a fraction of a millisecond ahead, in a run that reaches seconds out): when the entries
  // before the place are fewer, they move one step into the popped prefix instead.
  if (head_ > 0 && at - first < run_.end() - at) {
    std::move(first, at, first - 1);
    *(at - 1) = entry;
    --head_;
    return;
  }
  run_.insert(at, entry);
}

[[gnu::always_inline]] inline void Scheduler::set_cancelled(std::uint32_t slot, bool on) {
  const std::uint64_t bit = std::uint64_t{1} << (slot & 63);
  cancelled_[slot >> 6] = on ? cancelled_[slot >> 6] | bit : cancelled_[slot >> 6] & ~bit;
}

// Out of line: growing the vectors (a call that may allocate) would otherwise make every
// schedule() save and restore registers it does not need.
[[gnu::noinline]] void Scheduler::add_slot() {
  HASIM_ASSERT(free_count_ == 0 && slots_.size() < (std::size_t{1} << kSlotBits));
  const auto slot = static_cast<std::uint32_t>(slots_.size());
  slots_.emplace_back();
  if (slot % 64 == 0) cancelled_.push_back(0);
  // Room for every slot, so release() stores without a capacity check.
  free_slots_.resize(slots_.size());
  free_slots_[free_count_++] = slot;
}

EventId Scheduler::schedule(TrueTime at, std::uint32_t kind, std::uint32_t target,
                            std::uint64_t payload) {
  HASIM_ASSERT(at >= now_);
  if (free_count_ == 0) [[unlikely]] {
    add_slot();
  }
  const std::uint32_t slot = free_slots_[--free_count_];  // the last released: warm in cache
  Slot& s = slots_[slot];
  HASIM_ASSERT(!s.live);
  s.live = true;
  s.kind = kind;
  s.target = target;
  s.payload = payload;
  HASIM_ASSERT(!cancelled(slot));  // drop() cleared it
  s.sequence = next_sequence_++;
  ++live_;
  const EventId id{slot, s.generation};
  insert(Entry{key_of(at), slot});
  return id;
}

bool Scheduler::is_pending(EventId id) const {
  if (!id.valid() || id.slot >= slots_.size()) return false;
  const Slot& s = slots_[id.slot];
  return s.live && !cancelled(id.slot) && s.generation == id.generation;
}

bool Scheduler::cancel(EventId id) {
  if (!is_pending(id)) return false;
  set_cancelled(id.slot, true);
  ++cancelled_held_;
  HASIM_ASSERT(live_ > 0);
  --live_;
  return true;
}

[[gnu::always_inline]] inline void Scheduler::release(std::uint32_t slot) {
  Slot& s = slots_[slot];
  HASIM_ASSERT(s.live);
  s.live = false;
  ++s.generation;  // stale EventIds for this slot no longer match
  // add_slot() made room for every slot.
  HASIM_ASSERT(free_count_ < free_slots_.size());
  free_slots_[free_count_++] = slot;
}

void Scheduler::drop(std::uint32_t slot) {
  HASIM_ASSERT(cancelled(slot) && cancelled_held_ > 0);
  set_cancelled(slot, false);  // so schedule() finds a reused slot's bit clear
  --cancelled_held_;
  release(slot);
}

void Scheduler::take(int b) {
  HASIM_ASSERT(b > 0 && head_ == run_.size());
  std::vector<Entry>& from = buckets_[b];
  unmark(b);
  const int level = b / kRadix;
  const int shift = level * kRadixBits;
  const Key digit = static_cast<Key>(b % kRadix);
  const Key above =
      shift + kRadixBits >= 64 ? 0 : (last_ >> (shift + kRadixBits)) << (shift + kRadixBits);
  const Key start = above | (digit << shift);
  HASIM_ASSERT(start > last_);
  if (from.size() <= kRunEntries) return sort_into_run(from, start, shift);
  // Deal the bucket out relative to the start of its range: last_'s digits above the
  // bucket's level, the bucket's digit, zeros below. Every key in the bucket is at or above
  // it, and every other bucket's keys differ from it where they differed from last_ (at the
  // same level, with the same digit), so they stay where they are. Cancelled entries are
  // dropped on the way, in the same pass.
  last_ = start;
  // In order, so every receiving bucket stays in sequence order. Each entry differs from the
  // new last_ below bucket b's digit (or not at all: the run), so none returns to `from`.
  const bool any_cancelled = cancelled_held_ > 0;  // none: no bit to read per entry
  for (const Entry entry : from) {
    if (any_cancelled && cancelled(entry.slot)) {
      drop(entry.slot);
      continue;
    }
    HASIM_ASSERT(entry.time >= start);
    insert(entry);
  }
  from.clear();
}

void Scheduler::sort_into_run(std::vector<Entry>& from, Key start, int shift) {
  HASIM_ASSERT(head_ == run_.size() && from.size() <= kRunEntries);
  // Every other bucket's keys are above this one's, and agree with its largest key on every
  // digit they agreed with last_ on, so they stay where they are.
  run_.clear();
  head_ = 0;
  Key largest = last_;
  std::array<Entry, kRunEntries> kept;  // not value-initialised: every one read is written
  std::size_t n = 0;
  const bool any_cancelled = cancelled_held_ > 0;
  for (const Entry entry : from) {  // drops cancelled entries
    if (any_cancelled && cancelled(entry.slot)) {
      drop(entry.slot);
      continue;
    }
    HASIM_ASSERT(((entry.time - start) >> shift) == 0);  // unsigned: also entry.time >= start
    largest = entry.time > largest ? entry.time : largest;
    kept[n++] = entry;
  }
  from.clear();
  last_ = largest;
  // A few entries (a control plane's usual bucket): insertion sort. More (the hold model's
  // ~30): first a counting sort by the next digit below `shift` (stable), so the insertion
  // sort only orders keys that share that digit, usually none. Alone, the insertion sort
  // moved about n/4 entries per key and mispredicted once per key.
  std::array<Entry, kRunEntries> placed;  // not value-initialised: every one read is written
  Entry* sorted = kept.data();
  if (n > kFewEntries) {
    counting_sort(kept.data(), n, placed.data(), start, shift);
    sorted = placed.data();
  }
  for (std::size_t i = 1; i < n; ++i) {
    const Entry entry = sorted[i];
    std::size_t j = i;
    for (; j > 0 && sorted[j - 1].time > entry.time; --j) sorted[j] = sorted[j - 1];
    sorted[j] = entry;
  }
  HASIM_ASSERT(n == 0 || sorted[n - 1].time == largest);  // the largest key ends the run
  run_.assign(sorted, sorted + n);
}

void Scheduler::counting_sort(const Entry* entries, std::size_t n, Entry* placed, Key start,
                              int shift) {
  HASIM_ASSERT(n <= kRunEntries);
  constexpr int kSubBits = kRadixBits;  // 4 to 6 measured alike; 7 slower
  const int sub_shift = shift > kSubBits ? shift - kSubBits : 0;
  // Each sub-range's count, then where its entries start.
  std::array<std::uint8_t, 1 << kSubBits> at{};
  static_assert(kRunEntries < 256 && (1 << kSubBits) == 32);
  for (std::size_t i = 0; i < n; ++i) ++at[(entries[i].time - start) >> sub_shift];
  exclusive_prefix_sums(at);
  for (std::size_t i = 0; i < n; ++i) {
    placed[at[(entries[i].time - start) >> sub_shift]++] = entries[i];
  }
  // The last sub-range now ends at n: every entry was counted in exactly one sub-range.
  HASIM_ASSERT(at[(1 << kSubBits) - 1] == n);
}

bool Scheduler::refill() {
  // Bounded: each take() empties a bucket into the run or into strictly lower buckets.
  while (head_ == run_.size()) {
    run_.clear();
    head_ = 0;
    if (nonempty_words_ == 0) return false;
    const int w = std::countr_zero(nonempty_words_);
    take(64 * w + std::countr_zero(nonempty_[w]));
  }
  return true;
}

std::uint32_t Scheduler::front() {
  // A cancel after refill() leaves its entry in the run.
  while (refill()) {
    const std::uint32_t slot = run_[head_].slot;
    if (!cancelled(slot)) return slot;
    drop(slot);
    ++head_;
  }
  return UINT32_MAX;
}

TrueTime Scheduler::next_time() {
  if (front() == UINT32_MAX) return TrueTime::max();
  return time_of(run_[head_].time);
}

[[gnu::always_inline]] inline void Scheduler::pop_front(std::uint32_t slot, Event& out) {
  HASIM_ASSERT(head_ < run_.size() && run_[head_].slot == slot && !cancelled(slot));
  const TrueTime at = time_of(run_[head_].time);
  ++head_;
  const Slot& s = slots_[slot];
  HASIM_ASSERT(at >= now_);
  out = Event{at, s.sequence, s.kind, s.target, s.payload};
  now_ = at;
  release(slot);
  --live_;
  ++executed_;
}

bool Scheduler::pop(Event& out) {
  // The usual case: the run's front is live (no refill, no cancelled entry to drop). The rest
  // is a tail call, so this path saves no registers.
  if (head_ == run_.size() || (cancelled_held_ > 0 && cancelled(run_[head_].slot))) [[unlikely]]
    return pop_refilled(out);
  pop_front(run_[head_].slot, out);
  return true;
}

[[gnu::noinline]] bool Scheduler::pop_refilled(Event& out) {
  const std::uint32_t slot = front();
  if (slot == UINT32_MAX) {
    HASIM_ASSERT(live_ == 0 && cancelled_held_ == 0);  // refill() dropped every cancelled entry
    return false;
  }
  pop_front(slot, out);
  return true;
}

}  // namespace hasim
