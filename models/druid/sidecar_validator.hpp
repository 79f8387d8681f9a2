#pragma once
// etcd-backup-restore's data-directory validation (pkg/initializer/validator/datavalidator.go:
// Validate, sanityCheck, checkStatus, checkEtcdDataRevisionConsistency,
// checkFullRevisionConsistency) as pure functions over what the validator found on disk and
// in the snapstore. The file-system and bbolt reads belong to the caller.
#include <cstdint>
#include <string_view>

namespace hasim::druid::sidecar {

// validator.DataDirStatus (pkg/initializer/validator/types.go), in upstream's order.
enum class DataDirStatus {
  DataDirectoryValid,
  WrongVolumeMounted,
  DataDirectoryNotExist,
  DataDirectoryInvStruct,
  DataDirectoryCorrupt,
  BoltDBCorrupt,
  DataDirectoryStatusUnknown,
  DataDirStatusInvalidInMultiNode,
  RevisionConsistencyError,
  FailToOpenBoltDBError,
};
// The Go identifier (upstream's statuses are bare ints without a String method).
std::string_view name(DataDirStatus status);

// What the full-mode corruption check (checkForDataCorruption) found.
enum class CorruptionCheck { NotRun, Clean, Corrupt, BoltLockTimeout };

// Validate(mode): the sanity check's status, then (full mode only) the corruption check.
// Only a non-valid sanity result goes through checkStatus, which in a cluster of more than
// one member turns every status except WrongVolumeMounted and FailToOpenBoltDBError into
// DataDirStatusInvalidInMultiNode when the backup bucket holds a backup. A corrupt result of
// the full-mode check is returned as is (that is why Initialize tests Corrupt separately).
// `backup_bucket_empty` is IsBackupBucketEmpty: true also when no provider is configured.
struct ValidationInput {
  DataDirStatus sanity = DataDirStatus::DataDirectoryValid;
  CorruptionCheck full_mode = CorruptionCheck::NotRun;  // NotRun: sanity mode
  int original_cluster_size = 1;
  bool backup_bucket_empty = true;
};
DataDirStatus validate(const ValidationInput& in);

// The `safe_guard` file next to the data dir, which holds the pod namespace. A missing file
// is created with the namespace (so it then matches); without POD_NAMESPACE it is skipped.
enum class SafeGuard { NamespaceUnset, Created, Matches, Mismatch, Unreadable };
// os.Stat of a path: a stat error other than "not exist" makes the status unknown.
enum class PathStat { Exists, Missing, StatError };
// getLatestEtcdRevision on <data-dir>/member/snap/db: bbolt's lock timeout is its own status.
enum class DbRevisionRead { Ok, LockTimeout, Error };
// The latest snapshot revision in the snapstore (last delta, else the full snapshot).
enum class SnapstoreRevision { Unreadable, NoSnapshots, Found };

struct SanityObservation {
  SafeGuard safe_guard = SafeGuard::Matches;
  PathStat data_dir = PathStat::Exists;
  PathStat structure = PathStat::Exists;  // member/, member/snap and member/wal all exist
  bool snapstore_configured = true;
  DbRevisionRead db = DbRevisionRead::Ok;
  bool bolt_panic = false;  // bbolt panicked while reading: BoltDBCorrupt
  int original_cluster_size = 1;
  // Single-node revision check.
  SnapstoreRevision snapstore = SnapstoreRevision::NoSnapshots;
  std::int64_t db_revision = 0;
  std::int64_t latest_snapshot_revision = 0;
  // Only when the db is behind the latest snapshot: an embedded etcd replays the WAL and is
  // polled for up to 60 s; the highest revision it reached, or that it failed to start.
  bool embedded_etcd_started = true;
  std::int64_t embedded_synced_revision = 0;
};

// sanityCheck's status, in upstream's order of checks. A multi-node member (original size
// > 1) skips the revision check: it will catch up from the raft leader.
DataDirStatus sanity_check(const SanityObservation& obs);

}  // namespace hasim::druid::sidecar
