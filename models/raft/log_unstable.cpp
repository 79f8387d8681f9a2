// unstable (log_unstable.hpp; etcd-io/raft log_unstable.go). Log lines and panics are
// upstream's, word for word.
#include "models/raft/log_unstable.hpp"

#include <algorithm>

#include "models/raft/strcat.hpp"
#include "sim/assert.hpp"

namespace hasim::raft {

std::optional<Index> Unstable::maybe_first_index() const {
  if (snapshot) return snapshot->metadata.index + 1;
  return std::nullopt;
}

std::optional<Index> Unstable::maybe_last_index() const {
  if (!entries.empty()) return offset + entries.size() - 1;
  if (snapshot) return snapshot->metadata.index;
  return std::nullopt;
}

std::optional<Term> Unstable::maybe_term(Index i) const {
  if (i < offset) {
    if (snapshot && snapshot->metadata.index == i) return snapshot->metadata.term;
    return std::nullopt;
  }
  const auto last = maybe_last_index();
  if (!last || i > *last) return std::nullopt;
  // i >= offset and i <= last: with no entries, last is the snapshot's index, below offset.
  HASIM_ASSERT(i - offset < entries.size());
  return entries[i - offset].term;
}

std::vector<Entry> Unstable::next_entries() const {
  HASIM_ASSERT(offset <= offsetInProgress && offsetInProgress - offset <= entries.size());
  const std::size_t inProgress = offsetInProgress - offset;
  if (inProgress == entries.size()) return {};  // the usual answer: nothing new since
  return std::vector<Entry>(entries.begin() + static_cast<std::ptrdiff_t>(inProgress),
                            entries.end());
}

std::optional<Snapshot> Unstable::next_snapshot() const {
  if (!snapshot || snapshotInProgress) return std::nullopt;
  return snapshot;
}

void Unstable::accept_in_progress() {
  // +1: offsetInProgress is exclusive, like offset.
  if (!entries.empty()) offsetInProgress = entries.back().index + 1;
  if (snapshot) snapshotInProgress = true;
}

void Unstable::stable_to(EntryID id) {
  const auto gt = maybe_term(id.index);
  if (!gt) {
    logger->info(text::cat("entry at index ", id.index, " missing from unstable log; ignoring"));
    return;
  }
  if (id.index < offset) {
    // The index is the snapshot's, not an entry's.
    logger->info(text::cat("entry at index ", id.index, " matched unstable snapshot; ignoring"));
    return;
  }
  if (*gt != id.term) {
    // Part or all of the unstable log was replaced between the start of the write and its
    // end: the written entries are not these.
    logger->info(text::cat("entry at (index,term)=(", id.index, ",", id.term,
                           ") mismatched with entry at (", id.index, ",", *gt,
                           ") in unstable log; ignoring"));
    return;
  }
  const std::size_t num = id.index + 1 - offset;
  HASIM_ASSERT(num <= entries.size());
  entries.erase(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(num));
  offset = id.index + 1;
  offsetInProgress = std::max(offsetInProgress, offset);
  shrink_entries_array();
  HASIM_ASSERT(offset <= offsetInProgress && offsetInProgress - offset <= entries.size());
}

void Unstable::shrink_entries_array() {
  if (entries.empty()) std::vector<Entry>().swap(entries);
}

void Unstable::stable_snap_to(Index i) {
  if (snapshot && snapshot->metadata.index == i) {
    snapshot.reset();
    snapshotInProgress = false;
  }
}

void Unstable::restore(const Snapshot& s) {
  offset = s.metadata.index + 1;
  offsetInProgress = offset;
  entries.clear();
  snapshot = s;
  snapshotInProgress = false;
}

void Unstable::truncate_and_append(std::span<const Entry> ents) {
  HASIM_ASSERT(!ents.empty());
  const Index fromIndex = ents[0].index;
  if (fromIndex == offset + entries.size()) {
    // The next index after the entries: append directly.
    entries.insert(entries.end(), ents.begin(), ents.end());
  } else if (fromIndex <= offset) {
    logger->info(text::cat("replace the unstable entries from index ", fromIndex));
    // The log is cut before everything held here: replace it all.
    entries.assign(ents.begin(), ents.end());
    offset = fromIndex;
    offsetInProgress = offset;
  } else {
    logger->info(text::cat("truncate the unstable entries before index ", fromIndex));
    must_check_out_of_bounds(offset, fromIndex);  // what slice(offset, fromIndex) checks
    entries.resize(fromIndex - offset);
    entries.insert(entries.end(), ents.begin(), ents.end());
    // Only the in-progress entries before fromIndex are still in progress.
    offsetInProgress = std::min(offsetInProgress, fromIndex);
  }
  HASIM_ASSERT(offset <= offsetInProgress);
}

std::vector<Entry> Unstable::slice(Index lo, Index hi) const {
  must_check_out_of_bounds(lo, hi);
  return std::vector<Entry>(entries.begin() + static_cast<std::ptrdiff_t>(lo - offset),
                            entries.begin() + static_cast<std::ptrdiff_t>(hi - offset));
}

void Unstable::must_check_out_of_bounds(Index lo, Index hi) const {
  if (lo > hi) logger->panic(text::cat("invalid unstable.slice ", lo, " > ", hi));
  const Index upper = offset + entries.size();
  if (lo < offset || hi > upper) {
    logger->panic(
        text::cat("unstable.slice[", lo, ",", hi, ") out of bound [", offset, ",", upper, "]"));
  }
}

}  // namespace hasim::raft
