#pragma once
// The Raft paper's Figure 3 properties, checked online from what raft members make durable
// and apply. A pure unit: it knows nothing of the simulator, so the RapidCheck cluster of
// tests/unit/test_raft_safety.cpp and the `raft-safety` property of simulated etcd members
// feed it the same observations.
//
//  - Election Safety: at most one leader per term.
//  - Leader Append-Only: a leader never overwrites or deletes entries in its log; it only
//    appends.
//  - Log Matching: two logs with an entry of the same index and term are identical up to
//    that index. Checked with a hash of each entry's whole prefix: every member that holds
//    (index, term) must hold the same prefix hash.
//  - Leader Completeness: an entry committed in term T is in the log of every leader of a
//    term after T.
//  - State Machine Safety: no two members apply different entries at one index.
//
// "Committed" is what a member has made durable as its HardState commit (it learned the
// entry is on a quorum). The observations are of durable state, as a crash would leave it:
// a member must report its log after it persisted, not before.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/assert.hpp"

namespace hasim::raft_safety {

using Member = std::uint64_t;
using Term = std::uint64_t;
using Index = std::uint64_t;

struct LogEntry {
  Index index = 0;
  Term term = 0;
  std::uint64_t payload = 0;  // a hash of the entry's type and data
};

class SafetyChecker {
 public:
  // The member became leader of `term`.
  void on_leader(Member member, Term term);
  // The member durably appended `entries` (consecutive indexes), replacing any suffix of its
  // log from the first one's index on.
  void on_append(Member member, const std::vector<LogEntry>& entries);
  // The member installed a snapshot: its log is now empty after (index, term).
  void on_snapshot(Member member, Index index, Term term);
  // The member is no longer leader.
  void on_step_down(Member member);
  // The member restarted: its log is what survived on its disk, a snapshot at
  // (snapshotIndex, snapshotTerm) and the entries after it; it leads nothing.
  void on_restart(Member member, Index snapshotIndex, Term snapshotTerm,
                  const std::vector<LogEntry>& entries);
  // The member durably committed up to `commit`, its durable term being `term`. That term
  // is at least the term of the leader that committed the entries, which is what Leader
  // Completeness speaks of: only leaders of later terms must hold them.
  void on_commit(Member member, Index commit, Term term);
  // The member applied the entry to its state machine.
  void on_apply(Member member, const LogEntry& entry);

  // The first violation seen, described; empty while all holds.
  const std::string& violation() const { return violation_; }
  bool ok() const { return violation_.empty(); }

 private:
  struct Slot {
    Term term = 0;
    std::uint64_t prefix = 0;  // hash of every entry up to and including this one
  };
  struct Log {
    Index snapshotIndex = 0;  // entries at or below are compacted into a snapshot
    Term snapshotTerm = 0;
    std::uint64_t snapshotPrefix = 0;
    std::vector<Slot> slots;  // slots[i] is index snapshotIndex + 1 + i
    Index commitChecked = 0;  // on_commit has recorded every entry up to here
    Index last() const { return snapshotIndex + slots.size(); }
    std::optional<Term> term_at(Index index) const;
  };

  void fail(std::string what);
  void check_log_matching(Member member, Index index, const Slot& slot);
  void record_committed(Member member, Index upTo);

  std::map<Term, Member> leaders_;             // Election Safety
  std::map<Member, Term> leading_;             // the term each member leads now, if it does
  std::map<Member, Log> logs_;
  // What the checker records per log index, in a vector indexed by it: indexes are dense
  // from 1 and every entry is recorded (a std::map cost a node and a rebalance per entry,
  // a tenth of a raft trial). Iterates in index order, as the map did.
  template <typename V>
  class ByIndex {
   public:
    // The value at `index`, inserting `value` if none: (the value, whether inserted).
    std::pair<V*, bool> emplace(Index index, V value) {
      HASIM_ASSERT(index < kMaxIndex);  // bounded: one slot per index a run reaches
      if (index >= slots_.size()) slots_.resize(index + 1);
      std::optional<V>& slot = slots_[index];
      const bool inserted = !slot.has_value();
      if (inserted) slot = std::move(value);
      return {&*slot, inserted};
    }
    V* find(Index index) {
      return index < slots_.size() && slots_[index] ? &*slots_[index] : nullptr;
    }
    template <typename F>
    void for_each(F&& f) const {
      for (Index i = 0; i < slots_.size(); ++i) {
        if (slots_[i]) f(i, *slots_[i]);
      }
    }

   private:
    static constexpr Index kMaxIndex = Index{1} << 32;
    std::vector<std::optional<V>> slots_;
  };
  struct Prefix {  // Log Matching: the hash of a log up to (index, term), who held it first
    Term term = 0;
    std::uint64_t prefix = 0;
    Member member = 0;
  };
  ByIndex<std::vector<Prefix>> prefixes_;
  struct Committed {
    Term entryTerm = 0;
    Term commitTerm = 0;  // the lowest durable term a member committed it under
    Member member = 0;
  };
  ByIndex<Committed> committed_;                  // Leader Completeness
  ByIndex<std::pair<LogEntry, Member>> applied_;  // State Machine Safety
  // The prefix recorded for (index, term), if any.
  const Prefix* prefix_at(Index index, Term term);
  std::string violation_;
};

}  // namespace hasim::raft_safety
