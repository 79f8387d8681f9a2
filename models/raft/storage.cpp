// MemoryStorage (storage.hpp; etcd-io/raft storage.go).
#include "models/raft/storage.hpp"

#include <utility>

#include "models/raft/strcat.hpp"
#include "models/raft/util.hpp"
#include "sim/assert.hpp"

namespace hasim::raft {

std::string_view error_text(StorageError err) {
  switch (err) {
    case StorageError::Ok:
      return "";
    case StorageError::ErrCompacted:
      return "requested index is unavailable due to compaction";
    case StorageError::ErrSnapOutOfDate:
      return "requested index is older than the existing snapshot";
    case StorageError::ErrUnavailable:
      return "requested entry at index is unavailable";
    case StorageError::ErrSnapshotTemporarilyUnavailable:
      return "snapshot is temporarily unavailable";
  }
  HASIM_ASSERT(false);
  return "";
}

MemoryStorage::MemoryStorage(Logger& logger) : logger_(&logger), ents_(1) {
  // Starting from scratch: the dummy entry at index 0, term 0.
}

Result<InitialState> MemoryStorage::initial_state() {
  ++callStats.initialState;
  return {InitialState{hardState_, snapshot_.metadata.confState}};
}

StorageError MemoryStorage::set_hard_state(const HardState& st) {
  hardState_ = st;
  return StorageError::Ok;
}

Result<std::vector<Entry>> MemoryStorage::entries(Index lo, Index hi, std::uint64_t maxSize) {
  ++callStats.entries;
  const Index offset = ents_[0].index;
  if (lo <= offset) return {{}, StorageError::ErrCompacted};
  if (hi > last_index_locked() + 1) {
    logger_->panic(
        text::cat("entries' hi(", hi, ") is out of bound lastindex(", last_index_locked(), ")"));
  }
  // Only the dummy entry.
  if (ents_.size() == 1) return {{}, StorageError::ErrUnavailable};
  HASIM_ASSERT(lo <= hi);
  const std::span<const Entry> range(ents_.data() + (lo - offset), hi - lo);
  const std::size_t n = limit_size_len(range, maxSize);
  return {std::vector<Entry>(range.begin(), range.begin() + static_cast<std::ptrdiff_t>(n))};
}

Result<Term> MemoryStorage::term(Index i) {
  ++callStats.term;
  const Index offset = ents_[0].index;
  if (i < offset) return {0, StorageError::ErrCompacted};
  if (i - offset >= ents_.size()) return {0, StorageError::ErrUnavailable};
  return {ents_[i - offset].term};
}

Result<Index> MemoryStorage::last_index() {
  ++callStats.lastIndex;
  return {last_index_locked()};
}

Result<Index> MemoryStorage::first_index() {
  ++callStats.firstIndex;
  return {first_index_locked()};
}

Result<Snapshot> MemoryStorage::snapshot() {
  ++callStats.snapshot;
  return {snapshot_};
}

StorageError MemoryStorage::apply_snapshot(const Snapshot& snap) {
  const Index msIndex = snapshot_.metadata.index;
  const Index snapIndex = snap.metadata.index;
  // An application bootstrapping may give only a ConfState (index and term 0): not stale.
  if (msIndex != 0 && msIndex >= snapIndex) return StorageError::ErrSnapOutOfDate;
  snapshot_ = snap;
  ents_.assign(1, Entry{});
  ents_[0].term = snap.metadata.term;
  ents_[0].index = snap.metadata.index;
  return StorageError::Ok;
}

Result<Snapshot> MemoryStorage::create_snapshot(Index i, const ConfState* cs, std::string data) {
  if (i <= snapshot_.metadata.index) return {{}, StorageError::ErrSnapOutOfDate};
  const Index offset = ents_[0].index;
  if (i > last_index_locked()) {
    logger_->panic(
        text::cat("snapshot ", i, " is out of bound lastindex(", last_index_locked(), ")"));
  }
  snapshot_.metadata.index = i;
  snapshot_.metadata.term = ents_[i - offset].term;
  if (cs != nullptr) snapshot_.metadata.confState = *cs;
  snapshot_.data = std::move(data);
  return {snapshot_};
}

StorageError MemoryStorage::compact(Index compactIndex) {
  const Index offset = ents_[0].index;
  if (compactIndex <= offset) return StorageError::ErrCompacted;
  if (compactIndex > last_index_locked()) {
    logger_->panic(text::cat("compact ", compactIndex, " is out of bound lastindex(",
                             last_index_locked(), ")"));
  }
  const std::size_t i = compactIndex - offset;
  // The entry at compactIndex becomes the dummy: only its index and term are kept.
  Entry dummy;
  dummy.index = ents_[i].index;
  dummy.term = ents_[i].term;
  std::vector<Entry> ents;
  ents.reserve(ents_.size() - i);
  ents.push_back(std::move(dummy));
  ents.insert(ents.end(),
              std::make_move_iterator(ents_.begin() + static_cast<std::ptrdiff_t>(i + 1)),
              std::make_move_iterator(ents_.end()));
  ents_ = std::move(ents);
  return StorageError::Ok;
}

StorageError MemoryStorage::append(std::vector<Entry> entries) {
  if (entries.empty()) return StorageError::Ok;
  const Index first = first_index_locked();
  const Index last = entries[0].index + entries.size() - 1;
  // Nothing new.
  if (last < first) return StorageError::Ok;
  // Skip what is already compacted.
  if (first > entries[0].index) {
    entries.erase(entries.begin(),
                  entries.begin() + static_cast<std::ptrdiff_t>(first - entries[0].index));
  }
  const Index offset = entries[0].index - ents_[0].index;
  if (ents_.size() < offset) {
    logger_->panic(text::cat("missing log entry [last: ", last_index_locked(),
                             ", append at: ", entries[0].index, "]"));
  }
  ents_.resize(offset);  // drops any entries from entries[0].index on
  ents_.insert(ents_.end(), std::make_move_iterator(entries.begin()),
               std::make_move_iterator(entries.end()));
  HASIM_ASSERT(last_index_locked() == last);
  return StorageError::Ok;
}

}  // namespace hasim::raft
