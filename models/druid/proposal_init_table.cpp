#include "models/druid/proposal_init_table.hpp"

#include <algorithm>

#include "sim/assert.hpp"

namespace hasim::druid::proposal {

namespace {

using O = InitObservation;

// "r > n/2" with a real half (2r > n), as in the druid table: for n = 3 the integer reading
// "r < n/2" of case 6 would hold only for r = 0, which no member in status can see.
bool quorate(const O& o) { return o.cluster_size >= 1 && 2 * o.members_ready > o.cluster_size; }

bool nothing_persisted(const O& o) {
  return !o.wal_has_metadata && !o.data_valid && !o.backup_exists && !o.backup_has_incrementals;
}

// Seed 004, init case 1: nobody in status, nothing on disk, nothing in the store.
bool fresh_first(const O& o) {
  return o.cluster_size >= 1 && o.members_total == 0 && o.members_ready == 0 &&
         !o.status_has_self && nothing_persisted(o);
}

// Seed 004, init case 2: the table's "Ready: m" (every entry Ready) is kept: a following member of
// a fresh cluster sees only members that formed it.
bool fresh_following(const O& o) {
  return o.members_total > 0 && o.members_total < o.cluster_size &&
         o.members_ready == o.members_total && !o.status_has_self && nothing_persisted(o);
}

// Seed 004, init cases 3 and 6 share the disk columns; 3 also "m > n/2", implied by r > n/2 and r
// <= m.
bool restart_valid(const O& o) { return o.status_has_self && o.wal_has_metadata && o.data_valid; }
bool quorate_restart_valid(const O& o) { return restart_valid(o) && quorate(o); }

// Seed 004, init case 6. The table says "m < n/2 and r < n/2", but a non-quorate cluster keeps its
// NotReady entries in status (only druid case 10 clears them), so m is often n: a three-member
// cluster with two members down (m = 3, r = 1) would be in no row. Non-quorate is read as
// "not quorate": 2r <= n (for even n, exactly half Ready is not a quorum either).
bool non_quorate_restart_valid(const O& o) { return restart_valid(o) && !quorate(o); }

// Seed 004, init case 4.
bool quorate_restart_invalid_data(const O& o) {
  return o.status_has_self && o.wal_has_metadata && !o.data_valid && quorate(o);
}

// Seed 004, init case 5; "data valid: N/A": without member metadata the data cannot be joined
// anyway.
bool quorate_restart_no_metadata(const O& o) {
  return o.status_has_self && !o.wal_has_metadata && quorate(o);
}

// Seed 004, init case 7; WAL and backup columns are N/A.
bool non_quorate_first(const O& o) {
  return o.cluster_size >= 1 && o.members_total == 0 && !o.status_has_self && !o.data_valid;
}

// Seed 004, init case 8. The table says "1 < m < n" and "1 < r < n", which leaves out the second
// member of a recovery: it sees only the restored member 0 (m = r = 1) and would be in no
// row. Read as 0 < m < n with at least one Ready member to join through.
bool non_quorate_following(const O& o) {
  return o.members_total > 0 && o.members_total < o.cluster_size && o.members_ready >= 1 &&
         !o.status_has_self && !o.data_valid;
}

struct Row {
  InitCase c;
  bool (*holds)(const O&);
};

constexpr std::array<Row, 8> kRows = {{
    {InitCase::FreshBootstrapFirstMember, fresh_first},
    {InitCase::FreshBootstrapFollowingMember, fresh_following},
    {InitCase::QuorateRestartValid, quorate_restart_valid},
    {InitCase::QuorateRestartInvalidData, quorate_restart_invalid_data},
    {InitCase::QuorateRestartNoMetadata, quorate_restart_no_metadata},
    {InitCase::NonQuorateRestartValid, non_quorate_restart_valid},
    {InitCase::NonQuorateFirstMemberInvalidData, non_quorate_first},
    {InitCase::NonQuorateFollowingMemberInvalidData, non_quorate_following},
}};

// A member joining a running cluster (init cases 4, 5, 8): the latest full snapshot only,
// since deltas need the member to run alone, which a joining member cannot (seed "Adding a
// new member"); with no backup, empty directories and the leader sends everything.
DataPreparation joining_data(const O& o) {
  return o.backup_exists ? DataPreparation::RestoreFullOnly : DataPreparation::EmptyDirs;
}

InitAction configured(InitCase c, const O& o, InitialClusterState state) {
  InitAction a;
  a.from = c;
  a.initial_cluster_peers = o.cluster_size;
  a.initial_cluster_state = state;
  return a;
}

// Seed 004, init cases 4 and 5: the old member id is gone for good, so it is removed and the pod
// joins as a new member with initial-cluster-state existing.
InitAction rejoin(InitCase c, const O& o) {
  InitAction a = configured(c, o, InitialClusterState::Existing);
  a.remove_self = true;
  a.add_self = true;
  a.data = joining_data(o);
  return a;
}

// Seed 004, init case 7: restore, replay deltas on a single-member cluster, then take a full
// snapshot "after incremental snapshots are applied", read as only when some were applied. Then the
// generated config lists all n peers with state new as the seed says; etcd ignores
// initial-cluster on a data dir that already has a WAL, so the member stays a one-member
// cluster and the others join it through init case 8.
InitAction recover_first(const O& o) {
  InitAction a =
      configured(InitCase::NonQuorateFirstMemberInvalidData, o, InitialClusterState::New);
  a.data = o.backup_exists ? DataPreparation::RestoreFull : DataPreparation::EmptyDirs;
  a.single_member_bootstrap = true;
  a.apply_incrementals = o.backup_exists && o.backup_has_incrementals;
  a.upload_full_snapshot = a.apply_incrementals;
  return a;
}

// Seed 004, init case 8. The seed asks for initial-cluster-state existing but omits the MemberAdd
// that state needs (etcd refuses to join a cluster that does not list it); added here.
InitAction recover_following(const O& o) {
  InitAction a =
      configured(InitCase::NonQuorateFollowingMemberInvalidData, o, InitialClusterState::Existing);
  a.add_self = true;
  a.data = joining_data(o);
  return a;
}

InitAction reuse(InitCase c) {
  InitAction a;
  a.from = c;
  a.reuse_previous_config = true;
  return a;
}

}  // namespace

bool consistent(const InitObservation& o) {
  return o.cluster_size >= 0 && o.members_total >= 0 && o.members_ready >= 0 &&
         o.members_ready <= o.members_total && (!o.status_has_self || o.members_total >= 1) &&
         (!o.backup_has_incrementals || o.backup_exists);
}

bool matches(InitCase c, const InitObservation& obs) {
  HASIM_ASSERT(consistent(obs));
  if (c == InitCase::Unclassified) {
    return std::none_of(kRows.begin(), kRows.end(), [&](const Row& r) { return r.holds(obs); });
  }
  const auto row = std::find_if(kRows.begin(), kRows.end(), [&](const Row& r) { return r.c == c; });
  HASIM_ASSERT(row != kRows.end());
  return row->holds(obs);
}

std::vector<InitCase> classify(const InitObservation& obs) {
  HASIM_ASSERT(consistent(obs));
  std::vector<InitCase> out;
  for (const InitCase c : kInitPriority) {
    if (matches(c, obs)) out.push_back(c);
  }
  if (out.empty()) out.push_back(InitCase::Unclassified);
  HASIM_ASSERT(!out.empty() && out.size() <= kInitPriority.size());
  return out;
}

InitCase next_case(const InitObservation& obs) { return classify(obs).front(); }

InitAction action(InitCase c, const InitObservation& obs) {
  HASIM_ASSERT(matches(c, obs));
  InitAction a;
  switch (c) {
    case InitCase::FreshBootstrapFirstMember:
    case InitCase::FreshBootstrapFollowingMember:
      a = configured(c, obs, InitialClusterState::New);
      break;
    case InitCase::QuorateRestartValid:
    case InitCase::NonQuorateRestartValid:
      a = reuse(c);
      break;
    case InitCase::QuorateRestartInvalidData:
    case InitCase::QuorateRestartNoMetadata:
      a = rejoin(c, obs);
      break;
    case InitCase::NonQuorateFirstMemberInvalidData:
      a = recover_first(obs);
      break;
    case InitCase::NonQuorateFollowingMemberInvalidData:
      a = recover_following(obs);
      break;
    case InitCase::Unclassified:
      a.from = c;
      a.fail = true;
      break;
  }
  // Either fail, re-use, or generate a config for all n members.
  HASIM_ASSERT(a.from == c);
  HASIM_ASSERT(a.fail || a.reuse_previous_config ||
               (a.initial_cluster_peers == obs.cluster_size && a.initial_cluster_peers >= 1));
  HASIM_ASSERT(!a.apply_incrementals || a.single_member_bootstrap);
  return a;
}

InitAction decide(const InitObservation& obs) { return action(next_case(obs), obs); }

bool scale_up_member(const InitObservation& obs) {
  HASIM_ASSERT(consistent(obs));
  return next_case(obs) == InitCase::Unclassified && !obs.status_has_self && !obs.data_valid &&
         !obs.wal_has_metadata && quorate(obs) && obs.members_total >= obs.cluster_size;
}

InitAction scale_up_join(const InitObservation& obs) {
  HASIM_ASSERT(scale_up_member(obs));
  InitAction a = configured(InitCase::Unclassified, obs, InitialClusterState::Existing);
  a.add_self = true;
  a.data = joining_data(obs);
  return a;
}

int seed_case_number(InitCase c) {
  if (c == InitCase::Unclassified) return 0;
  return static_cast<int>(c) + 1;  // the enum is declared in table order
}

std::string_view name(InitCase c) {
  switch (c) {
    case InitCase::FreshBootstrapFirstMember:
      return "fresh-bootstrap-first-member";
    case InitCase::FreshBootstrapFollowingMember:
      return "fresh-bootstrap-following-member";
    case InitCase::QuorateRestartValid:
      return "quorate-restart-valid";
    case InitCase::QuorateRestartInvalidData:
      return "quorate-restart-invalid-data";
    case InitCase::QuorateRestartNoMetadata:
      return "quorate-restart-no-metadata";
    case InitCase::NonQuorateRestartValid:
      return "non-quorate-restart-valid";
    case InitCase::NonQuorateFirstMemberInvalidData:
      return "non-quorate-first-member-invalid-data";
    case InitCase::NonQuorateFollowingMemberInvalidData:
      return "non-quorate-following-member-invalid-data";
    case InitCase::Unclassified:
      return "unclassified";
  }
  return "?";
}

std::string_view name(DataPreparation p) {
  switch (p) {
    case DataPreparation::KeepExisting:
      return "keep-existing";
    case DataPreparation::EmptyDirs:
      return "empty-dirs";
    case DataPreparation::RestoreFullOnly:
      return "restore-full-only";
    case DataPreparation::RestoreFull:
      return "restore-full";
  }
  return "?";
}

std::string_view name(InitialClusterState s) {
  return s == InitialClusterState::New ? "new" : "existing";
}

}  // namespace hasim::druid::proposal
