// etcd-druid's check half (properties/check_system.hpp): status-truth:BOUND,
// no-superfluous-members:SETTLE and backup-chain (quorum-recovery and no-lost-write, which
// read druid's members and restores too, are the etcd system's), pdb-safe, and druid's fault
// choices (check_choices.cpp).
#include "properties/druid/check.hpp"

#include "properties/druid/backup_chain.hpp"
#include "properties/druid/pdb_safe.hpp"
#include "properties/druid/no_superfluous_members.hpp"
#include "properties/druid/status_truth.hpp"

namespace hasim {
namespace {

std::unique_ptr<Property> status_truth(const std::string& spec, std::optional<Duration> bound) {
  return std::make_unique<StatusTruth>(spec, bound.value());
}

std::unique_ptr<Property> no_superfluous_members(const std::string& spec,
                                                 std::optional<Duration> settle) {
  return std::make_unique<NoSuperfluousMembers>(spec, settle.value());
}

std::unique_ptr<Property> pdb_safe(const std::string& spec, std::optional<Duration>) {
  return std::make_unique<PdbSafe>(spec);
}

std::unique_ptr<Property> backup_chain(const std::string& spec, std::optional<Duration>) {
  return std::make_unique<BackupChain>(spec);
}

}  // namespace

const CheckSystem& druid_check_system() {
  static const CheckSystem system{
      "etcd-druid",
      {
          {{"status-truth", "BOUND",
            "druid's Etcd status matches ground truth within upstream's thresholds: a member "
            "whose etcd has not served in a quorate cluster (stopped, paused, removed from the "
            "configuration, or without a quorum) for more than UnknownThreshold 1m + status "
            "sync 15s + heartbeat 10s + BOUND is not reported Ready, one serving in a quorate "
            "cluster for more than heartbeat 10s + sync 15s + BOUND is; "
            "the Ready condition is True iff more than half of etcd's voters serve, with the "
            "same allowances",
            "druid's defaults (UnknownThreshold 1m, status sync 15s, member-lease heartbeat "
            "10s); BOUND covers apiserver round trips, the sidecar's leading loop and clock "
            "skew; a member stopped by a fault stays judged by the same rules"},
           status_truth},
          {{"no-superfluous-members", "SETTLE",
            "once nothing has changed for SETTLE (no pod created, deleted or scheduled, no "
            "replicas change, no etcd configuration change or etcd start), etcd's member list "
            "has as many members as spec.replicas and each is the member of an existing pod",
            "the bootstrap members are IDs 1..N for the StatefulSet's first replicas N (the "
            "sidecar's ordinal + 1); a restore from the backup store starts a one-member "
            "cluster; replicas 0 (hibernation) is not judged"},
           no_superfluous_members},
          {{"backup-chain", "",
            "every delta snapshot the backup store accepts starts one revision after the "
            "snapshot saved before it (a full snapshot starts a new chain), so a restore of the "
            "latest full snapshot and its deltas reaches the last delta's revision",
            "etcd-backup-restore's restorer applies deltas in order and checks each ends at its "
            "last revision; a gap or an overlap makes it fail"},
           backup_chain},
          {{"pdb-safe", "",
            "no eviction the API server grants (kubectl drain, the cluster autoscaler) leaves "
            "no more than half of etcd's voters serving when more than half served before it",
            "druid's PodDisruptionBudget (minAvailable n/2+1) and the eviction subresource; "
            "the budget counts Ready pods, which lag a stopped member by the readiness probe"},
           pdb_safe},
      },
      druid_fault_choices(),
      druid_fill_space,
      druid_forbids,
      druid_broken,
  };
  return system;
}

}  // namespace hasim
