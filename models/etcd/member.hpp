#pragma once
// An etcd member in the simulation: one thin adapter around a raft::RawNode, as etcd's
// raftNode (server/etcdserver/raft.go) is around raft.Node. No raft logic lives here; this
// file is what etcd adds around the library:
//  - ticks from the node's local monotonic clock every --heartbeat-interval; ElectionTick =
//    election-timeout / heartbeat-interval, HeartbeatTick 1 (etcdserver/bootstrap.go
//    raftConfig); PreVote as --pre-vote, CheckQuorum always on;
//  - the start-up tick advance (server.go adjustTicks): a single member advances
//    ElectionTicks-1 ticks, a member of several ElectionTicks-2 once its peers are connected
//    (its first 50 ms poll, the peer streams of the simulation being connected at start);
//  - peer messages over the network as rafthttp's streams (Transport::stream);
//  - the Ready loop (raft.go raftNode.start): one Ready at a time; a leader sends its
//    messages before it writes, a follower after its writes are durable; the writes go to a
//    WAL on the volume "data" through etcd's encoder buffer, flushed and fsynced when
//    rd.mustSync (a commit-only Ready waits for no disk); then MemoryStorage takes the
//    snapshot, entries and HardState, committed entries are applied, and Advance;
//  - snapshots every --snapshot-count applied entries (server.go triggerSnapshot), keeping
//    SnapshotCatchUpEntries in memory for slow followers;
//  - restart replays the WAL (models/etcd/wal.hpp).
// The state machine: the KV server (models/etcd/kv_server.hpp) applies the entries that are
// encoded requests and answers KvRequests; a hash chains every applied entry's data (the
// only state of runs without KV clients). Rate-driven load: each member
// proposes its share of `rate` writes/s itself (a follower's MsgProp goes to the leader
// inside raft), a dropped proposal is traced.
//
// Paper mode (EtcdConfig::mode) is the Raft paper's election experiment (Ongaro &
// Ousterhout, extended version §9.3 / Figure 16) rather than etcd: see EtcdMode.
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/etcd/kv_server.hpp"
#include "models/etcd/membership.hpp"
#include "models/etcd/wal.hpp"
#include "models/raft/rawnode.hpp"
#include "models/raft/storage.hpp"
#include "sim/env.hpp"

namespace hasim::etcd {

// etcd: etcd's own timing (above). paper: the Raft paper's §9.3 set-up: election timeouts
// drawn uniformly in [A, B] milliseconds (electionTimeout, electionTimeoutMax), heartbeats
// every A/2, no PreVote, no CheckQuorum, no start-up tick advance. A raft member only knows
// ticks, so the member ticks every `tick` (fine: 1ms or less) and raft counts A/tick,
// B/tick and A/2/tick of them (raft::Config::electionTickMax gives the [A, B] draw).
enum class EtcdMode : std::uint8_t { etcd, paper };

struct EtcdConfig {
  EtcdMode mode = EtcdMode::etcd;
  std::vector<std::string> members;  // "node/etcd" of every member; raft ID = position + 1
  // "node/etcd" of members that may join later (member-add-learner), raft IDs after the
  // members': they start empty, outside the configuration (models/etcd/membership.hpp).
  std::vector<std::string> standby;
  // The cluster's member list, shared by the members of one world; null: the member's own.
  // With addresses (MemberDirectory::set_address), a member reaches each peer at its
  // address rather than by the "node/etcd" above, so a peer re-created on another node is
  // still reached, and a member may have an ID beyond members and standby (one a client
  // added at runtime: it starts empty, like a standby one).
  std::shared_ptr<MemberDirectory> directory;
  // --name: what the member publishes when it starts (server.go publishV3), which member
  // list shows; under etcd-druid the pod's name, which the sidecar looks for (etcd-backup-
  // restore IsMemberInCluster). Empty: the process part of its "node/name" above.
  std::string name;
  // The data directory was lost (a disk loss) since the member first ran: set per start.
  bool dataDirLost = false;
  Duration heartbeatInterval = milliseconds(100);  // --heartbeat-interval: one tick
  Duration electionTimeout = milliseconds(1000);   // --election-timeout
  bool preVote = true;                             // --pre-vote
  bool checkQuorum = true;                         // etcd hard-codes true
  std::uint64_t snapshotCount = 10'000;            // --snapshot-count (v3.6 default)
  std::uint64_t snapshotCatchUpEntries = 5'000;    // DefaultSnapshotCatchUpEntries
  std::int64_t rate = 0;                           // client proposals per second, cluster-wide
  std::int64_t quotaBackendBytes = 0;              // --quota-backend-bytes (0: 2 GiB)
  // How fast a defragmentation copies the data in use (kv_server.hpp defrag_duration).
  std::int64_t defragBytesPerSecond = kDefaultDefragBytesPerSecond;
  // The mutation: send every message at once and never fsync the WAL, so a member
  // acknowledges entries a power loss then takes (the raft-safety property must fail).
  bool unsafeAckBeforeFsync = false;
  // Paper mode only: B of the [A, B] range (A is electionTimeout), and the tick.
  Duration electionTimeoutMax{};
  Duration tick = milliseconds(1);
  // Paper mode only: the Raft paper's timer rule (a member that adopts a newer term from a
  // vote request keeps its election timer; raft::Config::keepElectionTimerOnNewTerm), or,
  // false, etcd raft's (every new term restarts the timer).
  bool paperTimerRule = false;

