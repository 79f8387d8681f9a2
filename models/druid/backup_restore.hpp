#pragma once
// The etcd-backup-restore sidecar of an etcd-druid pod, as a process: the server the etcd
// container's wrapper talks to, the initializer, the member-lease heartbeat and the
// leading-sidecar loop with learner promotion (gardener/etcd-backup-restore, pkg/server,
// pkg/initializer, pkg/member, pkg/health/heartbeat, pkg/leaderelection). Every decision is
// one of the pure units beside it (sidecar_initializer, sidecar_validator,
// sidecar_cluster_state, sidecar_leading, sidecar_heartbeat, sidecar_member_ops); this file
// makes the calls they decide on and waits for the answers:
//  - etcd calls about the cluster (probe, member list, add-as-learner, remove, promote) go to
//    the client Service (--service-endpoints: one ready member, picked per call); Status
//    goes to the pod's own etcd (--endpoints: the "<etcd>-local" host alias);
//  - the member Lease is read and written through the kube-apiservers;
//  - the data directory is the pod's data volume, which it shares with the etcd container.
//  - the leading sidecar's snapshotter (backup_restore_snapshots.cpp) takes full and delta
//    snapshots of its own member to the object store and renews the snapshot Leases, and its
//    garbage collector deletes old ones (backup_restore_gc.cpp);
//  - restores from the store (backup_restore_restore.cpp) and defragmentation (sidecar_defrag).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/apiserver/client.hpp"
#include "models/druid/etcd_resource.hpp"
#include "models/druid/etcd_wrapper.hpp"
#include "models/druid/proposal_init_table.hpp"
#include "models/druid/sidecar_gc.hpp"
#include "models/druid/sidecar_initializer.hpp"
#include "models/druid/sidecar_leading.hpp"
#include "models/druid/sidecar_member_ops.hpp"
#include "models/druid/snapshot_restorer.hpp"
#include "models/druid/snapstore.hpp"
#include "models/etcd/membership.hpp"
#include "sim/env.hpp"

