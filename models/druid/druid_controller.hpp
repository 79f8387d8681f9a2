#pragma once
// etcd-druid's Etcd controller as a process, mode `upstream` (internal/controller/etcd):
// the reconcile that creates one member Lease per replica (empty holderIdentity) and then
// the StatefulSet, and the status step every etcdStatusSyncPeriod (15 s) that reads the
// member Leases through the kube-apiservers and the pods' ContainersReady condition, and
// writes status.members and the conditions (internal/health: models/druid/member_status.hpp,
// conditions.hpp) into the Etcd's status through the API server. Each change of a member's
// status or of a condition the API server took is traced.
//
// The StatefulSet and its pods are the workload controllers' objects
// (scenarios/workloads/stateful_pods.hpp), which hasim keeps outside the apiserver: druid
// writes the set and reads a pod's condition through the two functions it is given. The Etcd
// itself is shared too (etcd_resource.hpp): a spec change arrives as EtcdSpecChanged and
// runs the reconcile again (scale-up: the new members' Leases, the ConfigMap, then the set's
// replicas; hibernation: the set to 0, the Leases kept, as memberlease.go's Sync never
// deletes one).
// With a backup store, druid also creates the full- and delta-snapshot Leases (snapshotlease
// component, before the ConfigMap and the StatefulSet), which the leading sidecar renews, and
// the status step reads them for BackupReady (check_backup_ready.go: backup_ready.hpp).
// In mode `proposal` (etcd->mode) the status step runs the seed's decision table instead
// (druid_proposal.cpp over proposal_druid_table.hpp).
// Not built yet: Services, and the pod template's ConfigMap checksum (a changed
// initial-cluster rolls the existing pods upstream).
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/apiserver/client.hpp"
#include "models/druid/backup_ready.hpp"
#include "models/druid/conditions.hpp"
#include "models/druid/etcd_resource.hpp"
#include "models/druid/member_status.hpp"
#include "models/druid/proposal_druid_table.hpp"
#include "sim/env.hpp"

namespace hasim::druid {

// spec.backup as druid's BackupReady reads it, with the Leases' names.
struct DruidBackupSpec {
  Duration deltaSnapshotPeriod{};                   // spec.backup.deltaSnapshotPeriod
  std::optional<std::string> fullSnapshotSchedule;  // spec.backup.fullSnapshotSchedule
  std::string fullSnapshotLease;                    // GetFullSnapshotLeaseName: "<etcd>-full-snap"
  std::string deltaSnapshotLease;                   // "<etcd>-delta-snap"
};

// The seed's grace periods (druid cases 7 and 9). The seed names them without values:
// unknownGracePeriod takes upstream's 5 min from Unknown to NotReady (MemberThresholds),
// notReadyGracePeriod is hasim's choice, a scenario option.
struct ProposalSettings {
  Duration unknownGracePeriod = minutes(5);
  Duration notReadyGracePeriod = minutes(2);
};

// The StatefulSet as druid's client reads it in proposal mode.
struct StatefulSetView {
  int replicas = 0;       // spec.replicas
  int readyReplicas = 0;  // status.readyReplicas
  bool anyPod = false;    // some pod of the set still exists (terminating ones included)
};

struct DruidControllerConfig {
  api::ApiClientConfig apiserver;  // timer_tags is set by the process
  std::string namespace_;          // the Etcd's namespace (its Leases and pods)
  std::string etcdName;            // "etcd-main": pods and member Leases "etcd-main-0", ...
  // The Etcd: druid reads spec.replicas at every reconcile and status step, and writes the
  // ConfigMap's initial-cluster size.
  std::shared_ptr<EtcdResource> etcd;
  Duration statusSyncPeriod = kDefaultEtcdStatusSyncPeriod;
  MemberThresholds thresholds;
  // Creates or updates the StatefulSet (the component's Sync): its replicas, and its template's
  // revision (druid::template_revision), whose image may fail to pull.
  std::function<void(int replicas, const std::string& revision, bool pullFails)> applyStatefulSet;
  // The ContainersReady condition of pod `ordinal` as druid's client reads it.
  std::function<PodContainersReady(int ordinal)> podContainersReady;
  std::optional<DruidBackupSpec> backup;  // none: no spec.backup.store
  // Proposal mode only: the table's settings, the set's state, a pod deletion, and the PDB
  // (whose minAvailable druid writes into etcd->proposalMinAvailable) told to resync.
  ProposalSettings proposal;
  std::function<StatefulSetView()> statefulSet;
  std::function<void(int ordinal)> deletePod;
  std::function<void()> budgetChanged;
};

class DruidController final : public Process {
 public:
  explicit DruidController(DruidControllerConfig config);
  ~DruidController() override;

  void on_start(Env& env) override;
  void on_message(Env& env, ProcessId from, const Message& message) override;
  void on_timer(Env& env, TimerId timer, std::uint64_t tag) override;

