#pragma once
// etcd's MVCC key-value store (server/storage/mvcc/kvstore.go, kvstore_txn.go): a tree
// index from keys to revisions over a backend that keeps one record per revision, read at
// any revision not yet compacted, written by transactions that each take one main revision.
//
// Modelled as upstream:
//  - A write txn (storeTxnWrite) writes its changes at main revision beginRev+1 with sub
//    revisions 0, 1, ... in order; current revision moves on at end() only if the txn
//    changed something, so a txn with no writes (or a DeleteRange that found nothing) keeps
//    the revision. The index is updated at end(), as upstream now does: reads and puts
//    inside the txn see the store as it was when the txn began (which is why the API layer
//    refuses a txn that writes one key twice: txn.hpp check_txn_request).
//  - Range at rev (0 = current): ErrFutureRev above the current revision, ErrCompacted
//    below the compact revision (the compact revision itself is still readable); `limit`
//    cuts the kvs, `count` stays the number of keys in the interval; count-only returns no
//    kvs. The result's rev is the current revision (the header), not the one read at.
//  - Compact(rev): ErrCompacted when rev <= the compact revision, ErrFutureRev above the
//    current revision; the backend then keeps only what the index keeps (key_index.hpp).
//    Upstream compacts the backend in the background in batches; here it is done at once.
//
// Size (what `etcdctl endpoint status` shows as DB SIZE and DB SIZE IN USE): the bbolt
// file grows when a write needs pages beyond its end, and freed pages go on the freelist
// and are reused, so the file size (backend Size, dbSize) is the high-water mark of the
// bytes in use; it shrinks only by defragmentation, which rewrites the file to what is in
// use (dbSizeInUse). Modelled as: in use = kEmptyBackendBytes + per kept record
// (kRecordOverheadBytes + key + value); dbSize = the largest "in use" seen since the last
// defrag. The overhead stands for the 17-byte revision key, bbolt's 16-byte leaf element
// and the KeyValue's protobuf framing, rounded up for page slack; pages and branch nodes
// are not modelled.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/etcd/mvcc/index.hpp"
#include "models/etcd/mvcc/revision.hpp"

namespace hasim::etcd::mvcc {

inline constexpr std::int64_t kEmptyBackendBytes = 20 * 1024;  // a fresh etcd's "20 kB"
inline constexpr std::int64_t kRecordOverheadBytes = 64;

// mvccpb.KeyValue. A delete's change carries only the key.
struct KeyValue {
  std::string key;
  std::int64_t create_revision = 0;
  std::int64_t mod_revision = 0;
  std::int64_t version = 0;
  std::string value;
  std::int64_t lease = 0;  // leases are not modelled: always 0
  bool operator==(const KeyValue&) const = default;
};

// mvccpb.Event: a PUT carries the new KeyValue; a DELETE its key and mod_revision (the
// tombstone's revision).
enum class EventType : std::uint8_t { put, del };
struct Event {
  EventType type = EventType::put;
  KeyValue kv;
  std::optional<KeyValue> prev_kv;
  bool operator==(const Event&) const = default;
};

// mvcc's errors (server/storage/mvcc/kvstore.go).
enum class MvccError : std::uint8_t { none, compacted, future_rev };
std::string_view mvcc_error_text(MvccError error);

struct RangeOptions {
  std::int64_t limit = 0;  // <= 0: no limit
  std::int64_t rev = 0;    // <= 0: the current revision
  bool count = false;      // count only
};

struct RangeResult {
  MvccError error = MvccError::none;
  std::vector<KeyValue> kvs;
  std::int64_t rev = 0;    // the store's revision when read (the response header's)
  std::int64_t count = 0;  // keys in the interval at the revision read, limit ignored
};

// One backend record (bucket "key": revision -> KeyValue, with the tombstone mark).
struct BackendRecord {
  KeyValue kv;
  bool tombstone = false;
};

// The watchable store's hook (watchable_store_txn.go End -> notify): called once per write
// txn that changed something, with its revision and its events in sub-revision order.
class TxnObserver {
 public:
  virtual ~TxnObserver() = default;
  virtual void on_txn_end(std::int64_t rev, const std::vector<Event>& events) = 0;
};

// HashKV's answer (kvstore.go hashByRev): a hash of the records a reader at `revision`
// relies on, equal on members that applied the same entries and compactions.
struct KvHash {
  MvccError error = MvccError::none;
  std::uint64_t hash = 0;
  std::int64_t revision = 0;          // the revision hashed
  std::int64_t current_revision = 0;  // the store's when asked
  std::int64_t compact_revision = 0;
};

class TxnWrite;

class KvStore {
 public:
  std::int64_t current_revision() const { return current_rev_; }
  std::int64_t compact_revision() const { return compact_rev_; }
  // A read txn at the current revision (storeTxnRead).
  RangeResult range(std::string_view key, std::string_view range_end,
                    const RangeOptions& options) const;
  // Single-write txns, for callers that need no more (tests, tools).
  std::int64_t put(const std::string& key, const std::string& value);
  std::int64_t delete_range(const std::string& key, std::string_view range_end);

