#include "models/etcd/mvcc/index.hpp"

#include "models/etcd/mvcc/key_range.hpp"
#include "sim/assert.hpp"

namespace hasim::etcd::mvcc {

std::optional<KeyIndexGet> TreeIndex::get(std::string_view key, std::int64_t at_rev) const {
  const auto it = keys_.find(key);
  if (it == keys_.end()) return std::nullopt;
  return it->second.get(at_rev);
}

std::vector<IndexHit> TreeIndex::range(std::string_view key, std::string_view range_end,
                                       std::int64_t at_rev, std::int64_t limit,
                                       std::int64_t* total) const {
  std::vector<IndexHit> hits;
  std::int64_t count = 0;
  // unsafeVisit: ascend from key while below the end (an unbounded end for "from key").
  for (auto it = keys_.lower_bound(key); it != keys_.end(); ++it) {
    if (!range_contains(key, range_end, it->first)) break;
    const auto got = it->second.get(at_rev);
    if (!got) continue;
    if (limit <= 0 || static_cast<std::int64_t>(hits.size()) < limit) {
      hits.push_back(IndexHit{it->first, *got});
    }
    ++count;
  }
  HASIM_ASSERT(count >= static_cast<std::int64_t>(hits.size()));
  if (total != nullptr) *total = count;
  return hits;
}

void TreeIndex::put(const std::string& key, Revision rev) {
  auto it = keys_.find(key);
  if (it == keys_.end()) it = keys_.emplace(key, KeyIndex(key)).first;
  it->second.put(rev);
  HASIM_ASSERT(it->second.modified() == rev);
}

bool TreeIndex::tombstone(const std::string& key, Revision rev) {
  const auto it = keys_.find(key);
  if (it == keys_.end()) return false;
  return it->second.tombstone(rev);
}

std::set<Revision> TreeIndex::compact(std::int64_t rev) {
  std::set<Revision> available;
  for (auto it = keys_.begin(); it != keys_.end();) {
    it->second.compact(rev, available);
    if (it->second.empty()) {
      it = keys_.erase(it);
    } else {
      ++it;
    }
  }
  return available;
}

std::set<Revision> TreeIndex::keep(std::int64_t rev) const {
  std::set<Revision> available;
  for (const auto& [key, ki] : keys_) ki.keep(rev, available);
  HASIM_ASSERT(available.size() <= keys_.size());
  return available;
}

}  // namespace hasim::etcd::mvcc
