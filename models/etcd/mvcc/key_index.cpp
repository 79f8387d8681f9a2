#include "models/etcd/mvcc/key_index.hpp"

#include <algorithm>
#include <utility>

#include "sim/assert.hpp"

namespace hasim::etcd::mvcc {

std::int64_t find_revision_index(const Generation& g, std::int64_t at_rev) {
  // revs ascend, so the revisions with main <= at_rev are a prefix.
  const auto after =
      std::upper_bound(g.revs.begin(), g.revs.end(), at_rev,
                       [](std::int64_t rev, const Revision& r) { return rev < r.main; });
  return static_cast<std::int64_t>(after - g.revs.begin()) - 1;
}

KeyIndex::KeyIndex(std::string key) : key_(std::move(key)), generations_(1) {}

bool KeyIndex::empty() const { return generations_.size() == 1 && generations_[0].empty(); }

void KeyIndex::put(Revision rev) {
  // Upstream panics on a revision that does not move forward: the store writes in order.
  HASIM_ASSERT(rev > modified_);
  HASIM_ASSERT(!generations_.empty());
  Generation& g = generations_.back();
  if (g.empty()) g.created = rev;  // a create: the first revision of a generation
  g.revs.push_back(rev);
  g.ver++;
  modified_ = rev;
  HASIM_ASSERT(g.ver >= static_cast<std::int64_t>(g.revs.size()));
}

bool KeyIndex::tombstone(Revision rev) {
  HASIM_ASSERT(!empty());
  if (generations_.back().empty()) return false;  // not live: ErrRevisionNotFound
  put(rev);
  generations_.emplace_back();
  HASIM_ASSERT(generations_.back().empty());
  return true;
}

const Generation* KeyIndex::find_generation(std::int64_t rev) const {
  const std::size_t last = generations_.size() - 1;
  // Newest first; a generation other than the last ends with its tombstone, and a reader at
  // or after that tombstone finds the key deleted.
  for (std::size_t i = generations_.size(); i-- > 0;) {
    const Generation& g = generations_[i];
    if (g.empty()) continue;
    if (i != last && g.revs.back().main <= rev) return nullptr;
    if (g.revs.front().main <= rev) return &g;
  }
  return nullptr;
}

std::optional<KeyIndexGet> KeyIndex::get(std::int64_t at_rev) const {
  HASIM_ASSERT(!empty());
  const Generation* g = find_generation(at_rev);
  if (g == nullptr || g->empty()) return std::nullopt;
  const std::int64_t n = find_revision_index(*g, at_rev);
  if (n < 0) return std::nullopt;
  const auto count = static_cast<std::int64_t>(g->revs.size());
  KeyIndexGet out;
  out.modified = g->revs[static_cast<std::size_t>(n)];
  out.created = g->created;
  // The version counts puts in the generation up to the one found.
  out.ver = g->ver - (count - n - 1);
  HASIM_ASSERT(out.ver >= 1);
  HASIM_ASSERT(out.modified.main <= at_rev);
  return out;
}

std::size_t KeyIndex::compact_generation(std::int64_t at_rev) const {
  // Skip the generations whose tombstone is below at_rev.
  std::size_t gen = 0;
  while (gen + 1 < generations_.size() && generations_[gen].revs.back().main < at_rev) ++gen;
  HASIM_ASSERT(gen < generations_.size());
  return gen;
}

void KeyIndex::keep(std::int64_t at_rev, std::set<Revision>& available) const {
  if (empty()) return;
  const std::size_t gen = compact_generation(at_rev);
  const Generation& g = generations_[gen];
  const std::int64_t rev_index = find_revision_index(g, at_rev);
  if (rev_index < 0) return;
  const bool tombstone =
      gen + 1 < generations_.size() && rev_index + 1 == static_cast<std::int64_t>(g.revs.size());
  if (!tombstone) available.insert(g.revs[static_cast<std::size_t>(rev_index)]);
}

void KeyIndex::compact(std::int64_t at_rev, std::set<Revision>& available) {
  HASIM_ASSERT(!empty());
  const std::size_t gen = compact_generation(at_rev);
  Generation& g = generations_[gen];
  const std::int64_t rev_index = find_revision_index(g, at_rev);
  if (rev_index >= 0) {
    available.insert(g.revs[static_cast<std::size_t>(rev_index)]);
    // Drop the revisions before the kept one; the generation's ver stays as it was, so the
    // versions get() computes are unchanged.
    g.revs.erase(g.revs.begin(), g.revs.begin() + rev_index);
  }
  generations_.erase(generations_.begin(), generations_.begin() + static_cast<std::ptrdiff_t>(gen));
  HASIM_ASSERT(!generations_.empty());
}

}  // namespace hasim::etcd::mvcc
