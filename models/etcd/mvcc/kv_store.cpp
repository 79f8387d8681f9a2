#include "models/etcd/mvcc/kv_store.hpp"

#include <algorithm>

#include "sim/assert.hpp"
#include "sim/fnv.hpp"

namespace hasim::etcd::mvcc {
namespace {

std::int64_t record_bytes(const BackendRecord& record) {
  return kRecordOverheadBytes + static_cast<std::int64_t>(record.kv.key.size()) +
         static_cast<std::int64_t>(record.kv.value.size());
}

}  // namespace

std::string_view mvcc_error_text(MvccError error) {
  switch (error) {
    case MvccError::none:
      return "";
    case MvccError::compacted:
      return "mvcc: required revision has been compacted";
    case MvccError::future_rev:
      return "mvcc: required revision is a future revision";
  }
  return "";
}

RangeResult KvStore::range(std::string_view key, std::string_view range_end,
                           const RangeOptions& options) const {
  return range_keys(key, range_end, current_rev_, options);
}

RangeResult KvStore::range_keys(std::string_view key, std::string_view range_end,
                                std::int64_t cur_rev, const RangeOptions& options) const {
  RangeResult out;
  out.rev = cur_rev;
  std::int64_t rev = options.rev;
  if (rev > cur_rev) {
    out.error = MvccError::future_rev;
    out.count = -1;
    return out;
  }
  if (rev <= 0) rev = cur_rev;
  if (rev < compact_rev_) {
    out.error = MvccError::compacted;
    out.count = -1;
    out.rev = 0;  // upstream returns no revision with ErrCompacted
    return out;
  }
  const std::int64_t limit = options.count ? 1 : options.limit;
  const std::vector<IndexHit> hits = index_.range(key, range_end, rev, limit, &out.count);
  if (options.count) return out;
  out.kvs.reserve(hits.size());
  for (const IndexHit& hit : hits) {
    const auto it = backend_.find(hit.get.modified);
    // Upstream is fatal when the index points at a revision the backend lacks.
    HASIM_ASSERT(it != backend_.end());
    HASIM_ASSERT(!it->second.tombstone);
    HASIM_ASSERT(it->second.kv.key == hit.key);
    out.kvs.push_back(it->second.kv);
  }
  HASIM_ASSERT(static_cast<std::int64_t>(out.kvs.size()) <= out.count);
  return out;
}

std::int64_t KvStore::put(const std::string& key, const std::string& value) {
  TxnWrite txn(*this);
  const std::int64_t rev = txn.put(key, value);
  txn.end();
  return rev;
}

std::int64_t KvStore::delete_range(const std::string& key, std::string_view range_end) {
  TxnWrite txn(*this);
  const std::int64_t deleted = txn.delete_range(key, range_end).first;
  txn.end();
  return deleted;
}

void KvStore::backend_put(Revision rev, BackendRecord record) {
  db_size_in_use_ += record_bytes(record);
  db_size_ = std::max(db_size_, db_size_in_use_);  // new pages past the file's end
  const bool inserted = backend_.emplace(rev, std::move(record)).second;
  HASIM_ASSERT(inserted);
}

void KvStore::backend_erase(std::map<Revision, BackendRecord>::iterator it) {
  db_size_in_use_ -= record_bytes(it->second);  // the pages go to the freelist
  backend_.erase(it);
  HASIM_ASSERT(db_size_in_use_ >= kEmptyBackendBytes);
}

void KvStore::restore(std::map<Revision, BackendRecord> backend, std::int64_t current_rev,
                      std::int64_t compact_rev, std::int64_t db_size) {
  HASIM_ASSERT(!write_open_);
  HASIM_ASSERT(backend.empty() || backend.rbegin()->first.main <= current_rev);
  index_ = TreeIndex{};
  backend_.clear();
  db_size_in_use_ = kEmptyBackendBytes;
  db_size_ = kEmptyBackendBytes;
  for (auto& [rev, record] : backend) {
    if (record.tombstone) {
      const bool live = index_.tombstone(record.kv.key, rev);
      HASIM_ASSERT(live);
    } else {
      index_.put(record.kv.key, rev);
    }
    backend_put(rev, std::move(record));
  }
  current_rev_ = current_rev;
  compact_rev_ = compact_rev;
  db_size_ = std::max(db_size, db_size_in_use_);
}

MvccError KvStore::compact(std::int64_t rev) {
  HASIM_ASSERT(!write_open_);
  // updateCompactRev.
  if (rev <= compact_rev_) return MvccError::compacted;
  if (rev > current_rev_) return MvccError::future_rev;
  compact_rev_ = rev;
  const std::set<Revision> keep = index_.compact(rev);
  // scheduleCompaction: delete every record at or below rev that the index does not keep.
  for (auto it = backend_.begin(); it != backend_.end() && it->first.main <= rev;) {
    if (keep.count(it->first) == 0) {
      const auto next = std::next(it);
      backend_erase(it);
      it = next;
    } else {
      ++it;
    }
  }
  HASIM_ASSERT(db_size_ >= db_size_in_use_);
  return MvccError::none;
}

KvHash KvStore::hash_kv(std::int64_t rev) const {
  KvHash out;
  out.current_revision = current_rev_;
  out.compact_revision = compact_rev_;
  if (rev > 0 && rev < compact_rev_) {
    out.error = MvccError::compacted;
    return out;
  }
  if (rev > current_rev_) {
    out.error = MvccError::future_rev;
    return out;
  }
  out.revision = rev == 0 ? current_rev_ : rev;
  const std::set<Revision> keep = index_.keep(out.revision);
  std::uint64_t hash = fnv1a(kFnvOffset, "key");  // upstream starts with the bucket's name
  for (auto it = backend_.begin(); it != backend_.end() && it->first.main <= out.revision; ++it) {
    // Records a compaction is about to delete are skipped (none are, with keep empty).
    if (it->first.main <= compact_rev_ && !keep.empty() && keep.count(it->first) == 0) continue;
    const KeyValue& kv = it->second.kv;
    for (const std::int64_t word : {it->first.main, it->first.sub, kv.create_revision,
                                    kv.mod_revision, kv.version, kv.lease}) {
      hash = fnv1a_word(hash, static_cast<std::uint64_t>(word));
    }
    hash = fnv1a_byte(hash, it->second.tombstone ? 1 : 0);
    hash = fnv1a_word(fnv1a(hash, kv.key), kv.key.size());
    hash = fnv1a_word(fnv1a(hash, kv.value), kv.value.size());
  }
  out.hash = hash;
  return out;
}

TxnWrite::TxnWrite(KvStore& store) : store_(store), begin_rev_(store.current_rev_) {
  HASIM_ASSERT(!store_.write_open_);
  store_.write_open_ = true;
}

TxnWrite::~TxnWrite() { HASIM_ASSERT(ended_); }

RangeResult TxnWrite::range(std::string_view key, std::string_view range_end,
                            const RangeOptions& options) const {
  HASIM_ASSERT(!ended_);
  // Reads at beginRev+1 once the txn wrote, so a reader may name the txn's own revision;
  // the index holds the txn's changes only after end().
  const std::int64_t rev = changes_.empty() ? begin_rev_ : begin_rev_ + 1;
  return store_.range_keys(key, range_end, rev, options);
}

std::int64_t TxnWrite::put(const std::string& key, const std::string& value) {
  HASIM_ASSERT(!ended_);
  const std::int64_t rev = begin_rev_ + 1;
  KeyValue kv;
  kv.key = key;
  kv.value = value;
  kv.mod_revision = rev;
  kv.create_revision = rev;
  kv.version = 1;
  if (const auto got = store_.index_.get(key, rev)) {  // the key lives: a new version
    kv.create_revision = got->created.main;
    kv.version = got->ver + 1;
  }
  const Revision idx_rev{rev, static_cast<std::int64_t>(changes_.size())};
  store_.backend_put(idx_rev, BackendRecord{kv, false});
  changes_.push_back(std::move(kv));
  return rev;
}

std::pair<std::int64_t, std::int64_t> TxnWrite::delete_range(const std::string& key,
                                                             std::string_view range_end) {
  HASIM_ASSERT(!ended_);
  const std::int64_t read_rev = changes_.empty() ? begin_rev_ : begin_rev_ + 1;
  const std::vector<IndexHit> hits = store_.index_.range(key, range_end, read_rev, 0, nullptr);
  std::int64_t deleted = 0;
  for (const IndexHit& hit : hits) {
    // Upstream's deferred index would tombstone a key twice if one txn deleted it twice
    // (and be fatal at End); a second delete of a key in one txn finds nothing here.
    if (!deleted_.insert(hit.key).second) continue;
    KeyValue kv;
    kv.key = hit.key;
    const Revision idx_rev{begin_rev_ + 1, static_cast<std::int64_t>(changes_.size())};
    store_.backend_put(idx_rev, BackendRecord{kv, true});
    changes_.push_back(std::move(kv));
    ++deleted;
  }
  if (deleted != 0 || !changes_.empty()) return {deleted, begin_rev_ + 1};
  return {0, begin_rev_};
}

void TxnWrite::end() {
  HASIM_ASSERT(!ended_);
  ended_ = true;
  store_.write_open_ = false;
  if (changes_.empty()) return;  // nothing changed: the revision stays
  const std::int64_t rev = begin_rev_ + 1;
  HASIM_ASSERT(store_.current_rev_ == begin_rev_);
  store_.current_rev_ = rev;
  std::vector<Event> events(changes_.size());
  for (std::size_t i = 0; i < changes_.size(); ++i) {
    const Revision idx_rev{rev, static_cast<std::int64_t>(i)};
    Event& ev = events[i];
    ev.kv = changes_[i];
    if (changes_[i].mod_revision != 0) {
      store_.index_.put(changes_[i].key, idx_rev);
      ev.type = EventType::put;
    } else {
      const bool live = store_.index_.tombstone(changes_[i].key, idx_rev);
      HASIM_ASSERT(live);  // deleted keys were live at the txn's start
      ev.type = EventType::del;
      ev.kv.mod_revision = rev;
    }
  }
  if (store_.observer_.observer != nullptr) store_.observer_.observer->on_txn_end(rev, events);
}

}  // namespace hasim::etcd::mvcc