  bool paper() const { return mode == EtcdMode::paper; }
  // How often the member ticks raft: etcd ticks once per heartbeat interval.
  Duration tick_interval() const { return paper() ? tick : heartbeatInterval; }
  int election_ticks() const { return static_cast<int>(electionTimeout.ns / tick_interval().ns); }
  // raft::Config::electionTickMax: 0 (upstream's [ET, 2ET) draw) unless in paper mode.
  int election_ticks_max() const {
    return paper() ? static_cast<int>(electionTimeoutMax.ns / tick.ns) : 0;
  }
  int heartbeat_ticks() const {
    return paper() ? static_cast<int>(heartbeatInterval.ns / tick.ns) : 1;
  }
};

// A raft message on a peer stream; its type names it in the trace ("MsgApp", ...).
// `cluster` is rafthttp's X-Etcd-Cluster-ID header: the sender's cluster ID (0: the cluster
// the scenario bootstrapped; a restore makes a new one, models/etcd/snapshot_restore.hpp).
struct RaftMessage final : MessageBody {
  // By reference: the message moves once, into the body (several per simulated event).
  explicit RaftMessage(raft::Message&& m, std::uint64_t c = 0)
      : message(std::move(m)), cluster(c) {}
  explicit RaftMessage(const raft::Message& m, std::uint64_t c = 0) : message(m), cluster(c) {}
  std::string_view type() const override { return raft::name(message.type); }
  raft::Message message;
  std::uint64_t cluster = 0;
};

// Every member bootstraps from this snapshot (index 1, term 1, every member a voter), the
// configuration etcd's initial cluster gives raft.
raft::Snapshot bootstrap_snapshot(std::size_t members);

// The cluster ID a member of the scenario's bootstrap cluster reports (Status, response
// headers). Its WAL and peer messages carry 0 for it (RaftMessage::cluster), so that runs
// keep their bytes; but etcd's cluster ID is never 0 (membership/cluster.go genID: the
// first 8 bytes of a SHA-1 over the sorted member IDs, which hash --initial-cluster-token
// among others), and etcd-druid compares the IDs its sidecars write into the member Leases
// ("<memberID>:<clusterID>:<role>"). hasim's: FNV-1a over druid's token "etcd-cluster" and
// the member IDs 1..members, never 0. A restored cluster reports its own (nonzero) ID.
std::uint64_t bootstrap_cluster_id(std::size_t members);

class EtcdMember final : public Process {
 public:
  // The member's KV server, for tests and status probes.
  const KvServer& kv() const { return kv_; }
  static constexpr std::string_view kVolume = "data";

