#pragma once
// raft-safety: the Raft paper's Figure 3 properties (election safety, leader append-only,
// log matching, leader completeness, state machine safety) over the etcd members of a run.
// A thin adapter: it reads the members' trace events (models/etcd/trace_kinds.hpp) and feeds
// hasim::raft_safety::SafetyChecker (safety_checker.hpp), reporting its first violation with
// the event that exposed it. Assumes every member keeps its disk (no disk-loss): a member
// that restarts empty forgets its vote and may vote twice in a term, which raft does not
// survive (etcd: a member that lost its data must be removed and added back).
// An operator's restore (etcd-snapshot-restore events) starts a new cluster, whose raft
// starts over at term 1 (etcdutl snapshot restore writes a fresh WAL): Raft's guarantees
// hold per cluster, so the checker starts afresh then and follows only the members restored
// into it (the others run on in the old cluster, refused by the new one).
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/etcd/trace_entries.hpp"
#include "properties/property.hpp"
#include "properties/raft/safety_checker.hpp"

namespace hasim {

class RaftSafety final : public Property {
 public:
  explicit RaftSafety(std::string spec) : Property(std::move(spec)) {}
  void on_event(const TraceEvent& event) override;
  bool wants(std::string_view kind) const override;

 private:
  // What the adapter keeps of a member: its role as last traced, its durable commit.
  struct Member {
    std::uint64_t commit = 0;
    bool leader = false;
  };
  bool observe(const TraceEvent& event, std::uint64_t member);
  bool append(std::uint64_t member, std::uint64_t first, std::string_view ents);
  void commit(std::uint64_t member, Member& log, std::uint64_t commit, std::uint64_t term);

  void restored(const TraceEvent& event);

  raft_safety::SafetyChecker checker_;
  std::optional<std::int64_t> cluster_;  // the cluster ID of the last restore, if any
  std::set<std::string, std::less<>> restored_;  // the nodes whose members are in it
  // By raft ID, in the order first seen: a few members, looked up on every event, never
  // walked in order (a scanned vector rather than a map).
  std::vector<std::pair<std::uint64_t, Member>> logs_;
  Member& log_of(std::uint64_t member);
  // "node" -> raft ID. A few members, asked on every event: a scan of a vector beats a
  // map's string comparisons (nothing iterates it, so its order does not matter).
  std::vector<std::pair<std::string, std::uint64_t>> members_;
  std::uint64_t* member_id(std::string_view node);
  // Scratch for the entries of one event (decoded, then as the checker's log entries): kept
  // so that the events of every Ready reuse their capacity.
  std::vector<etcd::TracedEntry> traced_;
  std::vector<raft_safety::LogEntry> entries_;
};

}  // namespace hasim
