#pragma once
// RawNode (etcd-io/raft rawnode.go): the thread-unsafe raft node an application drives by
// hand. No clock, no network, no disk: the application calls tick() on its own clock,
// step() with messages that arrived, and ready()/advance() to learn what to persist, send
// and apply. hasim's etcd member is one thin adapter around it; the transcripts drive it
// directly.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include "models/raft/config.hpp"
#include "models/raft/raftpb.hpp"
#include "models/raft/raftpb_util.hpp"
#include "models/raft/ready.hpp"
#include "models/raft/status.hpp"

namespace hasim::raft {

class Raft;

// The errors RawNode's calls return (raft.go, rawnode.go); Ok is success.
enum class RaftError : std::uint8_t {
  Ok,
  ErrProposalDropped,   // "raft proposal dropped"
  ErrStepLocalMsg,      // "raft: cannot step raft local message"
  ErrStepPeerNotFound,  // "raft: cannot step as peer not found"
};
std::string_view error_text(RaftError error);

enum class SnapshotStatus : std::uint8_t { SnapshotFinish = 1, SnapshotFailure = 2 };
enum class ProgressType : std::uint8_t { ProgressTypePeer = 0, ProgressTypeLearner = 1 };

class RawNode {
 public:
  // NewRawNode: panics (Logger::panic) on an invalid config, as upstream's newRaft does.
  explicit RawNode(Config config);
  ~RawNode();
  RawNode(const RawNode&) = delete;
  RawNode& operator=(const RawNode&) = delete;

  void tick();
  void tick_quiesced();
  RaftError campaign();
  RaftError propose(std::string data);
  RaftError propose_conf_change(const ConfChangeI& cc);
  ConfState apply_conf_change(const ConfChangeI& cc);
  // A message the caller gives up is stepped in place; a kept one is copied first (as the
  // by-value parameter upstream's Go copy amounts to).
  RaftError step(Message&& m);
  RaftError step(const Message& m) { return step(Message(m)); }

  Ready ready();
  bool has_ready() const;
  // Optional: the messages vector of a Ready the application has sent, handed back so that
  // the messages of later Readys collect in its capacity instead of a new allocation.
  void recycle(std::vector<Message>&& messages);
  void advance(const Ready& rd);

  Status status() const;
  BasicStatus basic_status() const;
  void with_progress(const std::function<void(PeerId, ProgressType, const Progress&)>& visitor) const;
  void report_unreachable(PeerId id);
  void report_snapshot(PeerId id, SnapshotStatus status);
  void transfer_leader(PeerId transferee);
  RaftError forget_leader();
  void read_index(std::string rctx);

  // raft.SetRandomizedElectionTimeout (export_test.go): tests pin the drawn timeout.
  void set_randomized_election_timeout(int timeout);

  const Raft& raft() const { return *raft_; }

 private:
  Ready take_ready();
  void accept_ready(const Ready& rd);
  bool apply_unstable_entries() const;
  bool need_storage_append_msg(const Ready& rd) const;
  bool need_storage_append_resp_msg(const Ready& rd) const;
  Message new_storage_append_msg(const Ready& rd) const;
  Message new_storage_append_resp_msg(const Ready& rd) const;
  Message new_storage_apply_msg(const Ready& rd) const;
  Message new_storage_apply_resp_msg(const std::vector<Entry>& ents) const;

  std::unique_ptr<Raft> raft_;
  bool asyncStorageWrites_ = false;
  SoftState prevSoftSt_;
  HardState prevHardSt_;
  std::vector<Message> stepsOnAdvance_;
  std::vector<Message> advancing_;  // advance's: stepsOnAdvance_ being stepped
  std::vector<Message> spareMsgs_;  // recycle's: capacity for the next Ready's messages
};

// MustSync: whether a Ready's hard state and entries must reach stable storage before its
// messages go out (the term or vote changed, or there are entries).
bool must_sync(const HardState& st, const HardState& prevst, std::size_t entsnum);

}  // namespace hasim::raft