  EtcdMember(EtcdConfig config, raft::PeerId id);
  ~EtcdMember() override;

  void on_start(Env& env) override;
  void on_message(Env& env, ProcessId from, const Message& message) override;
  void on_timer(Env& env, TimerId timer, std::uint64_t tag) override;
  void on_io(Env& env, const IoCompletion& io) override;
  // SIGTERM: etcd's Stop, which hands leadership over first (member_clients.cpp).
  void on_terminate(Env& env) override;

 private:
  enum class Phase : std::uint8_t { idle, writing, snapshot_file, snapshot_cut };

  template <typename F>
  void guarded(Env& env, F&& body);
  void start_member(Env& env);
  void handle_timer(Env& env, std::uint64_t tag);
  void handle_message(Env& env, ProcessId from, const Message& message);
  void handle_io(Env& env, const IoCompletion& io);

  void recover(Env& env);
  raft::Config raft_config(Env& env);
  Duration first_tick(Env& env) const;
  void pump(Env& env);
  void start_ready(Env& env);
  void write_ready(Env& env, const raft::Ready& rd);
  void finish_ready(Env& env);
  void send(Env& env, std::vector<raft::Message>& messages);
  void send_vote_requests(Env& env, std::vector<raft::Message>& messages);
  void apply(Env& env, const std::vector<raft::Entry>& entries);
  void install(const raft::Snapshot& snapshot);
  void trace_persist(Env& env, const raft::Ready& rd);
  void trace_state(Env& env, const raft::SoftState& soft);
  void append(Env& env, std::string_view file, std::string record, std::uint64_t what);
  void fsync(Env& env, std::string_view file, std::uint64_t what);
  std::uint64_t current_segment() const { return firstSegment_ + segmentStarts_.size() - 1; }
  // current_segment()'s file name, built again only when the segment changes (every
  // durable Ready writes to it).
  const std::string& current_segment_name();
  void maybe_snapshot(Env& env);
  void cut_segment(Env& env);
  void finish_snapshot(Env& env);
  void propose(Env& env);
  std::string state_machine_data() const;
  // The KV server's adapter (member_kv.cpp): requests, timers, and its outbox.
  void on_kv_request(Env& env, ProcessId from, const KvRequest& request);
  void on_kv_timer(Env& env, std::uint64_t tag);
  bool on_kv_message(ProcessId from, const MessageBody& message);  // a watch or status call
  void kv_ready(Env& env, const raft::Ready& rd);
  void flush_kv(Env& env);
  void trace_kv_events(Env& env);
  // While the KV server defragments, committed entries (and an installed snapshot's state)
  // wait in stalled_, in order, as etcd's applyAll jobs wait behind the one blocked on the
  // backend; resume_applies applies them once it is done.
  bool applies_stalled() const { return kv_.defragmenting() || !stalled_.empty(); }
  void resume_applies(Env& env);
  // The member API and the rest of etcd's membership handling (member_membership.cpp).
  bool standby() const { return id_ > config_.members.size(); }
  bool refuses_to_start(Env& env);
  void on_member_request(Env& env, ProcessId from, const MemberRequest& request);
  // A client's member API call (member_clients.cpp).
  void serve_member_client(Env& env, ProcessId from, const MemberRequest& request);
  void forward_member_request(Env& env, ProcessId client, const MemberRequest& request);
  std::vector<MemberInfo> member_list() const;
  bool is_learner() const;
  std::uint64_t reported_cluster_id() const { return wireCluster_; }
  void set_cluster(std::uint64_t cluster);
  void recover_cluster(const Replayed& replayed);
  void update_kv_membership() { kv_.set_membership(reported_cluster_id(), is_learner()); }
  std::string published_name() const;
  void publish();
  // Peers' processes (member_clients.cpp): peers_ caches them by raft ID - 1; a miss
  // (an ID added later) asks the directory.
  void resolve_peers(Env& env);
  bool resolve_peer(raft::PeerId id);
  void conf_change_applied(Env& env, const raft::ConfChange& cc);
  raft::Snapshot merged_snapshot();

