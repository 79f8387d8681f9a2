#pragma once
// One trial of `hasim report raft-election`: etcd members (models/etcd) whose leader is
// crashed, and the time until a new leader is elected.
//
// Paper cells reproduce the Raft paper's election experiment (Ongaro & Ousterhout, extended
// version §9.3, Figure 16; ATC'14 §8.3, Figure 14): five servers in paper mode (timeouts
// uniform in [A, B], heartbeats every A/2, no PreVote or CheckQuorum), a broadcast time of
// about 15 ms, the servers' logs unequal so that two of the four survivors cannot win, the
// leader crashed at a uniform instant within the heartbeat interval after its last
// (synchronised) heartbeat broadcast. Etcd cells crash the leader of a 3- or 5-member etcd
// with etcd's defaults on a loopback-like network.
#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/scenario.hpp"

namespace hasim {

struct RaftElectionCell {
  std::string name;   // "150-155", "etcd-3-prevote"
  bool paper = true;  // the paper's set-up, else etcd's defaults
  Duration low{};     // paper: the election timeout range [low, high]
  Duration high{};
  std::size_t members = 5;
  bool preVote = false;  // etcd cells
  bool top = false;      // drawn in Figure 16's top graph
  bool bottom = false;   // ... in its bottom graph
  // Only the first trials / divisor trials run: the paper ran 100 trials of 150-150 against
  // 1,000 of the other lines (each of its trials lasts seconds).
  std::uint64_t divisor = 1;
};

// Figure 16's lines (150-300 is in both graphs, run once) and the etcd cells.
const std::vector<RaftElectionCell>& raft_election_cells();

struct RaftElectionTrial {
  bool ran = false;          // false: a trial beyond the cell's share (divisor)
  bool elected = false;      // a new leader within the horizon
  Duration downtime{};       // from the crash to the first member becoming leader
  std::int64_t terms = 0;    // the new leader's term minus the crashed one's (1: no retry)
  std::int64_t lagging = 0;  // survivors whose log was shorter than the leader's at the crash
};

// The network and disks of paper cells: one-way latency uniform in [1, 1.2] ms and a
// 12.5 ms WAL fsync, so a broadcast (RequestVote to the four others, each writes its vote
// and replies) takes 14.5-14.9 ms, the paper's "about 15 ms", while a RequestVote reaches
// the others about 1 ms after a candidate's timeout (paper mode sends it while the
// candidate's own vote is written: models/etcd/member.cpp send_vote_requests). Both matter:
// the window between the first timeout and the others hearing the RequestVote is what a
// timeout range must beat (150-150 splits forever, 150-155's median is 287 ms only if
// that window is a millisecond or two, not a whole broadcast), and the broadcast is what
// an election costs. A LAN's jitter is small (0.2 ms here). The one-way latency stays below
// the shortest heartbeat interval (6 ms), so at most one heartbeat is in flight on a link
// (the unequal-logs set-up relies on it).
inline constexpr Duration kPaperLatencyLow = microseconds(1000);
inline constexpr Duration kPaperLatencyHigh = microseconds(1200);
inline constexpr Duration kPaperFsync = microseconds(12500);
// Paper mode's tick: A, B and A/2 of every line (12.5 ms for 25-50) are whole ticks.
inline constexpr Duration kPaperTick = microseconds(500);
// After the crash: the paper reports 150-150 as "over 10 s"; a trial stops there.
inline constexpr Duration kPaperHorizon = seconds(10);
inline constexpr Duration kEtcdHorizon = seconds(30);

// The world a cell's trials run.
// paperTimerRule: paper cells keep a member's election timer when it adopts a newer term
// (the Raft paper's Figure 2 rule), else etcd raft's (`--timer-rule`).
Scenario raft_election_scenario(const RaftElectionCell& cell, bool paperTimerRule);

RaftElectionTrial run_raft_election_trial(const Scenario& scenario, const RaftElectionCell& cell,
                                          std::uint64_t seed);

// The broadcast time of paper cells, by sampling the latency and fsync above: the slowest
// of four vote round trips, each with the voter's fsync. {mean, p50, p99} over `samples`.
struct BroadcastTime {
  Duration mean{};
  Duration p50{};
  Duration p99{};
};
BroadcastTime paper_broadcast_time(std::uint64_t samples);

}  // namespace hasim
