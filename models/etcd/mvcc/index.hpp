#pragma once
// The tree index (server/storage/mvcc/index.go treeIndex): every key's KeyIndex, ordered by
// key (a std::map where upstream has a B-tree), answering which revision of which key a
// reader at a revision sees. Intervals follow key_range.hpp's wire convention.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "models/etcd/mvcc/key_index.hpp"

namespace hasim::etcd::mvcc {

struct IndexHit {
  std::string key;
  KeyIndexGet get;
};

class TreeIndex {
 public:
  std::optional<KeyIndexGet> get(std::string_view key, std::int64_t at_rev) const;
  // The keys of the interval visible at at_rev in key order, at most `limit` of them
  // (limit <= 0: all), and how many there are in all (Revisions: total ignores the limit).
  std::vector<IndexHit> range(std::string_view key, std::string_view range_end, std::int64_t at_rev,
                              std::int64_t limit, std::int64_t* total) const;
  void put(const std::string& key, Revision rev);
  bool tombstone(const std::string& key, Revision rev);
  // Compacts every key at rev, drops keys with nothing left, and returns the revisions the
  // backend keeps (Compact's `available`).
  std::set<Revision> compact(std::int64_t rev);
  // The revisions a compaction at rev would keep, tombstones at rev left out (Keep).
  std::set<Revision> keep(std::int64_t rev) const;
  std::size_t size() const { return keys_.size(); }
  const std::map<std::string, KeyIndex, std::less<>>& keys() const { return keys_; }

 private:
  std::map<std::string, KeyIndex, std::less<>> keys_;
};

}  // namespace hasim::etcd::mvcc
