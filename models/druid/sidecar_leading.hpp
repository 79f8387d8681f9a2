#pragma once
// The "leading sidecar" of etcd-backup-restore (pkg/leaderelection/leaderelection.go). It is
// not a Kubernetes lease election: every ReelectionPeriod each sidecar asks its own etcd
// member for Status, and the sidecar whose member is the raft leader leads (takes backups,
// runs defragmentation). This is one poll's transition as a pure function; the caller runs
// the effects. The callbacks it names are wired in pkg/server/backuprestoreserver.go.
#include <cstdint>
#include <string_view>

#include "sim/time.hpp"

namespace hasim::druid::sidecar {

// pkg/types/leaderelection.go defaults. The loop waits ReelectionPeriod *after* each poll
// (time.After in a for-select), so polls are ReelectionPeriod plus the poll's own duration
// (up to the status timeout, plus a promote call's) apart, not on a fixed grid.
inline constexpr Duration kDefaultReelectionPeriod = seconds(5);
inline constexpr Duration kDefaultEtcdStatusConnectTimeout = seconds(5);

enum class LeadingState { Follower, Candidate, Leader, Unknown };
// Upstream's state strings; note Unknown is "UnknownState". Follower is the initial state,
// and nothing in upstream ever enters Candidate.
std::string_view name(LeadingState state);
inline constexpr LeadingState kInitialLeadingState = LeadingState::Follower;

// What maintenance Status on the local endpoint returned (or that it failed/timed out).
struct StatusResponse {
  bool ok = false;
  std::uint64_t member_id = 0;  // response header
  std::uint64_t leader = 0;     // 0: no leader known
  bool is_learner = false;
};

// EtcdMemberStatus: (isLeader, isLearner, err). Leadership is tested before "no leader", and
// learner-ness only for a member that sees some other leader.
struct MemberStatus {
  bool error = false;  // the call failed, or leader 0 (quorum loss / election in progress)
  bool is_leader = false;
  bool is_learner = false;
};
MemberStatus etcd_member_status(const StatusResponse& response);

struct LeadingEffects {
  bool stop_lease_renewal = false;   // MemberLeaseCallbacks.StopLeaseRenewal
  bool start_lease_renewal = false;  // MemberLeaseCallbacks.StartLeaseRenewal
  bool started_leading = false;      // LeaderCallbacks.OnStartedLeading (snapshotter, defrag)
  bool stopped_leading = false;      // cancel the leading context + OnStoppedLeading
  bool promote = false;              // PromoteLearnerCallback.Promote (PromoteMember)
};

struct LeadingStep {
  LeadingState next = LeadingState::Follower;
  LeadingEffects effects;
};

// One poll. `original_cluster_size` is used only by the promote callback, which acts only
// when the configured cluster has more than one member. Member-lease renewal is running
// when the loop starts (the server starts it before the elector), which is why only leaving
// Unknown restarts it.
LeadingStep leading_transition(LeadingState current, const MemberStatus& status,
                               int original_cluster_size);

}  // namespace hasim::druid::sidecar