namespace hasim::druid {

// The backup settings druid passes the sidecar (statefulset/builder.go
// getBackupStoreCommandArgs) when the Etcd has spec.backup.store.
struct SnapshotterSettings {
  ProcessId store = 0;  // the object-storage service (models/druid/snapstore.hpp)
  Duration deltaSnapshotPeriod = sidecar::kDefaultDeltaSnapshotInterval;  // --delta-snapshot-period
  std::string fullSnapshotSchedule =
      std::string(sidecar::kDefaultFullSnapshotSchedule);  // --schedule
  // --delta-snapshot-memory-limit: druid's defaultSnapshotMemoryLimit, 100 MiB.
  std::int64_t deltaSnapshotMemoryLimit = std::int64_t{100} << 20;
  std::string fullSnapshotLease;   // --full-snapshot-lease-name: "<etcd>-full-snap"
  std::string deltaSnapshotLease;  // --delta-snapshot-lease-name: "<etcd>-delta-snap"
  // Garbage collection (druid: --garbage-collection-policy, LimitBased unless the Etcd names
  // one, with --max-backups; --garbage-collection-period and
  // --delta-snapshot-retention-period only when the Etcd sets them: backup-restore's 1m, 0).
  sidecar::GcPolicy gcPolicy = sidecar::GcPolicy::LimitBased;
  std::int64_t maxBackups = sidecar::kDefaultMaxBackups;
  Duration gcPeriod = sidecar::kDefaultGarbageCollectionPeriod;
  Duration deltaRetention{};
};

struct BackupRestoreConfig {
  std::shared_ptr<PodContainers> pod;
  // len(initial-cluster) in the pod's mounted etcd config now: druid's ConfigMap, which
  // follows the Etcd's spec.replicas (models/druid/etcd_resource.hpp). Read as upstream reads
  // the file: once when the server starts (OriginalClusterSize: the promote callback), at
  // each Initialize (IsMultiNode; hasim's validator takes the same reading) and at each
  // /config (serveConfig).
  std::function<int()> clusterSize;
  // The client Service's ready endpoints now (etcd processes), for --service-endpoints.
  std::function<std::vector<ProcessId>()> serviceEndpoints;
  // etcd's member list as the peer URLs find it: the ID a learner is added with, and where
  // its peers reach it (etcd: its peer URL).
  std::shared_ptr<etcd::MemberDirectory> directory;
  api::ApiClientConfig apiserver;            // timer_tags is set by the process
  std::string leaseNamespace;                // the member Lease: named after the pod
  Duration heartbeatInterval = seconds(10);  // --k8s-heartbeat-duration (druid's default)
  Duration reelectionPeriod = sidecar::kDefaultReelectionPeriod;
  std::optional<SnapshotterSettings> backup;  // none: no backup store (no snapshotter)
  // Mode `proposal` (seed 004): Initialize runs the seed's initialization table over the Etcd's
  // status, which the sidecar reads through the API server (a GET of the Etcd, whose content
  // is `etcdStatus`); the leading sidecar removes etcd members beyond the ConfigMap's size.
  DruidMode mode = DruidMode::upstream;
  std::string etcdName;
  std::function<EtcdStatusView()> etcdStatus;
};

// The file on the data volume that holds the member ID a learner was added with: what etcd
// keeps in its WAL's metadata record (NodeID). A member of the bootstrap cluster has none:
// its ID follows from its place in initial-cluster (ordinal + 1).
inline constexpr std::string_view kMemberIdFile = "member-id";

// brtypes.DefaultEtcdConnectionTimeout: the deadline of RemoveMember's and IsLearnerPresent's
// calls (the probes and retried calls use member_control.go's EtcdTimeout, 5 s).
inline constexpr Duration kEtcdConnectionTimeout = seconds(30);

// A sidecar timer's local value: its kind above kTagKindShift, a sequence number below.
inline constexpr unsigned kTagKindShift = 40;
std::uint64_t local_tag(std::uint64_t kind, std::uint64_t seq);
// A Maintenance Status call carrying `id` as its client_id (the heartbeat, the leading loop,
// the snapshotter's probe).
std::shared_ptr<MessageBody> status_request(std::uint64_t id);
// A Cluster API member call (list, add-learner, promote, remove) carrying `id` as its client_id.
std::shared_ptr<MessageBody> member_request(etcd::MemberOp op, raft::PeerId target,
                                            std::uint64_t id);

class BackupRestore final : public Process {
 public:
  explicit BackupRestore(BackupRestoreConfig config);
  ~BackupRestore() override;

  void on_start(Env& env) override;
  void on_message(Env& env, ProcessId from, const Message& message) override;
  void on_timer(Env& env, TimerId timer, std::uint64_t tag) override;
  void on_io(Env& env, const IoCompletion& io) override;

  // What one etcd call returned: ok, or the error text; a member list's members.
  struct Answer {
    bool ok = false;
    std::string error;
    std::vector<etcd::MemberInfo> members;
    etcd::KvStatus status;
    std::int64_t revision = 0;  // a KV call's header revision
    std::string backend;        // Maintenance Snapshot's stream
    std::int64_t backendSize = 0;
    std::vector<StoredSnapshot> listed;  // an object-store call's listing
  };
  using Done = std::function<void(Env&, const Answer&)>;
  // Makes a call's request carrying `id` as its client_id.
  using MakeRequest = std::function<std::shared_ptr<MessageBody>(std::uint64_t id)>;

