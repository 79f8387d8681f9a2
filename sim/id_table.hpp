#pragma once
// A small map from increasing ids to values, as a sorted vector: a process's pending timers,
// an API client's requests in flight. A process holds a handful of timers at a time, and every
// timer is set, then cancelled or fired, so a tree node per timer (std::map) cost an
// allocation, a rebalance on insert and another on erase: about 6% of a control-plane trial
// (and 1% more of a coordinated one in ApiClient's map of requests, stop 41). Ids come from
// one counter that only grows (World::next_timer_id_, ApiClient::next_id_), so an insert is
// an append; lookups are a binary search over a few entries. Iteration is in id order, as
// std::map's was (clock-rate faults reschedule timers in that order, which fixes their event
// sequence numbers). Cross-checked against std::map on random operations in
// tests/unit/test_id_table.cpp.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/assert.hpp"

namespace hasim {

template <typename Value>
class IdTable {
 public:
  using Entry = std::pair<std::uint64_t, Value>;
  using iterator = typename std::vector<Entry>::iterator;
  using const_iterator = typename std::vector<Entry>::const_iterator;

  // Inserts `id` (absent); an id above every present one (the usual case) is appended.
  void emplace(std::uint64_t id, Value value) {
    if (entries_.empty() || entries_.back().first < id) {
      entries_.emplace_back(id, std::move(value));
      return;
    }
    const iterator at = lower(id);
    HASIM_ASSERT(at == entries_.end() || at->first != id);
    entries_.emplace(at, id, std::move(value));
  }
  iterator find(std::uint64_t id) {
    const iterator at = lower(id);
    return at != entries_.end() && at->first == id ? at : entries_.end();
  }
  void erase(iterator at) {
    HASIM_ASSERT(at != entries_.end());
    entries_.erase(at);
  }
  void clear() { entries_.clear(); }
  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }
  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.end(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }

 private:
  iterator lower(std::uint64_t id) {
    return std::lower_bound(entries_.begin(), entries_.end(), id,
                            [](const Entry& e, std::uint64_t key) { return e.first < key; });
  }
  std::vector<Entry> entries_;
};

}  // namespace hasim
