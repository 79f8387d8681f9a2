#pragma once
// raft-safety: the Raft paper's Figure 3 properties (election safety, leader append-only,
// log matching, leader completeness, state machine safety) over the etcd members of a run.
// A thin adapter: it reads the members' trace events (models/etcd/trace_kinds.hpp) and feeds
// hasim::raft_safety::SafetyChecker (safety_checker.hpp), reporting its first violation with
// the event that exposed it. Assumes every member keeps its disk (no disk-loss): a member
// that restarts empty forgets its vote and may vote twice in a term, which raft does not
// survive (etcd: a member that lost its data must be removed and added back).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "properties/property.hpp"
#include "properties/raft/safety_checker.hpp"

namespace hasim {

class RaftSafety final : public Property {
 public:
  explicit RaftSafety(std::string spec) : Property(std::move(spec)) {}
  void on_event(const TraceEvent& event) override;

 private:
  // The terms of a member's durable log after the checker's compaction point: the checker
  // is told every committed prefix is a snapshot, so its work per commit stays small.
  struct Log {
    std::uint64_t base = 0;  // compacted up to here
    std::vector<std::uint64_t> terms;
    std::uint64_t commit = 0;
    bool leader = false;
  };
  bool observe(const TraceEvent& event, std::uint64_t member);
  bool append(std::uint64_t member, std::uint64_t first, std::string_view ents);
  void commit(std::uint64_t member, std::uint64_t commit, std::uint64_t term);

  raft_safety::SafetyChecker checker_;
  std::map<std::uint64_t, Log> logs_;
  std::map<std::string, std::uint64_t, std::less<>> members_;  // "node" -> raft ID
};

}  // namespace hasim