 private:
  enum Timer : std::uint64_t {
    kCallTimeout,
    kRetry,
    kHeartbeat,
    kLeading,
    kFileWritten,
    kRestoreIo,  // a restore's disk writes (an IoCompletion tag, not a timer)
  };
  // The backup store as Initialize reads it.
  struct SnapstoreView {
    bool configured = false;
    bool readable = true;
    bool empty = true;
    bool has_deltas = false;  // deltas follow the latest full snapshot
    std::int64_t latest_revision = 0;
  };
  // backup_restore.cpp: the server and Initialize.
  void serve_status(Env& env);
  void serve_config(Env& env);
  void initialize(Env& env, ValidationMode mode);
  void after_presence(Env& env, sidecar::MemberListRead list);
  void validate_and_decide(Env& env, sidecar::MemberListRead list, sidecar::MemberLeaseRead lease);
  void act(Env& env, const sidecar::InitDecision& decision);
  void add_learner(Env& env, sidecar::Backoff backoff, bool repair);
  void add_learner_attempt(Env& env, raft::PeerId id, sidecar::Backoff backoff, bool repair);
  void remove_self(Env& env, sidecar::Backoff backoff);
  void finish_init(Env& env, bool ok, std::string_view why);
  sidecar::DataDirStatus validate_data_dir(Env& env, const SnapstoreView& store) const;
  // backup_restore_proposal.cpp: the seed's initialization table, and the superfluous members.
  void proposal_initialize(Env& env);
  void proposal_decide(Env& env, const EtcdStatusView& status, const SnapstoreView& store);
  void proposal_act(Env& env, const proposal::InitAction& action);
  void remove_superfluous(Env& env);
  // backup_restore_restore.cpp: the store in Initialize, and the restore.
  void read_snapstore(Env& env, std::function<void(Env&, const SnapstoreView&)> done);
  void decide(Env& env, sidecar::MemberListRead list, sidecar::MemberLeaseRead lease,
              const SnapstoreView& store);
  void restore_from_store(Env& env);
  void write_restored_data_dir(Env& env, const RestoredBackend& restored, const std::string& name);
  void restore_io_done(Env& env);
  void wipe_data_dir(Env& env);
  raft::PeerId configured_member_id(Env& env) const;
  // backup_restore_calls.cpp: etcd calls with upstream's retries.
  void call(Env& env, const MakeRequest& make, std::optional<ProcessId> to, Done done,
            Duration timeout = sidecar::kEtcdTimeout);
  void call_with_retry(Env& env, MakeRequest request, bool local, sidecar::Backoff backoff,
                       Done done);
  void answer(Env& env, std::uint64_t id, const Answer& answer);
  std::optional<ProcessId> pick_endpoint(Env& env) const;
  void sleep_then(Env& env, Duration sleep, std::function<void(Env&)> then);
  void member_presence(Env& env, std::function<void(Env&, sidecar::MemberListRead)> done);
  void read_member_lease(Env& env, std::function<void(Env&, sidecar::MemberLeaseRead)> done);
  // backup_restore_loops.cpp: the member-lease heartbeat and the leading-sidecar loop.
  void heartbeat(Env& env);
  void schedule_heartbeat(Env& env);
  void write_lease(Env& env, const Answer& status);
  void leading_poll(Env& env);
  void promote(Env& env);

  int mounted_cluster_size() const;
  // backup_restore_snapshots.cpp: the snapshotter while this sidecar leads.
  void start_snapshotter(Env& env);
  void stop_snapshotter(Env& env);
  void reset_snapshotting();
  void snapshot_probe(Env& env);
  void after_probe(Env& env);
  void substitute_full_snapshot(Env& env);
  void run_snapshotter(Env& env);
  void start_event_handler(Env& env);
  void handler_done(Env& env);
  void on_delta_timer(Env& env);
  void on_full_timer(Env& env);
  void snapshotter_failed(Env& env, std::string_view why);
  void take_full_snapshot(Env& env, std::function<void(Env&, bool ok)> done);
  void take_delta_snapshot(Env& env, std::function<void(Env&, bool ok)> done);
  void upload(Env& env, StoredSnapshot snapshot, std::function<void(Env&, bool ok)> done);
  void taken_events_cleared(std::size_t taken);
  void handler_delta(Env& env, bool from_timer);
  void update_delta_lease_from(Env& env, const LatestSnapshots& latest);
  void collect_events(Env& env, std::function<void(Env&, bool ok)> done);
  void last_revision(Env& env, std::function<void(Env&, const Answer&)> done);
  void open_watch(Env& env, std::int64_t from);
  void close_watch(Env& env);
  void on_watch(Env& env, const etcd::KvWatchResponse& response);
  void arm_delta_timer(Env& env);
  void arm_full_timer(Env& env, std::optional<Duration> after);  // none: the cron's next
  void arm_full_lease_timer(Env& env, Duration after);
  // backup_restore_gc.cpp: RunGarbageCollector while Run runs.
  struct GcPass;
  void arm_gc_timer(Env& env);
  void gc_pass(Env& env);
  void gc_step(Env& env, const std::shared_ptr<GcPass>& pass);
  void gc_delete(Env& env, const std::shared_ptr<GcPass>& pass, std::size_t index, bool full);
  void gc_done(Env& env, const GcPass& pass, std::string_view error);
  void update_delta_lease(Env& env);
  void update_full_lease(Env& env, std::function<void(Env&, bool ok)> done);
  void store_call(Env& env, SnapstoreOp op, StoredSnapshot snapshot, Done done);
  bool full_snapshot_required(Env& env) const;
  void trace_snapshot(Env& env, const StoredSnapshot& s, std::string_view outcome);

