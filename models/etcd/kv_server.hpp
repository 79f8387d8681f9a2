#pragma once
// The KV server inside an etcd member (server/etcdserver/v3_server.go, server.go apply),
// over the member's RawNode and the MVCC store (models/etcd/mvcc/). Pure: no Env. The member
// (member.cpp) hands it requests, timers, Ready read states, leader changes and committed
// entries, and carries out what it asks for through a KvOutbox (replies, timers).
//
// Modelled as etcd does it:
//  - writes (Put, DeleteRange, a Txn that writes, Compact): the API layer's checks
//    (v3rpc/key.go checkTxnRequest), the quota gate (v3rpc/quota.go: over quota the member
//    proposes a NOSPACE alarm and answers "database space exceeded"), then
//    processInternalRaftRequestOnce: refused with ErrTooManyRequests while the committed
//    index runs more than 5000 ahead of the applied one, else proposed as an encoded
//    InternalRaftRequest with a wait on its id, answered with the applier's result when this
//    member applies it, or after ReqTimeout (config.go: 5 s + 2 x election timeout) with
//    ErrTimeout, or ErrTimeoutDueToLeaderFail when a leader was elected within two election
//    timeouts after the request started (parseProposeCtxErr). raft's node.go does not take
//    proposals while it knows no leader: they wait (here: are proposed again once a leader
//    is known) and so time out if none comes.
//  - linearizable reads (Range, a read-only Txn): linearizableReadLoop and
//    requestCurrentIndex (v3.6). One batch at a time; reads that arrive meanwhile wait for
//    the next. A batch sends ReadIndex with a fresh 8-byte id, again with a new id every
//    500 ms (readIndexRetryTime) and when this member applies a new leader's empty entry
//    (firstCommitInTerm), accepting the read state of any of its ids; it fails with
//    ErrLeaderChanged when a new leader becomes known (losing one is not news: a cut-off
//    follower's reads wait), with ErrTimeout after ReqTimeout;
//    then it waits until applied >= the read index and is served from the local store.
//  - serializable reads: served from the local store at once, however far it lags.
//  - watches (kv_server_watch.cpp): a KvWatch registers a watcher on the member's
//    WatchableStore; after every apply the member drains the watches and sends what they
//    have; syncWatchersLoop runs every 100 ms and syncVictimsLoop every 10 ms while the
//    member has watches (victims), so a compacted start revision's cancel reaches the client.
//  - Defragment (kv_server_defrag.cpp; server/storage/backend/backend.go defrag): the
//    backend is locked (batchTx, b.mu, readTx) while bbolt copies what is in use into a new
//    file: nothing is applied (the member queues its committed entries: applyAll waits on
//    the batchTx lock, and the FIFO scheduler holds the rest behind it), no read is served
//    from the store, the watch sync loops wait; raft goes on (raft.go's loop hands entries
//    to applyc and never waits for them, but for a follower's conf change), so the member
//    keeps its role, heartbeats, votes and appends to its WAL. Writes it receives are
//    proposed and committed but answered only once applied, so they time out after
//    ReqTimeout if the copy takes longer; once commit runs 5000 entries ahead of apply it
//    refuses writes with ErrTooManyRequests. Status waits too (v3.6 maintenance.go Status
//    reads the storage version: server.go StorageVersion -> DetectSchemaVersion takes the
//    readTx lock). The copy takes defrag_duration(); then dbSize shrinks to dbSizeInUse, a
//    queued Defragment starts, and the stalled reads and Status calls are answered.
// Not modelled: ErrTimeoutDueToConnectionLost (rafthttp's connected-since), the client's
// own deadline on a read waiting for apply, leases, auth, watch progress notifications,
// watch filters, moving watchers back to unsynced when a snapshot replaces the store
// (watchable_store.go restore), a follower's raft loop waiting for a committed conf change
// to be applied while its member defragments, the disk bandwidth a defrag takes from the
// WAL, and --experimental-stop-grpc-service-on-defrag (off by default).
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/etcd/kv_api.hpp"
#include "models/etcd/mvcc/apply.hpp"
#include "models/etcd/mvcc/kv_store.hpp"
#include "models/etcd/mvcc/quota.hpp"
#include "models/raft/rawnode.hpp"
#include "sim/time.hpp"

