#pragma once
// etcd-druid in `proposal` mode: the seed's "decision table for etcd-druid based on the status"
// (seed 004, druid cases 1-13) as pure decision functions. An observation holds only the
// counts and conditions the table's "Observed state" columns use; classify() says which cases
// hold, in a fixed priority order; action() says what druid does for one case.
//
// Nothing here reads a clock or the world: the wiring counts members, leases and grace periods
// and hands in the numbers. Upstream druid (reference part C) has no such table; see
// proposal_init_table.hpp for the sidecar's side of the same design.
#include <array>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

namespace hasim::druid::proposal {

// A status condition's value; a condition that was never written reads Unknown.
enum class Tri { False, True, Unknown };
std::string_view name(Tri value);

struct DruidObservation {
  int desired_cluster_size = 0;          // d: Etcd spec.replicas
  int current_cluster_size = 0;          // n: Etcd status.clusterSize
  int sts_desired_replicas = 0;          // StatefulSet spec.replicas
  int sts_ready_replicas = 0;            // StatefulSet status.readyReplicas
  int members_total = 0;                 // len(status.members)
  int members_ready = 0;                 // entries with status Ready
  int members_not_ready_past_grace = 0;  // NotReady longer than notReadyGracePeriod
  int members_unknown_past_grace = 0;    // Unknown longer than unknownGracePeriod
  int members_expired_lease = 0;         // entries whose member lease has expired
  Tri ready = Tri::Unknown;
  Tri all_members_ready = Tri::Unknown;
  Tri backup_ready = Tri::Unknown;
};

// Counts that can describe one real Etcd: none negative, Ready/NotReady/Unknown are disjoint
// statuses, an expired lease belongs to a status entry, and no more pods are ready than asked.
bool consistent(const DruidObservation& obs);

enum class DruidCase {
  PinkOfHealth,                // 1
  MemberStatusOutOfSync,       // 2
  AllMembersReadyStaleFalse,   // 3: all Ready, AllMembersReady not true
  AllMembersReadyStaleTrue,    // 4: not all Ready, AllMembersReady not false
  ReadyStaleFalse,             // 5: majority Ready, Ready not true
  ReadyStaleTrue,              // 6: majority not Ready, Ready not false
  UnknownPastGracePeriod,      // 7
  PodsNotReadyStatusStale,     // 8
  QuorateMinorityNotReady,     // 9
  QuorumLostMajorityNotReady,  // 10
  ScaleUpHealthy,              // 11
  ScaleDownHealthy,            // 12
  SuperfluousMemberEntries,    // 13
  Unclassified,                // no row matches: druid does nothing this reconcile
};
std::string_view name(DruidCase c);
int seed_case_number(DruidCase c);  // 1..13; 0 for Unclassified

// Priority, highest first. Whole-cluster recovery (10) supersedes everything, since it clears
// the member list and recreates the pods. Then member-status facts (7, 2, 8) and the status
// clean-up (13): conditions are derived from member entries (seed: "maintained by etcd-druid
// based on the status in the members section"), so the entries are fixed before them. Then
// the conditions (6, 5, 4, 3; quorum before all-members). Then disruptive pod actions (9),
// which read the conditions. Then spec changes (12, 11), which need full health. Last, 1.
// A reconcile applies the action of the first matching case (the seed's "minimum action").
// So a case must stop matching once its action has taken effect, or it would starve the cases
// below it: the status cases (2, 7, 8) therefore test for a mismatch the counts can see, not
// just for the seed's observed state (details at each predicate in the .cpp).
inline constexpr std::array<DruidCase, 13> kDruidPriority = {
    DruidCase::QuorumLostMajorityNotReady,
    DruidCase::UnknownPastGracePeriod,
    DruidCase::MemberStatusOutOfSync,
    DruidCase::PodsNotReadyStatusStale,
    DruidCase::SuperfluousMemberEntries,
    DruidCase::ReadyStaleTrue,
    DruidCase::ReadyStaleFalse,
    DruidCase::AllMembersReadyStaleTrue,
    DruidCase::AllMembersReadyStaleFalse,
    DruidCase::QuorateMinorityNotReady,
    DruidCase::ScaleDownHealthy,
    DruidCase::ScaleUpHealthy,
    DruidCase::PinkOfHealth,
};

// Whether one case's observed state holds (Unclassified: whether no case holds).
bool matches(DruidCase c, const DruidObservation& obs);
// Every case that holds, in kDruidPriority order; {Unclassified} if none does. Never empty.
// Unclassified is not an error: it covers waiting (an entry Unknown within its grace period,
// a pod restarting) as well as states the seed leaves out (a failed backup alone, hibernation).
std::vector<DruidCase> classify(const DruidObservation& obs);
// The case whose action one reconcile applies: the first of classify().
DruidCase next_case(const DruidObservation& obs);

// The proposal's quorum test (druid cases 5, 6): more than half of status.clusterSize Ready.
bool quorate(const DruidObservation& obs);

// ---- Actions -------------------------------------------------------------------------------

enum class MemberStatus { Ready, NotReady, Unknown };
enum class MemberReason { LeaseSucceeded, LeaseExpired, UnknownGracePeriodExceeded, PodNotReady };
enum class ConditionType { Ready, AllMembersReady, BackupReady };
// Which member entries (or pods) an action means. The observation has counts, not names, so
// the wiring resolves a selector against its per-member state; `count` is what the table
// expects that set to hold and lets the wiring assert it.
enum class MemberSelector {
  ActiveLease,        // lease not expired (druid case 2)
  ExpiredLease,       // lease expired and not yet escalated to NotReady (druid case 2)
  UnknownPastGrace,   // Unknown longer than unknownGracePeriod (druid case 7)
  PodNotReady,        // pod not Ready (druid case 8)
  NotReadyPastGrace,  // NotReady longer than notReadyGracePeriod (druid case 9)
  All,                // every member (druid case 10)
};
std::string_view name(MemberStatus s);
std::string_view name(MemberReason r);
std::string_view name(ConditionType t);
std::string_view name(MemberSelector s);

struct Nothing {
  friend bool operator==(const Nothing&, const Nothing&) = default;
};
// "if they are not already updated so": entries already so are left alone (idempotent), and
// the member id is copied from the lease's spec.holderIdentity when the seed says so.
struct MarkMembers {
  MemberSelector which{};
  int count = 0;
  MemberStatus status{};
  MemberReason reason{};
  bool id_from_holder_identity = false;
  friend bool operator==(const MarkMembers&, const MarkMembers&) = default;
};
struct SetCondition {
  ConditionType type{};
  Tri value{};
  friend bool operator==(const SetCondition&, const SetCondition&) = default;
};
// skip_recreated: leave a pod created after its member went NotReady, so one deletion per
// NotReady spell (the table would otherwise match again before the new pod renews its lease).
struct DeletePods {
  MemberSelector which{};
  int count = 0;
  bool skip_recreated = false;
  friend bool operator==(const DeletePods&, const DeletePods&) = default;
};
struct ScaleStatefulSet {
  int replicas = 0;
  friend bool operator==(const ScaleStatefulSet&, const ScaleStatefulSet&) = default;
};
struct CreateLeases {
  std::vector<int> ordinals;
  friend bool operator==(const CreateLeases&, const CreateLeases&) = default;
};
struct DeleteLeases {
  std::vector<int> ordinals;
  friend bool operator==(const DeleteLeases&, const DeleteLeases&) = default;
};
// Every entry whose pod ordinal is >= min_ordinal; `count` is how many the table expects.
struct RemoveStatusEntries {
  int min_ordinal = 0;
  int count = 0;
  friend bool operator==(const RemoveStatusEntries&, const RemoveStatusEntries&) = default;
};
struct ClearStatusMembers {
  friend bool operator==(const ClearStatusMembers&, const ClearStatusMembers&) = default;
};
struct SetClusterSize {
  int size = 0;
  friend bool operator==(const SetClusterSize&, const SetClusterSize&) = default;
};
// Quorum-loss recovery only: wait until this many member entries are Ready before the next
// step (so member 0 alone restores, then the others join; see druid case 10 in the .cpp).
struct WaitForReadyMembers {
  int count = 0;
  friend bool operator==(const WaitForReadyMembers&, const WaitForReadyMembers&) = default;
};

using DruidStep = std::variant<Nothing, MarkMembers, SetCondition, DeletePods, ScaleStatefulSet,
                               CreateLeases, DeleteLeases, RemoveStatusEntries, ClearStatusMembers,
                               SetClusterSize, WaitForReadyMembers>;

struct DruidAction {
  DruidCase from = DruidCase::Unclassified;
  std::vector<DruidStep> steps;  // applied in order; {Nothing} when there is nothing to do
  friend bool operator==(const DruidAction&, const DruidAction&) = default;
};

// What druid does for case `c` observed in `obs`. Requires matches(c, obs).
DruidAction action(DruidCase c, const DruidObservation& obs);
// action(next_case(obs), obs).
DruidAction decide(const DruidObservation& obs);

// ---- Rules outside the table ---------------------------------------------------------------

// status.clusterSize upkeep (seed "ClusterSize"): with no member entries (before bootstrap) it
// becomes spec.replicas; while the cluster is quorate it follows len(status.members) once
// every pod of the StatefulSet has its entry.
// nullopt when it is already right or neither rule applies.
std::optional<int> cluster_size_update(const DruidObservation& obs);

// PodDisruptionBudget minAvailable (seed "PodDisruptionBudget" and "Backup Failure"):
// nullopt (no PDB) for a single-node cluster; else the highest applicable of
// floor(n/2)+1, n when BackupReady is not true, and the Ready member count when
// AllMembersReady is not true. n is the desired cluster size (spec.replicas).
std::optional<int> pdb_min_available(int desired_cluster_size, int members_ready,
                                     Tri all_members_ready, Tri backup_ready);

// Spec changes that roll the member pods (seed "Rolling updates to etcd members") go out only
// when the cluster is fully healthy: AllMembersReady and BackupReady both true.
bool may_roll_out_spec_change(const DruidObservation& obs);

}  // namespace hasim::druid::proposal
