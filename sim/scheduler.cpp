#include "sim/scheduler.hpp"

#include <algorithm>
#include <bit>

#include "sim/assert.hpp"

namespace hasim {

namespace {
constexpr std::uint64_t kSignBit = std::uint64_t{1} << 63;
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
  bucket.push_back(entry);
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
  HASIM_ASSERT(!cancelled(slot));  // drop() cleared it
  s.sequence = next_sequence_++;
  insert(Entry{key_of(at), slot});
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

[[gnu::always_inline]] inline void Scheduler::release(std::uint32_t slot) {
  Slot& s = slots_[slot];
  HASIM_ASSERT(s.live);
  s.live = false;
  ++s.generation;  // stale EventIds for this slot no longer match
  free_slots_.push_back(slot);
}

void Scheduler::drop(std::uint32_t slot) {
  HASIM_ASSERT(cancelled(slot));
  set_cancelled(slot, false);  // so schedule() finds a reused slot's bit clear
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
  for (const Entry entry : from) {
    if (cancelled(entry.slot)) {
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
  for (const Entry entry : from) {  // drops cancelled entries
    if (cancelled(entry.slot)) {
      drop(entry.slot);
      continue;
    }
    HASIM_ASSERT(entry.time >= start && ((entry.time - start) >> shift) == 0);
    largest = entry.time > largest ? entry.time : largest;
    kept[n++] = entry;
  }
  from.clear();
  last_ = largest;
  // A few entries (a control plane's usual bucket): insertion sort. More (the hold model's
  // ~30): first a counting sort by the next digit below `shift` (stable), so the insertion
  // sort only orders keys that share that digit, usually none. Alone, the insertion sort
  // moved about n/4 entries per key and mispredicted once per key.
  if (n > kFewEntries) counting_sort(kept.data(), n, start, shift);
  for (std::size_t i = 1; i < n; ++i) {
    const Entry entry = kept[i];
    std::size_t j = i;
    for (; j > 0 && kept[j - 1].time > entry.time; --j) kept[j] = kept[j - 1];
    kept[j] = entry;
  }
  HASIM_ASSERT(n == 0 || kept[n - 1].time == largest);  // the largest key ends the run
  run_.assign(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(n));
}

void Scheduler::counting_sort(Entry* entries, std::size_t n, Key start, int shift) {
  HASIM_ASSERT(n <= kRunEntries);
  constexpr int kSubBits = kRadixBits;  // 4 to 6 measured alike; 7 slower
  const int sub_shift = shift > kSubBits ? shift - kSubBits : 0;
  std::array<std::uint8_t, (1 << kSubBits) + 1> count{};
  static_assert(kRunEntries < 256);
  for (std::size_t i = 0; i < n; ++i) ++count[((entries[i].time - start) >> sub_shift) + 1];
  for (int d = 1; d <= (1 << kSubBits); ++d) {
    count[d] = static_cast<std::uint8_t>(count[d] + count[d - 1]);
  }
  HASIM_ASSERT(count[1 << kSubBits] == n);  // every entry counted in exactly one sub-range
  std::array<Entry, kRunEntries> placed;    // not value-initialised: every one read is written
  for (std::size_t i = 0; i < n; ++i) {
    placed[count[(entries[i].time - start) >> sub_shift]++] = entries[i];
  }
  std::copy(placed.begin(), placed.begin() + static_cast<std::ptrdiff_t>(n), entries);
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

bool Scheduler::pop(Event& out) {
  // The usual case first: the run's front is live (no refill, no cancelled entry to drop).
  std::uint32_t slot = head_ < run_.size() ? run_[head_].slot : UINT32_MAX;
  if (slot == UINT32_MAX || cancelled(slot)) [[unlikely]] {
    slot = front();
    if (slot == UINT32_MAX) {
      HASIM_ASSERT(live_ == 0);
      return false;
    }
  }
  const TrueTime at = time_of(run_[head_].time);
  ++head_;
  const Slot& s = slots_[slot];
  HASIM_ASSERT(at >= now_);
  out = Event{at, s.sequence, s.kind, s.target, s.payload};
  now_ = at;
  release(slot);
  --live_;
  ++executed_;
  return true;
}

}  // namespace hasim
