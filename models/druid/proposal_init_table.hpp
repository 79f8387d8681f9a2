#pragma once
// etcd-backup-restore in `proposal` mode: the seed's "decision table for etcd-backup-restore
// during initialization" (seed 004, init cases 1-8) as pure decision functions. The sidecar
// runs it each time its etcd container starts, before etcd, to choose the data directory's
// fate and etcd's initial-cluster configuration.
//
// Upstream backup-restore (reference C7, C8) decides differently: member-list absence means
// join as a learner, an invalid multi-node data dir is wiped and re-added as a learner with
// no restore. This file is the proposal only.
#include <array>
#include <string_view>
#include <vector>

namespace hasim::druid::proposal {

struct InitObservation {
  int cluster_size = 0;                  // n: Etcd status.clusterSize, as the sidecar reads it
  int members_total = 0;                 // m: len(status.members)
  int members_ready = 0;                 // r: entries with status Ready
  bool status_has_self = false;          // status.members has an entry for this pod
  bool wal_has_metadata = false;         // the WAL holds cluster and member ids
  bool data_valid = false;               // the data dir passed verification and is up to date
  bool backup_exists = false;            // a full snapshot exists in the store
  bool backup_has_incrementals = false;  // delta snapshots follow the latest full one
};

// No negative counts, Ready entries among the entries, self only among >= 1 entries, and
// incremental snapshots only on top of a full one.
bool consistent(const InitObservation& obs);

enum class InitCase {
  FreshBootstrapFirstMember,             // 1
  FreshBootstrapFollowingMember,         // 2
  QuorateRestartValid,                   // 3: metadata and data valid
  QuorateRestartInvalidData,             // 4: metadata valid, data not
  QuorateRestartNoMetadata,              // 5
  NonQuorateRestartValid,                // 6: metadata and data valid
  NonQuorateFirstMemberInvalidData,      // 7
  NonQuorateFollowingMemberInvalidData,  // 8
  Unclassified,                          // no row matches: initialization fails
};
std::string_view name(InitCase c);
int seed_case_number(InitCase c);  // 1..8; 0 for Unclassified

// Priority, highest first: table order. Rows overlap only when there is neither a backup nor
// WAL metadata: 1 with 7 (nobody in status) and 2 with 8 (some members in status). A fresh
// cluster and a quorum-loss recovery with nothing to restore are then indistinguishable from
// these observations, and both end with empty data, so the fresh bootstrap (1, 2) wins: it
// skips the pointless single-member start of 7 on an empty directory.
inline constexpr std::array<InitCase, 8> kInitPriority = {
    InitCase::FreshBootstrapFirstMember,
    InitCase::FreshBootstrapFollowingMember,
    InitCase::QuorateRestartValid,
    InitCase::QuorateRestartInvalidData,
    InitCase::QuorateRestartNoMetadata,
    InitCase::NonQuorateRestartValid,
    InitCase::NonQuorateFirstMemberInvalidData,
    InitCase::NonQuorateFollowingMemberInvalidData,
};

bool matches(InitCase c, const InitObservation& obs);
// Every case that holds, in kInitPriority order; {Unclassified} if none does. Never empty.
std::vector<InitCase> classify(const InitObservation& obs);
InitCase next_case(const InitObservation& obs);  // the first of classify()

// What happens to the data directory before etcd starts.
enum class DataPreparation {
  KeepExisting,     // re-use data and WAL as they are
  EmptyDirs,        // wipe: empty data and WAL directories
  RestoreFullOnly,  // latest full snapshot, no deltas (a joining member cannot replay)
  RestoreFull,      // latest full snapshot; deltas follow on the single-member cluster
};
enum class InitialClusterState { New, Existing };
std::string_view name(DataPreparation p);
std::string_view name(InitialClusterState s);

struct InitAction {
  InitCase from = InitCase::Unclassified;
  // Unclassified: return an error; the container exits and is restarted, so the table runs
  // again once druid or the other members have changed what it observes.
  bool fail = false;
  bool reuse_previous_config = false;  // cases 3 and 6: no new configuration
  // Remove the old member id from the etcd cluster and this pod's entry from Etcd status.
  bool remove_self = false;
  // MemberAdd (a voting member; the seed's learner variant is an alternative it does not
  // recommend) into the etcd cluster and an entry into Etcd status.
  bool add_self = false;
  DataPreparation data = DataPreparation::KeepExisting;
  // Case 7: start an embedded single-member etcd (own peer URL only, state new) on the
  // prepared data, apply delta snapshots serially if any, and then upload a full snapshot.
  bool single_member_bootstrap = false;
  bool apply_incrementals = false;
  bool upload_full_snapshot = false;
  // The generated configuration when not re-used: this many initial-cluster peer URLs (all
  // n members) and this initial-cluster-state.
  int initial_cluster_peers = 0;
  InitialClusterState initial_cluster_state = InitialClusterState::New;
  friend bool operator==(const InitAction&, const InitAction&) = default;
};

// What the sidecar does for case `c` observed in `obs`. Requires matches(c, obs).
InitAction action(InitCase c, const InitObservation& obs);
InitAction decide(const InitObservation& obs);  // action(next_case(obs), obs)

// Not in the seed: a pod that druid case 11 added. At its first start status.clusterSize is
// still the old size n (it follows len(status.members) only once they join), the status lists
// n Ready members and not this one, and the pod has no data: no row matches (case 2 needs
// m < n and no backup, case 8 m < n). hasim joins it as case 8 does (add self, state existing)
// and says so in the trace; without this a proposal-mode cluster could never scale up.
bool scale_up_member(const InitObservation& obs);
InitAction scale_up_join(const InitObservation& obs);  // requires scale_up_member(obs)

}  // namespace hasim::druid::proposal
