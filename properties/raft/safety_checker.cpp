#include "properties/raft/safety_checker.hpp"

#include <algorithm>
#include <utility>

#include "sim/assert.hpp"
#include "sim/fnv.hpp"

namespace hasim::raft_safety {

namespace {

std::string entry_text(Index index, Term term) {
  return std::to_string(term) + "/" + std::to_string(index);
}

}  // namespace

std::optional<Term> SafetyChecker::Log::term_at(Index index) const {
  if (index == snapshotIndex) return snapshotTerm;
  if (index < snapshotIndex || index > last()) return std::nullopt;
  return slots[index - snapshotIndex - 1].term;
}

void SafetyChecker::fail(std::string what) {
  if (violation_.empty()) violation_ = std::move(what);
}

void SafetyChecker::on_leader(Member member, Term term) {
  auto [it, inserted] = leaders_.emplace(term, member);
  if (!inserted && it->second != member) {
    fail("election safety: members " + std::to_string(it->second) + " and " +
         std::to_string(member) + " both became leader of term " + std::to_string(term));
  }
  leading_[member] = term;
  // Leader Completeness: every entry committed under an earlier term is in our log.
  const Log& log = logs_[member];
  bool complete = true;
  committed_.for_each([&](Index index, const Committed& committed) {
    if (!complete || committed.commitTerm >= term || index <= log.snapshotIndex) return;
    std::optional<Term> have = log.term_at(index);
    if (have && *have == committed.entryTerm) return;
    complete = false;
    fail("leader completeness: member " + std::to_string(member) + " became leader of term " +
         std::to_string(term) + " without entry " + entry_text(index, committed.entryTerm) +
         ", committed by member " + std::to_string(committed.member) + " at term " +
         std::to_string(committed.commitTerm));
  });
}

void SafetyChecker::on_step_down(Member member) { leading_.erase(member); }

void SafetyChecker::on_restart(Member member, Index snapshotIndex, Term snapshotTerm,
                               const std::vector<LogEntry>& entries) {
  leading_.erase(member);
  logs_[member] = Log{};
  on_snapshot(member, snapshotIndex, snapshotTerm);
  on_append(member, entries);
}

const SafetyChecker::Prefix* SafetyChecker::prefix_at(Index index, Term term) {
  const std::vector<Prefix>* known = prefixes_.find(index);
  if (known == nullptr) return nullptr;
  for (const Prefix& p : *known) {
    if (p.term == term) return &p;
  }
  return nullptr;
}

void SafetyChecker::check_log_matching(Member member, Index index, const Slot& slot) {
  const Prefix* known = prefix_at(index, slot.term);
  if (known == nullptr) {
    prefixes_.emplace(index, {}).first->push_back(Prefix{slot.term, slot.prefix, member});
    return;
  }
  if (known->prefix != slot.prefix) {
    fail("log matching: members " + std::to_string(known->member) + " and " +
         std::to_string(member) + " both hold entry " + entry_text(index, slot.term) +
         " but their logs differ before it");
  }
}

void SafetyChecker::on_append(Member member, const std::vector<LogEntry>& entries) {
  if (entries.empty()) return;
  Log& log = logs_[member];
  const Index first = entries.front().index;
  // A committed entry is final: a member that replaces one breaks State Machine Safety
  // (its snapshot covers only committed entries).
  if (first <= std::max(log.snapshotIndex, log.commitChecked)) {
    fail("state machine safety: member " + std::to_string(member) +
         " replaced its committed entries from index " + std::to_string(first) +
         " (committed up to " + std::to_string(std::max(log.snapshotIndex, log.commitChecked)) +
         ")");
    return;
  }
  if (first > log.last() + 1) {
    fail("log matching: member " + std::to_string(member) + " appended at index " +
         std::to_string(first) + " after its last entry " + std::to_string(log.last()));
    return;
  }
  auto leading = leading_.find(member);
  if (leading != leading_.end() && first <= log.last()) {
    fail("leader append-only: leader " + std::to_string(member) + " of term " +
         std::to_string(leading->second) + " overwrote its entries from index " +
         std::to_string(first));
  }
  log.slots.resize(first - log.snapshotIndex - 1);
  std::uint64_t prefix = log.slots.empty() ? log.snapshotPrefix : log.slots.back().prefix;
  for (const LogEntry& e : entries) {
    HASIM_ASSERT(e.index == log.last() + 1);
    prefix = fnv1a_word(fnv1a_word(fnv1a_word(prefix, e.index), e.term), e.payload);
    log.slots.push_back(Slot{e.term, prefix});
    check_log_matching(member, e.index, log.slots.back());
  }
}

void SafetyChecker::on_snapshot(Member member, Index index, Term term) {
  Log& log = logs_[member];
  // The snapshot's prefix is whatever log held (index, term); with none known yet (the
  // bootstrap snapshot every member starts from), (index, term) stands for it.
  const Prefix* known = prefix_at(index, term);
  const std::uint64_t prefix =
      known != nullptr ? known->prefix : fnv1a_word(fnv1a_word(kFnvOffset, index), term);
  if (known == nullptr) {
    prefixes_.emplace(index, {}).first->push_back(Prefix{term, prefix, member});
  }
  if (index <= log.last() && log.term_at(index) == term) {
    // The snapshot covers a prefix we hold: compact it, keep the rest.
    log.slots.erase(log.slots.begin(),
                    log.slots.begin() + static_cast<std::ptrdiff_t>(index - log.snapshotIndex));
  } else {
    log.slots.clear();
  }
  log.snapshotIndex = index;
  log.snapshotTerm = term;
  log.snapshotPrefix = prefix;
}

void SafetyChecker::on_commit(Member member, Index commit, Term term) {
  Log& log = logs_[member];
  // Each entry is recorded once per incarnation: the walk starts after the last commit seen,
  // so a long run costs linear time.
  const Index from = std::max(log.snapshotIndex, log.commitChecked) + 1;
  const Index upTo = std::min(commit, log.last());
  if (upTo >= from) log.commitChecked = upTo;
  for (Index index = from; index <= upTo; ++index) {
    const Term entryTerm = *log.term_at(index);
    auto [it, inserted] = committed_.emplace(index, Committed{entryTerm, term, member});
    if (inserted) continue;
    if (it->entryTerm != entryTerm) {
      fail("state machine safety: member " + std::to_string(member) + " committed entry " +
           entry_text(index, entryTerm) + " where member " + std::to_string(it->member) +
           " committed " + entry_text(index, it->entryTerm));
      return;
    }
    if (term < it->commitTerm) it->commitTerm = term;
  }
}

void SafetyChecker::on_apply(Member member, const LogEntry& entry) {
  auto [it, inserted] = applied_.emplace(entry.index, std::pair{entry, member});
  if (inserted) return;
  const LogEntry& other = it->first;
  if (other.term != entry.term || other.payload != entry.payload) {
    fail("state machine safety: member " + std::to_string(member) + " applied " +
         entry_text(entry.index, entry.term) + " where member " +
         std::to_string(it->second) + " applied " + entry_text(other.index, other.term) +
         (other.term == entry.term ? " with other data" : ""));
  }
}

}  // namespace hasim::raft_safety
