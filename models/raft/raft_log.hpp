#pragma once
// raftLog (etcd-io/raft log.go): the whole log as raft sees it, stable entries from Storage
// followed by the unstable ones, with the commit and apply positions:
//   applied <= applying <= committed, and committed <= last_index().
#include <algorithm>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "models/raft/log_unstable.hpp"
#include "models/raft/logger.hpp"
#include "models/raft/raftpb.hpp"
#include "models/raft/storage.hpp"
#include "models/raft/types.hpp"
#include "models/raft/util.hpp"

namespace hasim::raft {

struct RaftLog {
  Storage* storage = nullptr;  // the stable entries since the last snapshot
  Unstable unstable;           // entries and snapshot not yet stable
  Index committed = 0;         // known stable on a quorum
  Index applying = 0;          // handed to the application to apply (Ready accepted)
  Index applied = 0;           // applied by the application
  Logger* logger = &discard_logger();
  // The most bytes of committed entries handed out for applying and not yet acknowledged by
  // applied_to; how many are outstanding; whether handing out is paused until some are.
  EntryEncodingSize maxApplyingEntsSize = noLimit;
  EntryEncodingSize applyingEntsSize = 0;
  bool applyingEntsPaused = false;

  // String: "committed=.., applied=.., applying=.., unstable.offset=..,
  // unstable.offsetInProgress=.., len(unstable.Entries)=..".
  std::string to_string() const;

  // maybeAppend: appends `a` if it follows an entry we have (a.prev matches), then commits up
  // to min(commit, last new index). nullopt when a.prev does not match.
  std::optional<Index> maybe_append(const LogSlice& a, Index commit);
  // append: ents replace whatever is at their indexes and after; returns the last index.
  Index append(std::span<const Entry> ents);
  // findConflict: the index of the first entry of ents whose term differs from ours or that
  // we do not have; 0 when we have them all.
  Index find_conflict(std::span<const Entry> ents);
  // findConflictByTerm: the largest index <= `index` whose term is <= `term` or unknown, and
  // that term (0 if unknown).
  std::pair<Index, Term> find_conflict_by_term(Index index, Term term);
  std::vector<Entry> next_unstable_ents() const;
  // The small queries below are inline: RawNode::has_ready asks them after every event.
  bool has_next_unstable_ents() const {
    return unstable.offsetInProgress - unstable.offset < unstable.entries.size();
  }
  bool has_next_or_in_progress_unstable_ents() const { return !unstable.entries.empty(); }
  // nextCommittedEnts: committed entries to apply next (only stable ones unless
  // allowUnstable), within the applying byte budget; none while a snapshot is pending.
  std::vector<Entry> next_committed_ents(bool allowUnstable);
  bool has_next_committed_ents(bool allowUnstable) const {
    if (applyingEntsPaused || has_next_or_in_progress_snapshot()) return false;
    return applying + 1 < max_appliable_index(allowUnstable) + 1;
  }
  Index max_appliable_index(bool allowUnstable) const {
    if (allowUnstable) return committed;
    return std::min(committed, unstable.offset - 1);
  }
  std::optional<Snapshot> next_unstable_snapshot() const;
  bool has_next_unstable_snapshot() const {
    return unstable.snapshot.has_value() && !unstable.snapshotInProgress;
  }
  bool has_next_or_in_progress_snapshot() const { return unstable.snapshot.has_value(); }
  Result<Snapshot> snapshot();
  Index first_index();
  // unstable.maybe_last_index(), else Storage's; inline, as it is asked several times a step.
  Index last_index() {
    if (!unstable.entries.empty()) return unstable.offset + unstable.entries.size() - 1;
    return last_index_stable();
  }
  Index last_index_stable();  // last_index() when no unstable entries are held
  void commit_to(Index tocommit);
  void applied_to(Index i, EntryEncodingSize size);
  void accept_applying(Index i, EntryEncodingSize size, bool allowUnstable);
  void stable_to(EntryID id) { unstable.stable_to(id); }
  void stable_snap_to(Index i) { unstable.stable_snap_to(i); }
  // acceptUnstable: the unstable entries and snapshot are now being written.
  void accept_unstable() { unstable.accept_in_progress(); }
  EntryID last_entry_id();
  // term: the term at i for i in [first_index()-1, last_index()]; ErrCompacted below,
  // ErrUnavailable above.
  Result<Term> term(Index i);
  // entries: from i to the end, at most maxSize bytes (at least one entry).
  Result<std::vector<Entry>> entries(Index i, EntryEncodingSize maxSize);
  std::vector<Entry> all_entries();
  // isUpToDate: whether a log ending at `their` is at least as up to date as ours.
  bool is_up_to_date(EntryID their);
  bool match_term(EntryID id);
  // maybeCommit: commits up to `at` if it is in our log, past committed, at a non-zero term.
  bool maybe_commit(EntryID at);
  void restore(const Snapshot& s);
  // scan: hands the entries of [lo, hi) to `v` in pages of about pageSize bytes. Errors are
  // Go's error as text, "" for nil: a storage error's text, "got 0 entries in [lo, hi)", or
  // whatever `v` returned (which also stops the scan).
  using ScanVisitor = std::function<std::string(const std::vector<Entry>&)>;
  std::string scan(Index lo, Index hi, EntryEncodingSize pageSize, const ScanVisitor& v);
  // slice: the entries in [lo, hi), at most maxSize bytes but at least one.
  Result<std::vector<Entry>> slice(Index lo, Index hi, EntryEncodingSize maxSize);
  // mustCheckOutOfBounds: ErrCompacted if lo is compacted; panics unless
  // lo <= hi <= last_index() + 1.
  StorageError must_check_out_of_bounds(Index lo, Index hi);
  // zeroTermOnOutOfBounds: the term, or 0 for ErrCompacted/ErrUnavailable.
  Term zero_term_on_out_of_bounds(Term t, StorageError err);
  Term zero_term_on_out_of_bounds(const Result<Term>& t) {
    return zero_term_on_out_of_bounds(t.value, t.err);
  }
};

// newLog / newLogWithSize: a log over `storage` (whose state it starts from: committed and
// applied at the last compaction), the applying budget unlimited or maxApplyingEntsSize.
RaftLog new_log(Storage& storage, Logger& logger);
RaftLog new_log_with_size(Storage& storage, Logger& logger, EntryEncodingSize maxApplyingEntsSize);

}  // namespace hasim::raft
