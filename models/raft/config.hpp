#pragma once
// raft.Config (etcd-io/raft raft.go): the parameters of one raft member. Time is in ticks;
// the application decides how long a tick is (etcd: --heartbeat-interval, 100 ms).
#include <cstdint>
#include <limits>
#include <string>

#include "models/raft/raftpb.hpp"

namespace hasim::raft {

class Storage;
class Logger;


enum class ReadOnlyOption : std::uint8_t {
  ReadOnlySafe = 0,       // ReadIndex confirmed by a heartbeat round with a quorum
  ReadOnlyLeaseBased = 1  // ReadIndex served on the leader's lease (needs CheckQuorum)
};

struct Config {
  PeerId id = None;
  int electionTick = 0;   // ticks without a leader's word before a follower campaigns
  int heartbeatTick = 0;  // ticks between a leader's heartbeats
  Storage* storage = nullptr;  // not owned; outlives the raft
  Index applied = 0;           // restart: the last index the state machine applied
  bool asyncStorageWrites = false;
  std::uint64_t maxSizePerMsg = 0;
  std::uint64_t maxCommittedSizePerReady = 0;
  std::uint64_t maxUncommittedEntriesSize = 0;
  int maxInflightMsgs = 0;
  std::uint64_t maxInflightBytes = 0;
  bool checkQuorum = false;
  bool preVote = false;
  ReadOnlyOption readOnlyOption = ReadOnlyOption::ReadOnlySafe;
  Logger* logger = nullptr;  // not owned; nullptr: discard
  bool disableProposalForwarding = false;
  bool disableConfChangeValidation = false;
  bool stepDownOnRemoval = false;
  // Paper mode (the Raft paper's §9.3 election experiment, not upstream): when > 0, the
  // randomized election timeout is drawn uniformly from [electionTick, electionTickMax]
  // instead of upstream's [electionTick, 2·electionTick). 0: upstream.
  int electionTickMax = 0;
  // Paper mode, the Raft paper's timer rule (Figure 2, "Rules for Servers": a follower
  // converts to candidate when the election timeout elapses "without receiving AppendEntries
  // RPC from current leader or granting vote to candidate"): adopting a higher term from a
  // vote request or a response leaves the election timer running. Upstream restarts it
  // (raft.go becomeFollower -> reset), even when the vote is rejected. false: upstream.
  bool keepElectionTimerOnNewTerm = false;
  // Upstream draws the randomized election timeout from crypto/rand. hasim draws it from a
  // deterministic generator seeded here, so a run replays exactly.
  std::uint64_t randomSeed = 0;

  // Config.validate: the error text, or empty. Fills defaults as upstream does
  // (maxUncommittedEntriesSize and maxInflightBytes 0 → no limit, maxCommittedSizePerReady 0
  // → maxSizePerMsg).
  std::string validate();
};

}  // namespace hasim::raft
