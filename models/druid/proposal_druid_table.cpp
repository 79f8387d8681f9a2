#include "models/druid/proposal_druid_table.hpp"

#include <algorithm>

#include "sim/assert.hpp"

namespace hasim::druid::proposal {

namespace {

using O = DruidObservation;

// The seed writes "x > n/2" and "x < n/2" with real halves. Integer division would empty
// some rows for odd n: "0 < f < n/2" (case 9) and "0 < (nr+u+h) < n/2" (case 5) hold for no
// integer when n = 3, and "f >= n/2" (case 10) would then overlap case 9 at f = 1. So both
// are compared doubled: 2x > n and 2x < n.
bool more_than_half(int x, int n) { return 2 * x > n; }
bool less_than_half(int x, int n) { return 2 * x < n; }

// The member columns of a healthy row: n entries, all Ready, nothing past a grace period,
// no expired lease.
bool healthy_members(const O& o, int n) {
  return o.members_total == n && o.members_ready == n && o.members_not_ready_past_grace == 0 &&
         o.members_unknown_past_grace == 0 && o.members_expired_lease == 0;
}

bool all_conditions_true(const O& o) {
  return o.ready == Tri::True && o.all_members_ready == Tri::True && o.backup_ready == Tri::True;
}

// Seed 004, druid case 1. n >= 1: a hibernated (0-replica) Etcd is in no row of the table.
bool pink_of_health(const O& o) {
  const int n = o.desired_cluster_size;
  return n >= 1 && o.current_cluster_size == n && o.sts_desired_replicas == n &&
         o.sts_ready_replicas == n && healthy_members(o, n) && all_conditions_true(o);
}

// Seed 004, druid case 2. The seed's observed state is pink of health except r and l, but taken
// literally it deadlocks: once case 4 sets AllMembersReady false, a member whose lease is
// renewed again is never marked Ready (no other row marks Ready), so AllMembersReady stays
// false. The seed's member rule ("Ready if the pod is ready and the lease has not expired")
// has no such gate, so this row applies it whenever every pod is Ready (a NotReady pod is
// case 8's, which would otherwise flip-flop with this one) and the Ready count differs from
// the active-lease count. Counts cannot see a swap (one Ready entry with an expired lease and
// one NotReady entry with an active one); the wiring, which has the names, can.
bool member_status_out_of_sync(const O& o) {
  return o.sts_desired_replicas >= 1 && o.sts_ready_replicas == o.sts_desired_replicas &&
         o.members_ready != o.members_total - o.members_expired_lease;
}

// Seed 004, druid case 3; n is the StatefulSet's desired replicas as in the table.
// "AllMembersReady: false" is read as "not true": an Unknown condition with every member Ready is
// as stale.
bool all_members_ready_stale_false(const O& o) {
  const int n = o.sts_desired_replicas;
  return n >= 1 && o.all_members_ready != Tri::True && healthy_members(o, n);
}

// Seed 004, druid case 4. The per-column ranges (0 < nr, 0 < u, 0 < h) contradict the row's own
// "where (nr + u + h) > 0 or r < n"; the where clause governs. "true" is read as "not false".
bool all_members_ready_stale_true(const O& o) {
  const int unhealthy =
      o.members_not_ready_past_grace + o.members_unknown_past_grace + o.members_expired_lease;
  return o.all_members_ready != Tri::False &&
         (unhealthy > 0 || o.members_ready < o.sts_desired_replicas);
}

// Seed 004, druid case 5: Ready is stale when the cluster is quorate. The where clause
// "0 < (nr + u + h) < n/2" would leave Ready false forever once every member is Ready again,
// so only the quorum test counts (see quorate()).
bool ready_stale_false(const O& o) { return o.ready != Tri::True && quorate(o); }

// Seed 004, druid case 6, the mirror of 5: "(nr + u + h) > n/2 or r < n/2" is "not quorate" once
// the statuses agree with the leases, which cases 2, 7 and 8 see to first.
bool ready_stale_true(const O& o) { return o.ready != Tri::False && !quorate(o); }

// Seed 004, druid case 7. "u where u <= n" includes u = 0, for which the action is empty; not
// matched.
bool unknown_past_grace(const O& o) { return o.members_unknown_past_grace > 0; }

// Seed 004, druid case 8. The table says "s < n"; it stays true while a crash-looping pod is down,
// and would then starve case 9 (lower priority). The row's title says the status has not been
// updated yet, which the counts show as more Ready entries than Ready pods.
bool pods_not_ready_status_stale(const O& o) {
  const int n = o.sts_desired_replicas;
  return o.current_cluster_size == n && o.sts_ready_replicas < n &&
         o.members_ready > o.sts_ready_replicas;
}

// Seed 004, druid case 9; f = NotReady past grace, n = status.clusterSize. "Ready: n - f" is
// relaxed to the r <= n - f that consistent counts give: a further member NotReady within its grace
// period does not stop the f deletions.
bool quorate_minority_not_ready(const O& o) {
  const int n = o.current_cluster_size;
  const int f = o.members_not_ready_past_grace;
  return n >= 1 && o.members_total == n && f > 0 && less_than_half(f, n) &&
         o.members_unknown_past_grace == 0 && o.ready == Tri::True &&
         o.all_members_ready == Tri::False && o.backup_ready == Tri::True;
}

// Seed 004, druid case 10. BackupReady must be true as the table says: without a backup there is
// nothing to restore from, and the row is not matched (the state is left unclassified).
bool quorum_lost_majority_not_ready(const O& o) {
  const int n = o.current_cluster_size;
  const int f = o.members_not_ready_past_grace;
  return n >= 1 && o.members_total == n && !less_than_half(f, n) && o.ready == Tri::False &&
         o.all_members_ready == Tri::False && o.backup_ready == Tri::True;
}

// Seed 004, druid case 11. n >= 1: creating a cluster (status.clusterSize 0) is bootstrap, not a
// row.
bool scale_up_healthy(const O& o) {
  const int n = o.current_cluster_size;
  return n >= 1 && o.desired_cluster_size > n && o.sts_ready_replicas == n &&
         healthy_members(o, n) && all_conditions_true(o);
}

// Seed 004, druid case 12. d >= 1: scaling to 0 is hibernation, which the table does not cover.
bool scale_down_healthy(const O& o) {
  const int n = o.current_cluster_size;
  const int d = o.desired_cluster_size;
  return d >= 1 && d < n && o.sts_desired_replicas == n && o.sts_ready_replicas == n &&
         healthy_members(o, n) && all_conditions_true(o);
}

// Seed 004, druid case 13, with n = the StatefulSet's replicas. The table also asks
// status.clusterSize to be n, but after case 12 it still holds the old size (it follows
// len(status.members), which only this row shrinks), so that column is dropped or the row could
// never match.
bool superfluous_member_entries(const O& o) {
  const int n = o.sts_desired_replicas;
  return o.sts_ready_replicas == n && o.members_total > n;
}

struct Row {
  DruidCase c;
  bool (*holds)(const O&);
};

// In table order; kDruidPriority gives the order they are reported in.
constexpr std::array<Row, 13> kRows = {{
    {DruidCase::PinkOfHealth, pink_of_health},
    {DruidCase::MemberStatusOutOfSync, member_status_out_of_sync},
    {DruidCase::AllMembersReadyStaleFalse, all_members_ready_stale_false},
    {DruidCase::AllMembersReadyStaleTrue, all_members_ready_stale_true},
    {DruidCase::ReadyStaleFalse, ready_stale_false},
    {DruidCase::ReadyStaleTrue, ready_stale_true},
    {DruidCase::UnknownPastGracePeriod, unknown_past_grace},
    {DruidCase::PodsNotReadyStatusStale, pods_not_ready_status_stale},
    {DruidCase::QuorateMinorityNotReady, quorate_minority_not_ready},
    {DruidCase::QuorumLostMajorityNotReady, quorum_lost_majority_not_ready},
    {DruidCase::ScaleUpHealthy, scale_up_healthy},
    {DruidCase::ScaleDownHealthy, scale_down_healthy},
    {DruidCase::SuperfluousMemberEntries, superfluous_member_entries},
}};

std::vector<int> ordinals(int from, int to) {
  HASIM_ASSERT(0 <= from && from <= to);
  std::vector<int> out;
  for (int i = from; i < to; ++i) out.push_back(i);
  return out;
}

// Seed 004, druid case 2: expired leases to Unknown (LeaseExpired), active ones to Ready
// (LeaseSucceeded), both taking the member id from spec.holderIdentity.
std::vector<DruidStep> sync_with_leases(const O& o) {
  std::vector<DruidStep> steps;
  const int expired = o.members_expired_lease;
  const int active = o.members_total - expired;
  if (expired > 0) {
    steps.emplace_back(MarkMembers{MemberSelector::ExpiredLease, expired, MemberStatus::Unknown,
                                   MemberReason::LeaseExpired, true});
  }
  if (active > 0) {
    steps.emplace_back(MarkMembers{MemberSelector::ActiveLease, active, MemberStatus::Ready,
                                   MemberReason::LeaseSucceeded, true});
  }
  HASIM_ASSERT(!steps.empty());  // the row matched, so there are entries to sync
  return steps;
}

// Seed 004, druid case 10. The seed lists: StatefulSet to 0, all pods gone, status members removed,
// leases deleted and recreated, then "recover the cluster from loss of quorum as discussed"
// (restore one member, apply deltas, full snapshot, add the others). It does not say how the
// StatefulSet comes back; scaling straight to d with parallel pod management would let every
// pod see an empty member list and take init case 7 (each bootstrapping its own one-member
// cluster). So druid scales to 1, waits for member 0 to be Ready, then scales to d: the
// others then see one Ready member and take init case 8. clusterSize becomes spec.replicas
// before bootstrapping (seed "ClusterSize").
std::vector<DruidStep> recover_quorum_loss(const O& o) {
  const int n = o.current_cluster_size;
  const int d = o.desired_cluster_size;
  HASIM_ASSERT(n >= 1 && d >= 0);
  std::vector<DruidStep> steps;
  steps.emplace_back(ScaleStatefulSet{0});
  steps.emplace_back(DeletePods{MemberSelector::All, n, false});
  steps.emplace_back(ClearStatusMembers{});
  steps.emplace_back(DeleteLeases{ordinals(0, n)});
  steps.emplace_back(CreateLeases{ordinals(0, d)});
  steps.emplace_back(SetClusterSize{d});
  if (d >= 1) {
    steps.emplace_back(ScaleStatefulSet{1});
    if (d > 1) {
      steps.emplace_back(WaitForReadyMembers{1});
      steps.emplace_back(ScaleStatefulSet{d});
    }
  }
  return steps;
}

// The seed numbers members from 1 in prose ("numbered d, d + 1 ... n") but pods from 0; the
// members a scale-down removes are ordinals d..n-1 (n - d of them; the seed writes "d - n").
std::vector<DruidStep> change_scale(const O& o) {
  const int n = o.current_cluster_size;
  const int d = o.desired_cluster_size;
  HASIM_ASSERT(d != n);
  std::vector<DruidStep> steps;
  steps.emplace_back(ScaleStatefulSet{d});
  if (d > n) {
    steps.emplace_back(CreateLeases{ordinals(n, d)});
  } else {
    steps.emplace_back(DeleteLeases{ordinals(d, n)});
  }
  return steps;
}

std::vector<DruidStep> remove_superfluous(const O& o) {
  const int n = o.sts_desired_replicas;
  const int m = o.members_total;
  HASIM_ASSERT(m > n);
  return {RemoveStatusEntries{n, m - n}, DeleteLeases{ordinals(n, m)}};
}

std::vector<DruidStep> steps_for(DruidCase c, const O& o) {
  switch (c) {
    case DruidCase::PinkOfHealth:
      return {Nothing{}};
    case DruidCase::MemberStatusOutOfSync:
      return sync_with_leases(o);
    case DruidCase::AllMembersReadyStaleFalse:
      return {SetCondition{ConditionType::AllMembersReady, Tri::True}};
    case DruidCase::AllMembersReadyStaleTrue:
      return {SetCondition{ConditionType::AllMembersReady, Tri::False}};
    case DruidCase::ReadyStaleFalse:
      return {SetCondition{ConditionType::Ready, Tri::True}};
    case DruidCase::ReadyStaleTrue:
      return {SetCondition{ConditionType::Ready, Tri::False}};
    case DruidCase::UnknownPastGracePeriod:
      return {MarkMembers{MemberSelector::UnknownPastGrace, o.members_unknown_past_grace,
                          MemberStatus::NotReady, MemberReason::UnknownGracePeriodExceeded}};
    case DruidCase::PodsNotReadyStatusStale:
      return {MarkMembers{MemberSelector::PodNotReady,
                          o.sts_desired_replicas - o.sts_ready_replicas, MemberStatus::NotReady,
                          MemberReason::PodNotReady}};
    case DruidCase::QuorateMinorityNotReady:
      return {DeletePods{MemberSelector::NotReadyPastGrace, o.members_not_ready_past_grace, true}};
    case DruidCase::QuorumLostMajorityNotReady:
      return recover_quorum_loss(o);
    case DruidCase::ScaleUpHealthy:
    case DruidCase::ScaleDownHealthy:
      return change_scale(o);
    case DruidCase::SuperfluousMemberEntries:
      return remove_superfluous(o);
    case DruidCase::Unclassified:
      return {Nothing{}};
  }
  HASIM_ASSERT(false);
  return {};
}

}  // namespace

bool consistent(const DruidObservation& o) {
  const bool non_negative = o.desired_cluster_size >= 0 && o.current_cluster_size >= 0 &&
                            o.sts_desired_replicas >= 0 && o.sts_ready_replicas >= 0 &&
                            o.members_total >= 0 && o.members_ready >= 0 &&
                            o.members_not_ready_past_grace >= 0 &&
                            o.members_unknown_past_grace >= 0 && o.members_expired_lease >= 0;
  return non_negative && o.sts_ready_replicas <= o.sts_desired_replicas &&
         o.members_ready + o.members_not_ready_past_grace + o.members_unknown_past_grace <=
             o.members_total &&
         o.members_expired_lease <= o.members_total;
}

bool quorate(const DruidObservation& o) {
  // The seed: clusterSize "reliably represents the size of the ETCD cluster, it can be used
  // to calculate the Ready condition" (the table's rows 5 and 6 write the StatefulSet's
  // replicas, equal to it in steady state). Only Ready entries count; upstream (reference C4)
  // also counts Unknown ones and divides len(status.members).
  return o.current_cluster_size >= 1 && more_than_half(o.members_ready, o.current_cluster_size);
}

bool matches(DruidCase c, const DruidObservation& obs) {
  HASIM_ASSERT(consistent(obs));
  if (c == DruidCase::Unclassified) {
    return std::none_of(kRows.begin(), kRows.end(), [&](const Row& r) { return r.holds(obs); });
  }
  const auto row = std::find_if(kRows.begin(), kRows.end(), [&](const Row& r) { return r.c == c; });
  HASIM_ASSERT(row != kRows.end());
  return row->holds(obs);
}

std::vector<DruidCase> classify(const DruidObservation& obs) {
  HASIM_ASSERT(consistent(obs));
  std::vector<DruidCase> out;
  for (const DruidCase c : kDruidPriority) {
    if (matches(c, obs)) out.push_back(c);
  }
  if (out.empty()) out.push_back(DruidCase::Unclassified);
  HASIM_ASSERT(!out.empty() && out.size() <= kDruidPriority.size());
  return out;
}

DruidCase next_case(const DruidObservation& obs) { return classify(obs).front(); }

DruidAction action(DruidCase c, const DruidObservation& obs) {
  HASIM_ASSERT(matches(c, obs));
  DruidAction out{c, steps_for(c, obs)};
  HASIM_ASSERT(!out.steps.empty());
  return out;
}

DruidAction decide(const DruidObservation& obs) { return action(next_case(obs), obs); }

std::optional<int> cluster_size_update(const DruidObservation& o) {
  HASIM_ASSERT(consistent(o));
  int want = o.current_cluster_size;
  if (o.members_total == 0) {
    want = o.desired_cluster_size;  // before bootstrapping
  } else if (o.ready == Tri::True && o.members_total == o.sts_desired_replicas) {
    // Quorate: follow the member list (scale-up joins, row 13) once every pod of the set has
    // its entry. The seed says "whenever the length of the array changes"; followed at every
    // change, a bootstrap whose last pod starts late would shrink clusterSize to the members
    // so far, and that pod would then find itself beyond the cluster (no init row).
    want = o.members_total;
  }
  if (want == o.current_cluster_size) return std::nullopt;
  HASIM_ASSERT(want >= 0);
  return want;
}

std::optional<int> pdb_min_available(int desired_cluster_size, int members_ready,
                                     Tri all_members_ready, Tri backup_ready) {
  HASIM_ASSERT(desired_cluster_size >= 0 && members_ready >= 0);
  const int n = desired_cluster_size;
  if (n <= 1) return std::nullopt;  // the seed deploys the PDB for multi-node clusters only
  // The PDB section says "toggle between floor(n/2) and <members Ready>"; its own first
  // sentence and the Backup Failure section say floor(n/2) + 1, which is taken. Unknown
  // conditions count as not true: they then block evictions, the safe side.
  int min_available = n / 2 + 1;
  if (backup_ready != Tri::True) min_available = std::max(min_available, n);
  if (all_members_ready != Tri::True) min_available = std::max(min_available, members_ready);
  HASIM_ASSERT(min_available > n / 2 && min_available <= std::max(n, members_ready));
  return min_available;
}

bool may_roll_out_spec_change(const DruidObservation& o) {
  // "fully healthy"; Unknown is not healthy (a rolling update risks quorum).
  return o.all_members_ready == Tri::True && o.backup_ready == Tri::True;
}

std::string_view name(Tri value) {
  switch (value) {
    case Tri::False:
      return "false";
    case Tri::True:
      return "true";
    case Tri::Unknown:
      return "unknown";
  }
  return "?";
}

int seed_case_number(DruidCase c) {
  if (c == DruidCase::Unclassified) return 0;
  return static_cast<int>(c) + 1;  // the enum is declared in table order
}

std::string_view name(DruidCase c) {
  switch (c) {
    case DruidCase::PinkOfHealth:
      return "pink-of-health";
    case DruidCase::MemberStatusOutOfSync:
      return "member-status-out-of-sync";
    case DruidCase::AllMembersReadyStaleFalse:
      return "all-members-ready-stale-false";
    case DruidCase::AllMembersReadyStaleTrue:
      return "all-members-ready-stale-true";
    case DruidCase::ReadyStaleFalse:
      return "ready-stale-false";
    case DruidCase::ReadyStaleTrue:
      return "ready-stale-true";
    case DruidCase::UnknownPastGracePeriod:
      return "unknown-past-grace-period";
    case DruidCase::PodsNotReadyStatusStale:
      return "pods-not-ready-status-stale";
    case DruidCase::QuorateMinorityNotReady:
      return "quorate-minority-not-ready";
    case DruidCase::QuorumLostMajorityNotReady:
      return "quorum-lost-majority-not-ready";
    case DruidCase::ScaleUpHealthy:
      return "scale-up-healthy";
    case DruidCase::ScaleDownHealthy:
      return "scale-down-healthy";
    case DruidCase::SuperfluousMemberEntries:
      return "superfluous-member-entries";
    case DruidCase::Unclassified:
      return "unclassified";
  }
  return "?";
}

std::string_view name(MemberStatus s) {
  switch (s) {
    case MemberStatus::Ready:
      return "Ready";
    case MemberStatus::NotReady:
      return "NotReady";
    case MemberStatus::Unknown:
      return "Unknown";
  }
  return "?";
}

std::string_view name(MemberReason r) {
  switch (r) {
    case MemberReason::LeaseSucceeded:
      return "LeaseSucceeded";
    case MemberReason::LeaseExpired:
      return "LeaseExpired";
    case MemberReason::UnknownGracePeriodExceeded:
      return "UnknownGracePeriodExceeded";
    case MemberReason::PodNotReady:
      return "PodNotReady";
  }
  return "?";
}

std::string_view name(ConditionType t) {
  switch (t) {
    case ConditionType::Ready:
      return "Ready";
    case ConditionType::AllMembersReady:
      return "AllMembersReady";
    case ConditionType::BackupReady:
      return "BackupReady";
  }
  return "?";
}

std::string_view name(MemberSelector s) {
  switch (s) {
    case MemberSelector::ActiveLease:
      return "active-lease";
    case MemberSelector::ExpiredLease:
      return "expired-lease";
    case MemberSelector::UnknownPastGrace:
      return "unknown-past-grace";
    case MemberSelector::PodNotReady:
      return "pod-not-ready";
    case MemberSelector::NotReadyPastGrace:
      return "not-ready-past-grace";
    case MemberSelector::All:
      return "all";
  }
  return "?";
}

}  // namespace hasim::druid::proposal