 private:
  enum Timer : std::uint64_t { kReconcile, kStatus };
  struct Round {  // one reconcile's Lease creations, for the spec of one generation
    int left = 0;
    bool failed = false;
    std::int32_t replicas = 0;
    std::int64_t generation = 0;
  };
  // One status step's reads: the member Leases, and the snapshot Leases with a backup store.
  struct StatusReads {
    int replicas = 0;
    int ordinals = 0;  // member Leases read: spec.replicas, more in proposal mode
    int pending = 0;
    std::vector<MemberLeaseObservation> members;
    SnapshotLease full;
    SnapshotLease delta;
  };
  void reconcile(Env& env);
  void create_lease(Env& env, const std::string& name, std::shared_ptr<Round> round);
  void sync_config_and_set(const Round& round);
  void status_step(Env& env);
  void read_lease(Env& env, int ordinal, std::shared_ptr<StatusReads> reads);
  void read_snapshot_lease(Env& env, const std::string& name, bool full,
                           std::shared_ptr<StatusReads> reads);
  // One step's status, computed, waiting for the API server to take it.
  struct EtcdStatus {
    std::vector<EtcdMemberStatus> members;
    std::vector<Condition> conditions;
    LocalTime computed{};
    std::int32_t cluster_size = 0;  // status.clusterSize (proposal mode)
  };
  void write_status(Env& env, const StatusReads& reads);
  void patch_status(Env& env, std::shared_ptr<EtcdStatus> status, bool create);
  void commit_status(Env& env, EtcdStatus& status);
  void trace_members(Env& env, const std::vector<EtcdMemberStatus>& members) const;
  bool proposal() const { return config_.etcd->mode == DruidMode::proposal; }
  // druid_proposal.cpp: the seed's table in place of upstream's status computation.
  void proposal_status(Env& env, const StatusReads& reads, EtcdStatus& status);
  void add_joined_members(Env& env, const StatusReads& reads, EtcdStatus& status) const;
  proposal::DruidObservation observe(const StatusReads& reads, const EtcdStatus& status,
                                     LocalTime now) const;
  bool apply_status_step(const proposal::DruidStep& step, const StatusReads& reads,
                         EtcdStatus& status, LocalTime now) const;
  void trace_case(Env& env, const proposal::DruidAction& action);
  void run_steps(Env& env, const StatusReads& reads, EtcdStatus& status,
                 std::vector<proposal::DruidStep> steps);
  bool waiting(const EtcdStatus& status) const;
  // druid_proposal_actions.cpp: what the table's steps do outside the status.
  void apply_world_step(Env& env, const proposal::DruidStep& step, const EtcdStatus& status);
  void lease_call(Env& env, int ordinal, api::Verb verb);
  void delete_pods(Env& env, const proposal::DeletePods& del, const EtcdStatus& status);
  void update_budget(Env& env, const proposal::DruidObservation& obs);
  void roll_out_when_healthy(Env& env, const proposal::DruidObservation& obs);
  bool proposal_reconcile(Env& env);
  void publish_status(const EtcdStatus& status);
  std::optional<BackupReadyVerdict> backup_ready(const StatusReads& reads, LocalTime now) const;
  std::string member_name(int ordinal) const;
  int member_ordinal(const std::string& member) const;  // member_name's inverse

  DruidControllerConfig config_;
  TagSpace tags_;
  std::unique_ptr<api::ApiClient> api_;
  bool reconciled_ = false;
  std::vector<EtcdMemberStatus> members_;  // status.members
  std::vector<Condition> conditions_;      // status.conditions
  bool statusBusy_ = false;                // a status step's reads or patch are under way
  // Proposal mode: status.clusterSize, a quorum-loss recovery's steps left after a wait, the
  // NotReady spell (its lastTransitionTime) in which each entry's pod was deleted (case 9
  // deletes once per spell), and the last quiet case traced (1 or none: traced on change).
  std::int32_t clusterSize_ = 0;
  std::vector<proposal::DruidStep> pendingSteps_;
  std::map<std::string, LocalTime> deletedInSpell_;
  proposal::DruidCase lastQuiet_ = proposal::DruidCase::Unclassified;
  bool specDeferred_ = false;         // a roll-out waits for full health
  std::map<int, bool> leaseDeletes_;  // member Leases being deleted: recreate afterwards?
  std::string appliedRevision_;       // the template druid last gave the StatefulSet
  std::string appliedImage_;          // and its image
  std::string lastCaseTraced_;        // the last case traced, with its steps
  // What a recovery's remaining steps wait for: its pods gone, or Ready member entries.
  enum class Gate { none, podsGone, readyMembers } gate_ = Gate::none;
  int gateCount_ = 0;
};

}  // namespace hasim::druid
