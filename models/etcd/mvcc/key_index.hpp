#pragma once
// The revisions of one key (server/storage/mvcc/key_index.go keyIndex). A key lives in
// generations: a generation starts with the put that creates the key and ends with the
// tombstone that deletes it; after a tombstone an empty generation waits for the next create.
// For put(1.0) put(2.0) tombstone(3.0) put(4.0) the generations are {1.0 2.0 3.0(t)} {4.0}.
//
// Compaction at rev keeps, in the generation that holds rev (or the first one created after
// it), the latest revision with main <= rev and everything after it, and drops the
// generations before. A tombstone at exactly rev is kept (its generation becomes {rev(t)}),
// as upstream's compact does since it stopped diverging from keep(): a watcher starting at
// the compact revision then still sees that delete. An index whose only generation is empty
// has no revision left and its key leaves the tree index (index.go Compact).
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/etcd/mvcc/revision.hpp"

namespace hasim::etcd::mvcc {

struct Generation {
  std::int64_t ver = 0;        // puts in this generation (the version of its last put)
  Revision created;            // the put that created the key
  std::vector<Revision> revs;  // ascending; the last is a tombstone unless this is the last
  bool empty() const { return revs.empty(); }
};

// What get() finds: the revision visible at atRev and the key's create revision and version
// then.
struct KeyIndexGet {
  Revision modified;
  Revision created;
  std::int64_t ver = 0;
};

class KeyIndex {
 public:
  explicit KeyIndex(std::string key);

  const std::string& key() const { return key_; }
  const std::vector<Generation>& generations() const { return generations_; }
  Revision modified() const { return modified_; }
  // True when no revision is left: the tree index then drops the key.
  bool empty() const;

  // A new revision of the key (a put); rev must be above every revision it has.
  void put(Revision rev);
  // Deletes the key at rev: appends the tombstone and opens an empty generation. Returns
  // false (ErrRevisionNotFound) when the key is not live.
  bool tombstone(Revision rev);
  // The revision visible at atRev, or nothing when the key did not exist then (before its
  // creation, or at or after a tombstone and before the next create).
  std::optional<KeyIndexGet> get(std::int64_t at_rev) const;
  // Compacts at atRev (see the file comment) and adds the revisions the backend must keep
  // for this key to `available`.
  void compact(std::int64_t at_rev, std::set<Revision>& available);
  // What compact(at_rev) would keep, without compacting, except that a tombstone at exactly
  // at_rev is left out (keep: HashKV hashes what every version of etcd keeps).
  void keep(std::int64_t at_rev, std::set<Revision>& available) const;

 private:
  // The generation live at rev, or nullptr (findGeneration).
  const Generation* find_generation(std::int64_t rev) const;
  // doCompact's search: the first generation holding at_rev or created after it.
  std::size_t compact_generation(std::int64_t at_rev) const;

  std::string key_;
  Revision modified_;
  std::vector<Generation> generations_;
};

// The index of the last revision of g with main <= at_rev, or -1 (findRevisionIndex).
std::int64_t find_revision_index(const Generation& g, std::int64_t at_rev);

}  // namespace hasim::etcd::mvcc
