// raftLog (raft_log.hpp; etcd-io/raft log.go). Log lines and panics are upstream's, word for
// word: the interaction transcripts print them.
#include "models/raft/raft_log.hpp"

#include <algorithm>

#include "models/raft/strcat.hpp"
#include "sim/assert.hpp"

namespace hasim::raft {

RaftLog new_log(Storage& storage, Logger& logger) {
  return new_log_with_size(storage, logger, noLimit);
}

RaftLog new_log_with_size(Storage& storage, Logger& logger, EntryEncodingSize maxApplyingEntsSize) {
  const Result<Index> firstIndex = storage.first_index();
  HASIM_ASSERT(firstIndex.ok());  // upstream panics on a failing Storage here
  const Result<Index> lastIndex = storage.last_index();
  HASIM_ASSERT(lastIndex.ok());
  RaftLog log;
  log.storage = &storage;
  log.unstable.offset = lastIndex.value + 1;
  log.unstable.offsetInProgress = lastIndex.value + 1;
  log.unstable.logger = &logger;
  log.maxApplyingEntsSize = maxApplyingEntsSize;
  // Committed and applied start at the last compaction.
  log.committed = firstIndex.value - 1;
  log.applying = firstIndex.value - 1;
  log.applied = firstIndex.value - 1;
  log.logger = &logger;
  return log;
}

std::string RaftLog::to_string() const {
  return text::cat("committed=", committed, ", applied=", applied, ", applying=", applying,
                   ", unstable.offset=", unstable.offset,
                   ", unstable.offsetInProgress=", unstable.offsetInProgress,
                   ", len(unstable.Entries)=", unstable.entries.size());
}

std::optional<Index> RaftLog::maybe_append(const LogSlice& a, Index commit) {
  if (!match_term(a.prev)) return std::nullopt;
  const Index lastnewi = a.prev.index + a.entries.size();
  const Index ci = find_conflict(a.entries);
  if (ci != 0 && ci <= committed) {
    logger->panic(
        text::cat("entry ", ci, " conflict with committed entry [committed(", committed, ")]"));
  }
  if (ci != 0) {
    const Index offset = a.prev.index + 1;
    if (ci - offset > a.entries.size()) {
      logger->panic(
          text::cat("index, ", ci - offset, ", is out of range [", a.entries.size(), "]"));
    }
    append(std::span<const Entry>(a.entries).subspan(ci - offset));
  }
  commit_to(std::min(commit, lastnewi));
  return lastnewi;
}

Index RaftLog::append(std::span<const Entry> ents) {
  if (ents.empty()) return last_index();
  if (const Index after = ents[0].index - 1; after < committed) {
    logger->panic(text::cat("after(", after, ") is out of range [committed(", committed, ")]"));
  }
  unstable.truncate_and_append(ents);
  HASIM_ASSERT(last_index() == ents.back().index);
  return last_index();
}

Index RaftLog::find_conflict(std::span<const Entry> ents) {
  for (const Entry& e : ents) {
    const EntryID id = pb_entry_id(e);
    if (match_term(id)) continue;
    if (id.index <= last_index()) {
      logger->info(text::cat("found conflict at index ", id.index,
                             " [existing term: ", zero_term_on_out_of_bounds(term(id.index)),
                             ", conflicting term: ", id.term, "]"));
    }
    return id.index;
  }
  return 0;
}

std::pair<Index, Term> RaftLog::find_conflict_by_term(Index index, Term t) {
  for (; index > 0; --index) {  // at most `index` turns
    // An error (the index compacted or not there yet) means we cannot tell: take it as a
    // possible match at an unknown term.
    const Result<Term> ourTerm = term(index);
    if (!ourTerm.ok()) return {index, 0};
    if (ourTerm.value <= t) return {index, ourTerm.value};
  }
  return {0, 0};
}

std::vector<Entry> RaftLog::next_unstable_ents() const { return unstable.next_entries(); }

std::vector<Entry> RaftLog::next_committed_ents(bool allowUnstable) {
  // Nothing while the applying budget is spent, nor while a snapshot waits (which comes
  // first would be unclear).
  if (applyingEntsPaused || has_next_or_in_progress_snapshot()) return {};
  const Index lo = applying + 1;
  const Index hi = max_appliable_index(allowUnstable) + 1;  // [lo, hi)
  if (lo >= hi) return {};
  // Unsigned, as upstream's: "not positive" is zero (a size past the budget wraps around, but
  // then applyingEntsPaused is set and we returned above).
  const EntryEncodingSize maxSize = maxApplyingEntsSize - applyingEntsSize;
  if (maxSize == 0) {
    logger->panic(text::cat("applying entry size (", maxApplyingEntsSize, "-", applyingEntsSize,
                            ")=", maxSize, " not positive"));
  }
  Result<std::vector<Entry>> ents = slice(lo, hi, maxSize);
  if (!ents.ok()) {
    logger->panic(
        text::cat("unexpected error when getting unapplied entries (", error_text(ents.err), ")"));
  }
  return std::move(ents.value);
}

std::optional<Snapshot> RaftLog::next_unstable_snapshot() const { return unstable.next_snapshot(); }

Result<Snapshot> RaftLog::snapshot() {
  if (unstable.snapshot) return {*unstable.snapshot};
  return storage->snapshot();
}

Index RaftLog::first_index() {
  if (const auto i = unstable.maybe_first_index()) return *i;
  const Result<Index> index = storage->first_index();
  HASIM_ASSERT(index.ok());  // upstream panics on a failing Storage
  return index.value;
}

Index RaftLog::last_index_stable() {
  if (unstable.snapshot) return unstable.snapshot->metadata.index;
  const Result<Index> index = storage->last_index();
  HASIM_ASSERT(index.ok());  // upstream panics on a failing Storage
  return index.value;
}

void RaftLog::commit_to(Index tocommit) {
  // Commit never goes back.
  if (committed >= tocommit) return;
  if (last_index() < tocommit) {
    logger->panic(text::cat("tocommit(", tocommit, ") is out of range [lastIndex(", last_index(),
                            ")]. Was the raft log corrupted, truncated, or lost?"));
  }
  committed = tocommit;
  HASIM_ASSERT(applied <= committed);
}

void RaftLog::applied_to(Index i, EntryEncodingSize size) {
  if (committed < i || i < applied) {
    logger->panic(text::cat("applied(", i, ") is out of range [prevApplied(", applied,
                            "), committed(", committed, ")]"));
  }
  applied = i;
  applying = std::max(applying, i);
  HASIM_ASSERT(applied <= applying && applying <= committed);
  // Never below zero, whatever the caller says was applied.
  applyingEntsSize = applyingEntsSize > size ? applyingEntsSize - size : 0;
  applyingEntsPaused = applyingEntsSize >= maxApplyingEntsSize;
}

void RaftLog::accept_applying(Index i, EntryEncodingSize size, bool allowUnstable) {
  if (committed < i) {
    logger->panic(text::cat("applying(", i, ") is out of range [prevApplying(", applying,
                            "), committed(", committed, ")]"));
  }
  applying = i;
  applyingEntsSize += size;
  // Pause when the outstanding bytes reach the budget, or when the entries handed out stop
  // short of what could be applied: then the budget cut them, and the next would overflow it.
  applyingEntsPaused =
      applyingEntsSize >= maxApplyingEntsSize || i < max_appliable_index(allowUnstable);
}

EntryID RaftLog::last_entry_id() {
  const Index index = last_index();
  const Result<Term> t = term(index);
  if (!t.ok()) {
    logger->panic(text::cat("unexpected error when getting the last term at ", index, ": ",
                            error_text(t.err)));
  }
  return EntryID{t.value, index};
}

Result<Term> RaftLog::term(Index i) {
  HASIM_ASSERT(storage != nullptr);
  // The unstable log first: a term found there is in range, with no need to ask Storage for
  // the bounds.
  if (const auto t = unstable.maybe_term(i)) return {*t};
  // The valid range is [firstIndex-1, lastIndex]: the entry before the first is compacted,
  // but its term is kept for matching appends.
  if (i + 1 < first_index()) return {0, StorageError::ErrCompacted};
  if (i > last_index()) return {0, StorageError::ErrUnavailable};
  const Result<Term> t = storage->term(i);
  HASIM_ASSERT(t.ok() || t.err == StorageError::ErrCompacted ||
               t.err == StorageError::ErrUnavailable);  // upstream panics on anything else
  return t;
}

Result<std::vector<Entry>> RaftLog::entries(Index i, EntryEncodingSize maxSize) {
  if (i > last_index()) return {};
  return slice(i, last_index() + 1, maxSize);
}

std::vector<Entry> RaftLog::all_entries() {
  // Upstream retries on ErrCompacted (a compaction racing it); hasim runs one thing at a
  // time, so a second try sees the same log: one retry is all that can matter.
  for (int attempt = 0; attempt < 2; ++attempt) {
    Result<std::vector<Entry>> ents = entries(first_index(), noLimit);
    if (ents.ok()) return std::move(ents.value);
    HASIM_ASSERT(ents.err == StorageError::ErrCompacted);  // upstream panics on the others
  }
  HASIM_ASSERT(false && "all_entries: the log stays compacted below its first index");
  return {};
}

bool RaftLog::is_up_to_date(EntryID their) {
  const EntryID our = last_entry_id();
  return their.term > our.term || (their.term == our.term && their.index >= our.index);
}

bool RaftLog::match_term(EntryID id) {
  const Result<Term> t = term(id.index);
  return t.ok() && t.value == id.term;
}

bool RaftLog::maybe_commit(EntryID at) {
  // A leader campaigned at term 1 at least, so a zero term never commits.
  if (at.term != 0 && at.index > committed && match_term(at)) {
    commit_to(at.index);
    return true;
  }
  return false;
}

void RaftLog::restore(const Snapshot& s) {
  logger->info(text::cat("log [", to_string(), "] starts to restore snapshot [index: ",
                         s.metadata.index, ", term: ", s.metadata.term, "]"));
  committed = s.metadata.index;
  unstable.restore(s);
}

std::string RaftLog::scan(Index lo, Index hi, EntryEncodingSize pageSize, const ScanVisitor& v) {
  while (lo < hi) {  // each turn moves lo forward by at least one entry
    const Result<std::vector<Entry>> ents = slice(lo, hi, pageSize);
    if (!ents.ok()) return std::string(error_text(ents.err));
    if (ents.value.empty()) return text::cat("got 0 entries in [", lo, ", ", hi, ")");
    if (std::string err = v(ents.value); !err.empty()) return err;
    lo += ents.value.size();
  }
  return "";
}

Result<std::vector<Entry>> RaftLog::slice(Index lo, Index hi, EntryEncodingSize maxSize) {
  if (const StorageError err = must_check_out_of_bounds(lo, hi); err != StorageError::Ok) {
    return {{}, err};
  }
  if (lo == hi) return {};
  if (lo >= unstable.offset) return {limit_size(unstable.slice(lo, hi), maxSize)};

  const Index cut = std::min(hi, unstable.offset);
  Result<std::vector<Entry>> ents = storage->entries(lo, cut, maxSize);
  if (ents.err == StorageError::ErrCompacted) return ents;
  if (ents.err == StorageError::ErrUnavailable) {
    logger->panic(text::cat("entries[", lo, ":", cut, ") is unavailable from storage"));
  }
  HASIM_ASSERT(ents.ok());  // upstream panics on any other error
  if (hi <= unstable.offset) return ents;

  // Storage returned fewer than asked: the next entry would pass the limit already.
  if (ents.value.size() < cut - lo) return ents;
  // Otherwise count the bytes, so that the unstable entries are cut to what still fits.
  const EntryEncodingSize size = ents_size(ents.value);
  if (size >= maxSize) return ents;
  std::vector<Entry> rest = limit_size(unstable.slice(unstable.offset, hi), maxSize - size);
  // limit_size keeps one entry even past the limit: drop it then.
  if (rest.size() == 1 && size + ents_size(rest) > maxSize) return ents;
  return {extend(std::move(ents.value), rest)};
}

StorageError RaftLog::must_check_out_of_bounds(Index lo, Index hi) {
  if (lo > hi) logger->panic(text::cat("invalid slice ", lo, " > ", hi));
  const Index fi = first_index();
  if (lo < fi) return StorageError::ErrCompacted;
  const Index length = last_index() + 1 - fi;
  if (hi > fi + length) {
    logger->panic(text::cat("slice[", lo, ",", hi, ") out of bound [", fi, ",", last_index(), "]"));
  }
  return StorageError::Ok;
}

Term RaftLog::zero_term_on_out_of_bounds(Term t, StorageError err) {
  if (err == StorageError::Ok) return t;
  if (err == StorageError::ErrCompacted || err == StorageError::ErrUnavailable) return 0;
  logger->panic(text::cat("unexpected error (", error_text(err), ")"));
}

}  // namespace hasim::raft
