#include "models/druid/sidecar_validator.hpp"

#include "sim/assert.hpp"

namespace hasim::druid::sidecar {

std::string_view name(DataDirStatus status) {
  switch (status) {
    case DataDirStatus::DataDirectoryValid:
      return "DataDirectoryValid";
    case DataDirStatus::WrongVolumeMounted:
      return "WrongVolumeMounted";
    case DataDirStatus::DataDirectoryNotExist:
      return "DataDirectoryNotExist";
    case DataDirStatus::DataDirectoryInvStruct:
      return "DataDirectoryInvStruct";
    case DataDirStatus::DataDirectoryCorrupt:
      return "DataDirectoryCorrupt";
    case DataDirStatus::BoltDBCorrupt:
      return "BoltDBCorrupt";
    case DataDirStatus::DataDirectoryStatusUnknown:
      return "DataDirectoryStatusUnknown";
    case DataDirStatus::DataDirStatusInvalidInMultiNode:
      return "DataDirStatusInvalidInMultiNode";
    case DataDirStatus::RevisionConsistencyError:
      return "RevisionConsistencyError";
    case DataDirStatus::FailToOpenBoltDBError:
      return "FailToOpenBoltDBError";
  }
  HASIM_ASSERT(false);
}

// datavalidator.go Validate + checkStatus.
DataDirStatus validate(const ValidationInput& in) {
  HASIM_ASSERT(in.original_cluster_size >= 1);
  // The sanity check itself never reports the statuses only checkStatus or the full-mode
  // check produce.
  HASIM_ASSERT(in.sanity != DataDirStatus::DataDirStatusInvalidInMultiNode);
  if (in.sanity != DataDirStatus::DataDirectoryValid) {
    if (in.sanity == DataDirStatus::WrongVolumeMounted ||
        in.sanity == DataDirStatus::FailToOpenBoltDBError) {
      return in.sanity;
    }
    // checkStatus keys on OriginalClusterSize, not IsMultiNode (both read initial-cluster).
    if (in.original_cluster_size > 1 && !in.backup_bucket_empty) {
      return DataDirStatus::DataDirStatusInvalidInMultiNode;
    }
    return in.sanity;
  }
  switch (in.full_mode) {
    case CorruptionCheck::NotRun:
    case CorruptionCheck::Clean:
      return DataDirStatus::DataDirectoryValid;
    case CorruptionCheck::Corrupt:
      return DataDirStatus::DataDirectoryCorrupt;
    case CorruptionCheck::BoltLockTimeout:
      return DataDirStatus::FailToOpenBoltDBError;
  }
  HASIM_ASSERT(false);
}

namespace {

// checkEtcdDataRevisionConsistency, then (when behind) checkFullRevisionConsistency.
DataDirStatus revision_consistency(const SanityObservation& obs) {
  switch (obs.snapstore) {
    case SnapstoreRevision::Unreadable:
      return DataDirStatus::DataDirectoryStatusUnknown;
    case SnapstoreRevision::NoSnapshots:
      return DataDirStatus::DataDirectoryValid;
    case SnapstoreRevision::Found:
      break;
  }
  if (obs.db_revision >= obs.latest_snapshot_revision) return DataDirStatus::DataDirectoryValid;
  // The db may lag only because committed WAL entries were not yet applied: replay them in
  // an embedded etcd before calling it inconsistent.
  if (!obs.embedded_etcd_started) return DataDirStatus::DataDirectoryCorrupt;
  if (obs.embedded_synced_revision < obs.latest_snapshot_revision) {
    return DataDirStatus::RevisionConsistencyError;
  }
  return DataDirStatus::DataDirectoryValid;
}

}  // namespace

DataDirStatus sanity_check(const SanityObservation& obs) {
  HASIM_ASSERT(obs.original_cluster_size >= 1);
  HASIM_ASSERT(obs.db_revision >= 0 && obs.latest_snapshot_revision >= 0);
  if (obs.safe_guard == SafeGuard::Mismatch || obs.safe_guard == SafeGuard::Unreadable) {
    return DataDirStatus::WrongVolumeMounted;
  }
  if (obs.data_dir == PathStat::StatError) return DataDirStatus::DataDirectoryStatusUnknown;
  if (obs.data_dir == PathStat::Missing) return DataDirStatus::DataDirectoryNotExist;
  if (obs.structure == PathStat::StatError) return DataDirStatus::DataDirectoryStatusUnknown;
  if (obs.structure == PathStat::Missing) return DataDirStatus::DataDirectoryInvStruct;
  if (!obs.snapstore_configured) return DataDirStatus::DataDirectoryValid;
  if (obs.db == DbRevisionRead::LockTimeout) return DataDirStatus::FailToOpenBoltDBError;
  if (obs.db == DbRevisionRead::Error) return DataDirStatus::DataDirectoryCorrupt;
  if (obs.bolt_panic) return DataDirStatus::BoltDBCorrupt;
  if (obs.original_cluster_size > 1) return DataDirStatus::DataDirectoryValid;
  const DataDirStatus status = revision_consistency(obs);
  HASIM_ASSERT(status != DataDirStatus::DataDirStatusInvalidInMultiNode);
  return status;
}

}  // namespace hasim::druid::sidecar