  BackupRestoreConfig config_;
  TagSpace tags_;
  int originalClusterSize_ = 1;  // at the server's start (backuprestoreserver.go Run)
  int initClusterSize_ = 1;      // at the Initialize under way (IsMultiNode)
  ValidationMode initMode_ = ValidationMode::full;  // the wrapper's choice for it
  std::unique_ptr<api::ApiClient> api_;
  InitStatus status_ = InitStatus::New;
  bool initializing_ = false;
  struct Pending {
    Done done;
    TimerId timeout = 0;
  };
  std::map<std::uint64_t, Pending> calls_;                     // by call id (the client_id sent)
  std::map<std::uint64_t, std::function<void(Env&)>> sleeps_;  // retry sleeps, by local tag
  std::uint64_t nextCall_ = 1;
  std::uint64_t nextSleep_ = 1;
  std::function<void(Env&)> afterSync_;  // a file write waiting for its fsync
  std::size_t restoreIo_ = 0;            // a restore's writes not yet completed
  bool leaseRenewal_ = true;             // MemberLeaseCallbacks: running until the loop stops it
  std::uint64_t renewalGeneration_ = 0;  // a stop or restart of renewal retires its timers
  sidecar::LeadingState leading_ = sidecar::kInitialLeadingState;
  // The snapshotter (pkg/snapshot/snapshotter Snapshotter) and the probe loop's back-off.
  struct Snapshotting {
    std::uint64_t generation = 0;  // a new leading term or a stop retires older callbacks
    std::uint64_t run = 0;         // each Run, and each stop of one, retires its timers
    bool running = false;          // Run's event handler is live
    bool busy = false;             // the handler is taking a snapshot
    bool deltaDue = false;         // a timer fired while busy: taken once the handler is free
    bool fullDue = false;
    std::optional<StoredSnapshot> prevSnapshot;  // metadata only
    std::optional<StoredSnapshot> prevFull;
    std::vector<StoredSnapshot> prevDeltas;
    bool prevFullSucceeded = true;
    std::vector<etcd::mvcc::Event> events;  // since the previous snapshot
    std::int64_t eventBytes = 0;
    std::int64_t lastEventRevision = -1;
    std::uint64_t watch = 0;  // the watch's id; 0: none open
    std::uint64_t nextWatch = 1;
    std::function<void(Env&, bool)> collecting;  // CollectEventsSincePrevSnapshot's wait
    std::int64_t collectUntil = 0;
    std::uint64_t deltaTimer = 0, fullTimer = 0, fullLeaseTimer = 0;  // the armed ones
    std::string lastError;  // why the last snapshot failed
  } snap_;
  sidecar::ExponentialBackoff probeBackoff_;  // backoffConfig: lives as long as the server
  // Proposal mode: the configuration the last Initialize generated for etcd (its state, and an
  // initial-cluster of one for init case 7 with nothing to restore; 0: the ConfigMap's), and a
  // full snapshot owed after case 7 replayed deltas.
  std::optional<sidecar::ClusterState> proposalState_;
  int proposalInitialCluster_ = 0;
  bool fullSnapshotOwed_ = false;
  std::string lastInitCase_;  // the last decision traced (case, members, ready, clusterSize)
};

}  // namespace hasim::druid
