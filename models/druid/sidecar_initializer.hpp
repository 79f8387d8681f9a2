#pragma once
// etcd-backup-restore's Initialize decision (the step that runs before etcd starts, every
// time the pod starts), as pure functions over what the sidecar observed. Upstream:
// pkg/initializer/initializer.go (Initialize, restoreCorruptData, restoreWithEmptySnapstore,
// restoreInMultiNode), pkg/member/member_control.go (WasMemberInCluster, IsClusterScaledUp,
// IsMemberInCluster) and pkg/initializer/validator/datavalidator.go (Validate, checkStatus).
// The effects (etcd calls, deleting directories, restoring) belong to the caller; the retry
// policies of those calls are in sidecar_member_ops.hpp.
#include <string_view>

#include "models/druid/sidecar_validator.hpp"

namespace hasim::druid::sidecar {

// IsMemberInCluster: etcd probed (KV Get through the client service, so only via ready
// members) and MemberList read, each with retries; then a search by member name. A learner
// that was added but whose etcd never started has an empty name, so it reads as Absent.
enum class MemberListRead { Present, Absent, Unreadable };
// The member Lease as WasMemberInCluster's fallback reads it. Upstream tests for a nil
// holderIdentity, so an empty-but-set string counts as "was in the cluster".
enum class MemberLeaseRead { HolderSet, HolderNil, Unreadable };

bool was_member_in_cluster(MemberListRead list, MemberLeaseRead lease);
// IsClusterScaledUp: true only if the list was read and this member is absent; an
// unreadable list is logged and reported as "not a scale-up".
bool is_cluster_scaled_up(MemberListRead list);

// What restoreCorruptData would find in the snapstore.
enum class SnapstoreRead { NotConfigured, Empty, HasSnapshots, Unreadable };

enum class InitAction {
  ScaleUpAddLearner,     // AddLearnerWithRetry (wipe, MemberAddAsLearner); no validation
  MemberRepair,          // restoreInMultiNode: MemberRemove self, wipe, MemberAddAsLearner
  RestoreFromSnapshots,  // restoreCorruptData: latest full + deltas into <dir>.part, swap
  FreshStart,            // restoreWithEmptySnapstore: delete the dir if there is one
  UseExistingData,       // data dir valid: etcd starts on it and rejoins
  // Initialize returns an error: initialization status "Failed" (not a process exit). The
  // status endpoint resets Failed to New once it has served it (httpAPI.go
  // serveInitializationStatus), so a wrapper that keeps polling starts Initialize again.
  Fatal,
};
std::string_view name(InitAction action);

enum class FatalReason { None, WrongVolumeMounted, BoltDBFileLock, StatusUnknown, SnapstoreError };
std::string_view name(FatalReason reason);

struct InitObservation {
  // len(initial-cluster) of the etcd config; IsMultiNode reads the same file (> 1).
  int original_cluster_size = 1;
  // Upstream calls IsMemberInCluster twice: once in WasMemberInCluster, once more in
  // IsClusterScaledUp. The two reads may differ while the cluster changes.
  MemberListRead member_list = MemberListRead::Unreadable;
  MemberListRead member_list_scale_up_check = MemberListRead::Unreadable;
  MemberLeaseRead member_lease = MemberLeaseRead::HolderNil;
  DataDirStatus data_dir_status =
      DataDirStatus::DataDirectoryValid;  // sidecar_validator.hpp's validate()
  SnapstoreRead snapstore = SnapstoreRead::NotConfigured;
  bool data_dir_exists = false;  // restoreWithEmptySnapstore's os.Stat
};

struct InitDecision {
  InitAction action = InitAction::UseExistingData;
  FatalReason fatal = FatalReason::None;
  bool member_heartbeat_present = false;  // WasMemberInCluster's answer (multi-node only)
  bool wipe_data_dir = false;             // FreshStart: a data dir existed and is removed
};

// Initialize's order of checks: scale-up first (multi-node only), then the validation's
// fatal statuses, then member repair vs restoreCorruptData for an invalid data dir.
InitDecision decide_initialize(const InitObservation& obs);

}  // namespace hasim::druid::sidecar