  MvccError compact(std::int64_t rev);
  void defrag() { db_size_ = db_size_in_use_; }
  std::int64_t db_size() const { return db_size_; }
  std::int64_t db_size_in_use() const { return db_size_in_use_; }

  // The records up to rev (0: current), less those below the compact revision that a
  // compaction at rev would not keep; fnv-1a over revision, tombstone mark and KeyValue.
  // Upstream hashes with CRC-32C over the protobuf bytes; hasim's hash is only compared
  // with hasim's.
  KvHash hash_kv(std::int64_t rev) const;

  const std::map<Revision, BackendRecord>& backend() const { return backend_; }
  // Replaces the store with a snapshot's backend and rebuilds the index from its records in
  // revision order, as kvstore.go restore does; db_size is the sent file's size.
  void restore(std::map<Revision, BackendRecord> backend, std::int64_t current_rev,
               std::int64_t compact_rev, std::int64_t db_size);
  const TreeIndex& index() const { return index_; }
  void set_observer(TxnObserver* observer) { observer_.observer = observer; }
  bool write_open() const { return write_open_; }

 private:
  friend class TxnWrite;
  RangeResult range_keys(std::string_view key, std::string_view range_end, std::int64_t cur_rev,
                         const RangeOptions& options) const;
  void backend_put(Revision rev, BackendRecord record);
  void backend_erase(std::map<Revision, BackendRecord>::iterator it);

  TreeIndex index_;
  std::map<Revision, BackendRecord> backend_;
  std::int64_t current_rev_ = 1;  // upstream starts at 1: the first write is revision 2
  std::int64_t compact_rev_ = -1;
  std::int64_t db_size_ = kEmptyBackendBytes;
  std::int64_t db_size_in_use_ = kEmptyBackendBytes;
  bool write_open_ = false;
  // A copy of the store (a snapshot) starts with no observer: watchers belong to the
  // store they were made on.
  struct ObserverSlot {
    TxnObserver* observer = nullptr;
    ObserverSlot() = default;
    ObserverSlot(const ObserverSlot&) {}
    ObserverSlot& operator=(const ObserverSlot&) { return *this; }
  };
  ObserverSlot observer_;
};

// A write txn (storeTxnWrite); one at a time per store, ended exactly once.
class TxnWrite {
 public:
  explicit TxnWrite(KvStore& store);
  TxnWrite(const TxnWrite&) = delete;
  TxnWrite& operator=(const TxnWrite&) = delete;
  ~TxnWrite();

  std::int64_t rev() const { return begin_rev_; }  // the revision the txn read from
  RangeResult range(std::string_view key, std::string_view range_end,
                    const RangeOptions& options) const;
  std::int64_t put(const std::string& key, const std::string& value);  // -> its revision
  // Deletes the interval's live keys: (deleted, revision of the txn so far).
  std::pair<std::int64_t, std::int64_t> delete_range(const std::string& key,
                                                     std::string_view range_end);
  const std::vector<KeyValue>& changes() const { return changes_; }
  // Applies the changes to the index, moves the revision on and tells the observer.
  void end();

 private:
  KvStore& store_;
  std::int64_t begin_rev_ = 0;
  std::vector<KeyValue> changes_;
  std::set<std::string> deleted_;
  bool ended_ = false;
};

}  // namespace hasim::etcd::mvcc
