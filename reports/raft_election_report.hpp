#pragma once
// `hasim report raft-election`: the Raft paper's Figure 16 (time without a leader after the
// leader crashes, for ranges of election timeouts) reproduced on etcd raft in paper mode,
// beside the paper's stated numbers, and the same measurement for etcd's defaults (3 and 5
// members, PreVote on and off). A study (reports/study.hpp) whose cells are the lines;
// the trial is reports/raft_election_trial.hpp.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "reports/raft_election_trial.hpp"
#include "reports/stats.hpp"
#include "reports/study.hpp"

namespace hasim {

struct RaftElectionOptions {
  std::uint64_t trials = 1000;  // per cell (150-150 runs a tenth)
  std::uint64_t seed = 1;
  // `--timer-rule`: "etcd" (etcd raft restarts a member's election timer at every new term)
  // or "paper" (the Raft paper's Figure 2: only a leader's message or a granted vote does).
  std::string timerRule = "etcd";
};

struct RaftElectionLine {
  RaftElectionCell cell;
  std::uint64_t ran = 0;
  std::uint64_t over = 0;          // no leader within the horizon
  std::vector<Duration> downtime;  // elected trials, ascending
  DurationSummary summary;         // of downtime
  double mean_terms = 0;           // terms per election (1: no split vote)
  std::uint64_t unequal = 0;       // trials whose survivors had unequal logs (paper: all)
};

struct RaftElectionResults {
  RaftElectionOptions options;
  std::vector<RaftElectionLine> lines;  // in raft_election_cells() order
  BroadcastTime broadcast;
};

// Trial t of cell c at index c * trials + t.
RaftElectionResults summarize_raft_election(const RaftElectionOptions& options,
                                            const std::vector<RaftElectionTrial>& trials);

// The paper's stated numbers beside hasim's (Markdown/HTML rows and JSON).
struct PaperComparison {
  std::string claim;      // "150-155 ms: median downtime 287 ms"
  std::string paper;      // "287 ms"
  std::string hasim;      // "301 ms"
  std::string tolerance;  // "within 15%"
  bool agrees = false;
};
std::vector<PaperComparison> compare_with_paper(const RaftElectionResults& results);

std::string raft_election_json(const RaftElectionResults& results);
std::string raft_election_markdown(const RaftElectionResults& results);
std::string raft_election_html(const RaftElectionResults& results);
Table raft_election_cell_table(const RaftElectionResults& results);

std::unique_ptr<Study> make_raft_election_study();

}  // namespace hasim