  EtcdConfig config_;
  raft::PeerId id_;
  raft::MemoryStorage storage_;
  std::unique_ptr<raft::RawNode> node_;
  TagSpace ticks_, io_, client_;
  Phase phase_ = Phase::idle;
  // By raft ID - 1, kUnresolved where no address is known (yet).
  static constexpr ProcessId kUnresolved = ~ProcessId{0};
  std::vector<ProcessId> peers_;
  bool published_ = false;  // this incarnation applied an entry: it has started (publish)
  // Disk operations issued and not yet completed: the Ready's, the snapshot's.
  std::uint64_t pending_ready_ = 0;
  std::uint64_t pending_snapshot_ = 0;
  raft::HardState hardState_;  // the last one written
  // The WAL encoder's buffer: what a Save wrote and no sync has flushed yet. A crash loses
  // it with the process (a restart is a new EtcdMember).
  WalEncoder encoder_;
  std::optional<raft::Ready> ready_;  // the Ready being made durable
  bool leader_ = false;               // as of the last SoftState (etcd raftNode's islead)
  raft::ConfState confState_;
  raft::Index applied_ = 0;
  raft::Index snapshotIndex_ = 0;  // of the last snapshot taken or installed
  std::uint64_t stateHash_ = 0;    // the state machine: a hash chained over applied data
  // WAL segments firstSegment_, firstSegment_ + 1, ...: segmentStarts_[i] is the first index
  // segment firstSegment_ + i may hold; appends go to the last.
  std::uint64_t firstSegment_ = 0;
  std::vector<raft::Index> segmentStarts_;
  std::optional<std::uint64_t> namedSegment_;  // the segment segmentName_ names
  std::string segmentName_;
  std::optional<raft::Snapshot> snapshotting_;  // the snapshot being saved
  std::uint64_t neededSegment_ = 0;             // the oldest segment it still needs
  std::uint64_t proposals_ = 0;
  std::unique_ptr<MemberApi> api_;
  KvServer kv_;
  KvOutbox kvOut_;
  TagSpace kvTimers_;
  TagSpace removal_;   // the stop a second after this member's removal applied
  TagSpace shutdown_;  // a graceful stop waiting for its leadership transfer
  LocalTime shutdownStart_{};
  LocalTime shutdownDeadline_{};
  raft::PeerId shutdownTransferee_ = 0;
  void start_shutdown(Env& env);
  void shutdown_poll(Env& env);
  bool dead_ = false;  // raft panicked: the process is exiting
  // The cluster ID of the data directory's WAL metadata (0: the scenario's bootstrap), and
  // the peers whose messages were refused for another cluster's ID (traced once each).
  std::uint64_t clusterId_ = 0;
  // What the member says its cluster is, on the wire and in its answers: clusterId_, or for a
  // bootstrap cluster the ID its initial cluster hashes to (bootstrap_cluster_id), as etcd
  // derives it from the initial members (membership.NewClusterFromURLsMap): rafthttp refuses
  // a peer's message carrying another (X-Etcd-Cluster-ID).
  std::uint64_t wireCluster_ = 0;
  std::set<raft::PeerId> refusedPeers_;
  bool refuse_cluster(Env& env, const RaftMessage& message);
  struct StalledApply {
    std::optional<raft::Snapshot> snapshot;  // to install first
    std::vector<raft::Entry> entries;
  };
  std::deque<StalledApply> stalled_;
  std::uint64_t stalledEntries_ = 0;
  static constexpr std::uint64_t kMaxStalledEntries = 10'000'000;
};

}  // namespace hasim::etcd