namespace hasim::etcd {

// The defragmentation model: a fixed cost (creating and opening the temporary bbolt file,
// the copy's last commit and fdatasync, the rename, reopening and mmapping the new file)
// plus the data in use (what defragdb copies, key by key, committing every 10,000) at a
// sequential rate. 256 MiB/s fits what operators report: a 4.1 GB member defragments in
// about 15 s (etcd-io/etcd#20952), reads on a ~950 MB member whose data in use was ~600 MB
// waited 1.9-2.6 s during its defrag (gardener/etcd-backup-restore#1052), and small
// databases take well under a second (OpenShift's etcd performance docs).
inline constexpr std::int64_t kDefaultDefragBytesPerSecond = std::int64_t{256} * 1024 * 1024;
inline constexpr Duration kDefragFixedCost = milliseconds(10);
Duration defrag_duration(std::int64_t db_size_in_use, std::int64_t bytes_per_second);

// A defragmentation started or finished, for the member's trace.
struct DefragEvent {
  bool finished = false;
  std::int64_t db_size = 0;  // before (started) or after (finished)
  std::int64_t db_size_in_use = 0;
  Duration took{};  // started: the copy's expected duration; finished: how long it took
};

// A NOSPACE alarm applied that changed the alarm list (raised or disarmed).
struct AlarmEvent {
  bool activated = false;
  std::uint64_t member_id = 0;
};

struct KvServerConfig {
  std::uint64_t member_id = 0;
  Duration election_timeout = milliseconds(1000);
  std::int64_t quota_backend_bytes = 0;  // --quota-backend-bytes (0: 2 GiB)
  // How fast bbolt copies the data in use into the new file (defrag_duration).
  std::int64_t defrag_bytes_per_second = kDefaultDefragBytesPerSecond;
  // config.go ReqTimeout.
  Duration request_timeout() const { return Duration{5'000'000'000 + 2 * election_timeout.ns}; }
};

// What the server asks of its member: replies to send, timers to set (local values < 2^56).
struct KvOutbox {
  std::vector<std::pair<ProcessId, std::shared_ptr<KvResponse>>> replies;
  std::vector<std::pair<ProcessId, Message>> events;  // watch and status responses
  std::vector<std::pair<Duration, std::uint64_t>> timers;
  std::vector<DefragEvent> defrags;  // for the trace
  std::vector<AlarmEvent> alarms;    // for the trace
  // Nothing to send, set or trace: the member's flush after every event has nothing to do.
  bool empty() const {
    return replies.empty() && events.empty() && timers.empty() && defrags.empty() &&
           alarms.empty();
  }
};

class KvServer {
 public:
  // etcd: maxGapBetweenApplyAndCommitIndex; linearizableReadLoop's readIndexRetryTime.
  static constexpr std::uint64_t kMaxGapApplyCommit = 5000;
  static constexpr Duration kReadIndexRetry = milliseconds(500);
  static constexpr std::size_t kMaxWaits = 100'000;  // requests in flight at most
  static constexpr std::size_t kMaxWatches = 10'000;
  static constexpr std::size_t kMaxReadIds = 1'000;  // ReadIndex ids of one batch kept
  // watchable_store.go: syncWatchersLoop's 100 ms, syncVictimsLoop's 10 ms.
  static constexpr Duration kSyncWatchersInterval = milliseconds(100);
  static constexpr Duration kSyncVictimsInterval = milliseconds(10);
  // Timer values: a kind in the bits from kTimerKindShift, a sequence number below.
  static constexpr int kTimerKindShift = 52;
  static constexpr std::uint64_t kSyncWatchers = 4;
  static constexpr std::uint64_t kSyncVictims = 5;
  static constexpr std::uint64_t kDefragDone = 6;
  static constexpr std::size_t kMaxDefrags = 64;  // Defragment calls waiting at most

  explicit KvServer(KvServerConfig config);
  void set_node(raft::RawNode* node) { node_ = node; }
  // What the member's applied membership says of it: its cluster's ID (response headers)
  // and whether it is a learner (Status).
  void set_membership(std::uint64_t cluster_id, bool is_learner) {
    clusterId_ = cluster_id;
    isLearner_ = is_learner;
  }
  // Seeds request ids from the member's wall clock when it starts (idutil.NewGenerator).
  void seed_ids(LocalTime wall_now);

  void on_request(LocalTime now, ProcessId from, const KvRequest& request, KvOutbox& out);
  void on_timer(std::uint64_t local, KvOutbox& out);
  void on_watch(ProcessId from, const KvWatch& request, KvOutbox& out);
  // The client's connection closed (its process stopped): its gRPC watch stream ends, and
  // with it every watch it opened (v3rpc/watch.go: the stream's recvLoop fails and
  // serverWatchStream.close cancels its watchers). A restarted client opens new ones.
  void on_client_gone(ProcessId client);
  void on_status(ProcessId from, const KvStatusRequest& request, KvOutbox& out);
  void on_leader(LocalTime now, raft::PeerId lead, KvOutbox& out);
  void on_read_states(const std::vector<raft::ReadState>& states, KvOutbox& out);
  // A committed normal entry's data: false if it is not an encoded request (the caller's).
  bool apply(std::string_view data, KvOutbox& out);
  // Everything up to `applied` is applied (entries or a snapshot): waiting reads may go.
  void applied_to(raft::Index applied, KvOutbox& out);
  // An empty entry (a new leader's first of its term) was applied.
  void on_first_commit_in_term(KvOutbox& out);
  // The backend is locked by a defragmentation: the member must not apply (apply,
  // applied_to, on_first_commit_in_term, restore) until this is false again.
  bool defragmenting() const { return !defrags_.empty(); }

  // The snapshot's share of the store (kv_snapshot.hpp); empty() when there is nothing to
  // carry (a store nobody wrote), so that snapshots of request-free runs keep their bytes.
  bool empty() const;
  std::string snapshot_data() const;
  void restore(std::string_view data);

  const mvcc::KvStore& store() const { return store_; }
  const mvcc::Applier& applier() const { return applier_; }
  KvStatus status() const;
  std::size_t waiting() const { return waits_.size(); }
  std::size_t watches() const { return watches_.size(); }

 private:
  struct Wait {
    ProcessId client = 0;
    std::uint64_t client_id = 0;
    KvOp op = KvOp::put;
    LocalTime start{};
  };
  struct Read {
    ProcessId client = 0;
    std::uint64_t client_id = 0;
    KvOp op = KvOp::range;
    mvcc::RangeRequest range;
    mvcc::TxnRequest txn;
  };
  enum class ReadPhase : std::uint8_t { idle, index, apply };

  void write(LocalTime now, ProcessId from, const KvRequest& request, KvOutbox& out);
  void propose(std::string data, std::uint64_t id, bool waited);
  void read(ProcessId from, const KvRequest& request, KvOutbox& out);
  void start_read_batch(KvOutbox& out);
  void send_read_index(KvOutbox& out);
  void fail_read_batch(std::string_view error, KvOutbox& out);
  void serve(const Read& read, KvOutbox& out);
  void timeout(std::uint64_t id, KvOutbox& out);
  std::shared_ptr<KvResponse> response(std::uint64_t client_id, KvOp op) const;
  void reply(KvOutbox& out, ProcessId to, std::shared_ptr<KvResponse> r) const;
  void refuse(KvOutbox& out, ProcessId to, const KvRequest& request, std::string_view error);

  void defragment(ProcessId from, const KvRequest& request, KvOutbox& out);
  void snapshot(ProcessId from, const KvRequest& request, KvOutbox& out);
  void start_defrag(KvOutbox& out);
  void finish_defrag(KvOutbox& out);

  void flush_watches(KvOutbox& out);
  void watch_timer(std::uint64_t kind, KvOutbox& out);
  void arm_watch_timers(KvOutbox& out);
  ResponseHeader header() const;

  KvServerConfig config_;
  raft::RawNode* node_ = nullptr;
  mvcc::KvStore store_;
  mvcc::Applier applier_{store_};
  mvcc::WatchableStore watchable_{store_};
  struct WatchOwner {
    ProcessId client = 0;
    std::uint64_t watch_id = 0;
  };
  std::map<mvcc::WatchId, WatchOwner> watches_;
  bool syncArmed_ = false, victimsArmed_ = false;
  mvcc::BackendQuota quota_;
  raft::PeerId lead_ = 0;
  LocalTime leadElected_{};
  raft::Index applied_ = 0;
  std::uint64_t idPrefix_ = 0;  // the member id (below 2^16), above the suffix
  std::uint64_t nextId_ = 0;    // the last request id's 48-bit suffix
  std::uint64_t next_id();
  std::map<std::uint64_t, Wait> waits_;  // by InternalRaftRequest id
  // Proposals raft dropped for want of a leader, proposed again when one is known.
  struct Blocked {
    std::uint64_t id = 0;
    std::string data;
    bool waited = false;  // a client waits on it (not a NOSPACE alarm)
  };
  std::deque<Blocked> blocked_;
  // linearizableReadLoop: the batch being confirmed and the next one.
  std::vector<Read> batch_, nextBatch_;
  ReadPhase readPhase_ = ReadPhase::idle;
  std::uint64_t readBatch_ = 0;    // batches started
  std::uint64_t readCtx_ = 0;      // ReadIndex ids sent
  std::uint64_t retryGen_ = 0;     // retry timer resets
  std::set<std::string> readIds_;  // the current batch's ids (requestIDs)
  raft::Index readIndex_ = 0;
  // Defragment calls: the front one runs (for defragTook_), the others wait for the batchTx
  // lock; reads that came while it runs wait for the backend.
  struct Defrag {
    ProcessId client = 0;
    std::uint64_t client_id = 0;
  };
  std::deque<Defrag> defrags_;
  Duration defragTook_{};
  std::uint64_t defragSeq_ = 0;
  std::vector<Read> stalledReads_;
  std::uint64_t clusterId_ = 0;
  bool isLearner_ = false;
  std::vector<std::pair<ProcessId, std::uint64_t>> stalledStatus_;  // (client, client_id)
  std::vector<std::pair<ProcessId, std::uint64_t>> stalledSnapshots_;  // (client, client_id)
};

}  // namespace hasim::etcd
