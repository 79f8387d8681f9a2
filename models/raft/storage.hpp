#pragma once
// raft.Storage and MemoryStorage (etcd-io/raft storage.go): where raft reads the stable log,
// HardState and snapshot from. Go's (T, error) results are Result<T>; errors are the four
// sentinels upstream's Storage contract names.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/raft/logger.hpp"
#include "models/raft/raftpb.hpp"

namespace hasim::raft {

// StorageError::Ok stands for Go's nil error.
enum class StorageError {
  Ok,
  ErrCompacted,                       // the index predates the last snapshot
  ErrSnapOutOfDate,                   // the snapshot is older than the one held
  ErrUnavailable,                     // the entry is not (yet) there
  ErrSnapshotTemporarilyUnavailable,  // ask again later
};
// Upstream's error texts ("requested index is unavailable due to compaction", ...); "" for
// Ok.
std::string_view error_text(StorageError err);

// A value, or the error that stands in for it (the value is then its zero).
template <typename T>
struct Result {
  T value{};
  StorageError err = StorageError::Ok;
  bool ok() const { return err == StorageError::Ok; }
};

// What InitialState returns: the saved HardState (empty if none) and ConfState.
struct InitialState {
  HardState hardState;
  ConfState confState;
};

// The Storage contract: entries(lo, hi, maxSize) returns [lo, hi), at most maxSize bytes but
// at least one entry; term(i) works for i in [first_index()-1, last_index()] (the entry
// before the first is kept for matching); ErrCompacted / ErrUnavailable otherwise. If any
// call fails other than so, raft stops.
class Storage {
 public:
  virtual ~Storage() = default;
  virtual Result<InitialState> initial_state() = 0;
  virtual Result<std::vector<Entry>> entries(Index lo, Index hi, std::uint64_t maxSize) = 0;
  virtual Result<Term> term(Index i) = 0;
  virtual Result<Index> last_index() = 0;
  virtual Result<Index> first_index() = 0;
  virtual Result<Snapshot> snapshot() = 0;
};

// inMemStorageCallStats: how often each Storage method was called.
struct InMemStorageCallStats {
  int initialState = 0;
  int firstIndex = 0;
  int lastIndex = 0;
  int entries = 0;
  int term = 0;
  int snapshot = 0;
};

// MemoryStorage: the log in memory. ents[0] is a dummy entry holding the index and term of the
// last entry a snapshot covers (0/0 at the start), so ents[i] is at log index
// ents[0].index + i and term(first_index() - 1) still answers.
class MemoryStorage : public Storage {
 public:
  // NewMemoryStorage. Its invariant panics (out-of-bound indexes) go to `logger`, as
  // upstream's go to its package logger.
  explicit MemoryStorage(Logger& logger = discard_logger());

  Result<InitialState> initial_state() override;
  Result<std::vector<Entry>> entries(Index lo, Index hi, std::uint64_t maxSize) override;
  Result<Term> term(Index i) override;
  Result<Index> last_index() override;
  Result<Index> first_index() override;
  Result<Snapshot> snapshot() override;

  StorageError set_hard_state(const HardState& st);
  // Replaces everything with the snapshot (ErrSnapOutOfDate if not newer than the one held,
  // unless the held one is at index 0).
  StorageError apply_snapshot(const Snapshot& snap);
  // A snapshot at applied index i with the given conf state (kept if null) and data.
  Result<Snapshot> create_snapshot(Index i, const ConfState* cs, std::string data);
  // Drops the entries before compactIndex (ErrCompacted if already gone).
  StorageError compact(Index compactIndex);
  // Appends, replacing any entries from entries[0].index on; entries already compacted are
  // skipped.
  StorageError append(std::vector<Entry> entries);

  InMemStorageCallStats callStats;

 private:
  Index last_index_locked() const { return ents_[0].index + ents_.size() - 1; }
  Index first_index_locked() const { return ents_[0].index + 1; }

  Logger* logger_;
  HardState hardState_;
  Snapshot snapshot_;
  std::vector<Entry> ents_;
};

}  // namespace hasim::raft
