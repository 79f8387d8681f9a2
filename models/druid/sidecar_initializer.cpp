#include "models/druid/sidecar_initializer.hpp"

#include "sim/assert.hpp"

namespace hasim::druid::sidecar {

std::string_view name(InitAction action) {
  switch (action) {
    case InitAction::ScaleUpAddLearner:
      return "ScaleUpAddLearner";
    case InitAction::MemberRepair:
      return "MemberRepair";
    case InitAction::RestoreFromSnapshots:
      return "RestoreFromSnapshots";
    case InitAction::FreshStart:
      return "FreshStart";
    case InitAction::UseExistingData:
      return "UseExistingData";
    case InitAction::Fatal:
      return "Fatal";
  }
  HASIM_ASSERT(false);
}

std::string_view name(FatalReason reason) {
  switch (reason) {
    case FatalReason::None:
      return "None";
    case FatalReason::WrongVolumeMounted:
      return "WrongVolumeMounted";
    case FatalReason::BoltDBFileLock:
      return "BoltDBFileLock";
    case FatalReason::StatusUnknown:
      return "StatusUnknown";
    case FatalReason::SnapstoreError:
      return "SnapstoreError";
  }
  HASIM_ASSERT(false);
}

bool was_member_in_cluster(MemberListRead list, MemberLeaseRead lease) {
  // member_control.go WasMemberInCluster: the etcd answer wins when there is one; only an
  // error falls back to the member Lease, and only a nil holderIdentity means "never".
  if (list != MemberListRead::Unreadable) return list == MemberListRead::Present;
  return lease == MemberLeaseRead::HolderSet;
}

bool is_cluster_scaled_up(MemberListRead list) { return list == MemberListRead::Absent; }

namespace {

// restoreCorruptData / restoreWithEmptySnapstore: the snapstore is the source of truth, so an
// empty (or unconfigured) one means the data dir is removed and etcd starts fresh.
InitDecision restore_corrupt_data(const InitObservation& obs, InitDecision d) {
  switch (obs.snapstore) {
    case SnapstoreRead::NotConfigured:
    case SnapstoreRead::Empty:
      d.action = InitAction::FreshStart;
      d.wipe_data_dir = obs.data_dir_exists;
      return d;
    case SnapstoreRead::HasSnapshots:
      d.action = InitAction::RestoreFromSnapshots;
      return d;
    case SnapstoreRead::Unreadable:
      d.action = InitAction::Fatal;
      d.fatal = FatalReason::SnapstoreError;
      return d;
  }
  HASIM_ASSERT(false);
}

InitDecision fatal(InitDecision d, FatalReason reason) {
  d.action = InitAction::Fatal;
  d.fatal = reason;
  return d;
}

}  // namespace

namespace {

InitDecision decide(const InitObservation& obs) {
  InitDecision d;
  const bool multi_node = obs.original_cluster_size > 1;  // miscellaneous.IsMultiNode
  if (multi_node) {
    d.member_heartbeat_present = was_member_in_cluster(obs.member_list, obs.member_lease);
    // Only a member that was never in the cluster is checked for scale-up; a scale-up
    // returns before validation: the learner syncs from the leader instead.
    if (!d.member_heartbeat_present && is_cluster_scaled_up(obs.member_list_scale_up_check)) {
      d.action = InitAction::ScaleUpAddLearner;
      return d;
    }
  }
  const DataDirStatus status = obs.data_dir_status;
  // The three statuses Initialize refuses to act on, in upstream's order.
  if (status == DataDirStatus::WrongVolumeMounted) return fatal(d, FatalReason::WrongVolumeMounted);
  if (status == DataDirStatus::FailToOpenBoltDBError) return fatal(d, FatalReason::BoltDBFileLock);
  if (status == DataDirStatus::DataDirectoryStatusUnknown) {
    return fatal(d, FatalReason::StatusUnknown);
  }
  if (status == DataDirStatus::DataDirectoryValid) {
    d.action = InitAction::UseExistingData;
    return d;
  }
  const bool repair = status == DataDirStatus::DataDirStatusInvalidInMultiNode ||
                      (multi_node && status == DataDirStatus::DataDirectoryCorrupt) ||
                      (multi_node && d.member_heartbeat_present);
  if (repair) {
    d.action = InitAction::MemberRepair;
    return d;
  }
  return restore_corrupt_data(obs, d);
}

}  // namespace

InitDecision decide_initialize(const InitObservation& obs) {
  HASIM_ASSERT(obs.original_cluster_size >= 1);
  const InitDecision d = decide(obs);
  HASIM_ASSERT((d.action == InitAction::Fatal) == (d.fatal != FatalReason::None));
  HASIM_ASSERT(!d.wipe_data_dir || d.action == InitAction::FreshStart);
  // Membership is only consulted in a multi-node cluster.
  HASIM_ASSERT(obs.original_cluster_size > 1 ||
               (!d.member_heartbeat_present && d.action != InitAction::ScaleUpAddLearner &&
                d.action != InitAction::MemberRepair));
  return d;
}

}  // namespace hasim::druid::sidecar
