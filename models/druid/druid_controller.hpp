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
// Not built yet: the PDB, Services, the pod template's
// ConfigMap checksum (a changed initial-cluster rolls the existing pods upstream), and the
// proposal's decision table.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/apiserver/client.hpp"
#include "models/druid/backup_ready.hpp"
#include "models/druid/conditions.hpp"
#include "models/druid/etcd_resource.hpp"
#include "models/druid/member_status.hpp"
#include "sim/env.hpp"

namespace hasim::druid {

// spec.backup as druid's BackupReady reads it, with the Leases' names.
struct DruidBackupSpec {
  Duration deltaSnapshotPeriod{};                   // spec.backup.deltaSnapshotPeriod
  std::optional<std::string> fullSnapshotSchedule;  // spec.backup.fullSnapshotSchedule
  std::string fullSnapshotLease;                    // GetFullSnapshotLeaseName: "<etcd>-full-snap"
  std::string deltaSnapshotLease;                   // "<etcd>-delta-snap"
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
  };
  void write_status(Env& env, const StatusReads& reads);
  void patch_status(Env& env, std::shared_ptr<EtcdStatus> status, bool create);
  void commit_status(Env& env, EtcdStatus& status);
  void trace_members(Env& env, const std::vector<EtcdMemberStatus>& members) const;
  std::optional<BackupReadyVerdict> backup_ready(const StatusReads& reads, LocalTime now) const;
  std::string member_name(int ordinal) const;

  DruidControllerConfig config_;
  TagSpace tags_;
  std::unique_ptr<api::ApiClient> api_;
  bool reconciled_ = false;
  std::vector<EtcdMemberStatus> members_;  // status.members
  std::vector<Condition> conditions_;      // status.conditions
  bool statusBusy_ = false;                // a status step's reads or patch are under way
};

}  // namespace hasim::druid
