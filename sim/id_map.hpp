#pragma once
// A map from ids handed out in increasing order (request ids, watch ids) to values: a vector
// sorted by id, since every insertion carries the largest id yet and is an append. Lookups
// are a binary search over a few entries (a client has a handful of requests in flight), and
// neither an insertion nor an erasure allocates a tree node, which std::map did for each of a
// control plane's requests (stop 41: 1% of a coordinated trial's instructions in ApiClient's
// map alone). Iteration is in id order, as std::map's was.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/assert.hpp"

namespace hasim {

template <typename Value>
class IdMap {
 public:
  using Entry = std::pair<std::uint64_t, Value>;
  using iterator = typename std::vector<Entry>::iterator;
  using const_iterator = typename std::vector<Entry>::const_iterator;

  // `id` must exceed every id inserted before (the caller's counter only grows).
  Value& insert(std::uint64_t id, Value value) {
    HASIM_ASSERT(entries_.empty() || entries_.back().first < id);
    entries_.emplace_back(id, std::move(value));
    return entries_.back().second;
  }
  iterator find(std::uint64_t id) {
    const auto it = lower(id);
    return it != entries_.end() && it->first == id ? it : entries_.end();
  }
  bool contains(std::uint64_t id) const {
    const auto it = std::lower_bound(entries_.begin(), entries_.end(), id, by_id);
    return it != entries_.end() && it->first == id;
  }
  void erase(iterator it) { entries_.erase(it); }
  // Returns how many entries went (0 or 1).
  std::size_t erase(std::uint64_t id) {
    const auto it = find(id);
    if (it == entries_.end()) return 0;
    entries_.erase(it);
    return 1;
  }
  template <typename Predicate>
  void erase_if(Predicate predicate) {
    std::erase_if(entries_, predicate);
  }
  void swap(IdMap& other) noexcept { entries_.swap(other.entries_); }

  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.end(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }

 private:
  static bool by_id(const Entry& entry, std::uint64_t id) { return entry.first < id; }
  iterator lower(std::uint64_t id) {
    return std::lower_bound(entries_.begin(), entries_.end(), id, by_id);
  }
  std::vector<Entry> entries_;
};

}  // namespace hasim
