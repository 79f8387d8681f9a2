#pragma once
// The raft state machine (etcd-io/raft raft.go): terms and votes, PreVote, CheckQuorum,
// replication with per-follower progress, ReadIndex, leader transfer and configuration
// changes. Pure: no clock, no network, no disk. Messages it wants sent collect in `msgs`
// (and `msgsAfterAppend`, those that may only go once the log is durable); RawNode hands
// them out in a Ready.
//
// Fields keep upstream's names (term, vote, lead, raftLog, trk, electionElapsed, ...) so a
// reader can hold this file next to raft.go; they are public for RawNode, Status and tests
// as upstream's package-private fields are.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/raft/config.hpp"
#include "models/raft/logger.hpp"
#include "models/raft/raft_log.hpp"
#include "models/raft/raftpb.hpp"
#include "models/raft/read_only.hpp"
#include "models/raft/ready.hpp"
#include "models/raft/rawnode.hpp"
#include "models/raft/tracker.hpp"

namespace hasim::raft {

// raft.go CampaignType: why a node campaigns. A transfer campaign carries its name as the
// vote request's context, which lets it through a voter's CheckQuorum lease.
enum class CampaignType : std::uint8_t { campaignPreElection, campaignElection, campaignTransfer };
inline constexpr std::string_view kCampaignTransfer = "CampaignTransfer";

// confChangeToMsg (node.go): the MsgProp carrying a conf change; nil (monostate) is the
// empty V2 change that leaves a joint configuration.
Message conf_change_to_msg(const ConfChangeI& c);

class Raft {
 public:
  explicit Raft(Config& c);  // newRaft; c is validated (and defaulted) first

  bool has_leader() const { return lead != None; }
  SoftState soft_state() const { return SoftState{lead, state}; }
  HardState hard_state() const { return HardState{term, vote, raftLog.committed}; }

  RaftError step(Message m);  // Step
  // Step on a message the caller gives up (left moved from or changed): RawNode's, which
  // spares the by-value copy of step a move per message.
  RaftError step_taken(Message& m);
  void tick();                // r.tick: tickElection or tickHeartbeat by role
  void applied_to(Index index, std::uint64_t size);
  void applied_snap(const Snapshot& snap);
  ConfState apply_conf_change(const ConfChangeV2& cc);
  void set_randomized_election_timeout(int timeout) { randomizedElectionTimeout = timeout; }

  // --- state (raft struct) ---
  PeerId id = None;
  Term term = 0;
  PeerId vote = None;
  std::vector<ReadState> readStates;
  RaftLog raftLog;
  std::uint64_t maxMsgSize = 0;
  std::uint64_t maxUncommittedSize = 0;
  ProgressTracker trk;
  StateType state = StateType::StateFollower;
  bool isLearner = false;
  std::vector<Message> msgs;             // may be sent now
  std::vector<Message> msgsAfterAppend;  // may be sent once the unstable log is durable
  PeerId lead = None;
  PeerId leadTransferee = None;
  Index pendingConfIndex = 0;
  bool disableConfChangeValidation = false;
  std::uint64_t uncommittedSize = 0;
  ReadOnly readOnly;
  int electionElapsed = 0;
  int heartbeatElapsed = 0;
  bool checkQuorum = false;
  bool preVote = false;
  int heartbeatTimeout = 0;
  int electionTimeout = 0;
  int electionTimeoutMax = 0;  // paper mode's upper bound (Config::electionTickMax), or 0
  bool keepElectionTimerOnNewTerm = false;  // paper mode's timer rule (Config), or upstream's
  int randomizedElectionTimeout = 0;
  bool disableProposalForwarding = false;
  bool stepDownOnRemoval = false;
  Logger* logger = nullptr;
  std::vector<Message> pendingReadIndexMessages;

 private:
  void send(Message&& m);  // by reference: a message moves once, into msgs
  void send_append(PeerId to);
  bool maybe_send_append(PeerId to, bool sendIfEmpty);
  bool maybe_send_snapshot(PeerId to, Progress& pr);
  void send_heartbeat(PeerId to, const std::string& ctx);
  void bcast_append();
  void bcast_heartbeat();
  void bcast_heartbeat_with_ctx(const std::string& ctx);
  bool maybe_commit();
  void reset(Term newTerm);
  bool append_entry(std::vector<Entry> es);
  void tick_election();
  void tick_heartbeat();
  void become_follower(Term newTerm, PeerId newLead);
  void become_candidate();
  void become_pre_candidate();
  void become_leader();
  void hup(CampaignType t);
  bool has_unapplied_conf_changes();
  void campaign(CampaignType t);
  TallyResult poll(PeerId from, MessageType t, bool v);
  RaftError step_message(Message& m);
  bool step_term_check(const Message& m);
  void step_vote(const Message& m);
  RaftError step_by_role(Message& m);
  RaftError step_leader(Message& m);
  RaftError step_leader_propose(Message& m);
  void step_leader_read_index(const Message& m);
  void step_leader_progress(const Message& m, Progress& pr);
  void step_leader_app_resp(const Message& m, Progress& pr);
  void step_leader_heartbeat_resp(const Message& m, Progress& pr);
  void step_leader_transfer(const Message& m, Progress& pr);
  RaftError step_candidate(Message& m);
  RaftError step_follower(Message& m);
  void forward_to_leader(Message& m, std::string_view what);
  void handle_append_entries(Message& m);  // takes m.entries
  void handle_heartbeat(const Message& m);
  void handle_snapshot(const Message& m);
  bool restore(const Snapshot& s);
  bool promotable() const;
  ConfState switch_to_config(TrackerConfig cfg, ProgressMap progress);
  void load_state(const HardState& hs);
  bool past_election_timeout() const { return electionElapsed >= randomizedElectionTimeout; }
  void reset_randomized_election_timeout();
  void send_timeout_now(PeerId to);
  void abort_leader_transfer() { leadTransferee = None; }
  bool committed_entry_in_current_term();
  Message response_to_read_index_req(const Message& req, Index readIndex);
  bool increase_uncommitted_size(const std::vector<Entry>& ents);
  void reduce_uncommitted_size(std::uint64_t s);
  void release_pending_read_index_messages();
  void send_msg_read_index_response(const Message& m);
  Logger& log() const { return *logger; }
  // What holds between any two calls into the raft (checked after each step and tick).
  void assert_invariants();

  std::uint64_t rand_state_ = 0;  // splitmix64: the randomized election timeout's source
};

}  // namespace hasim::raft
