// etcd-druid's status conditions and BackupReady (models/druid/conditions.hpp,
// backup_ready.hpp); holderIdentity, status.members and the spec rules are in
// test_druid_status.cpp. Each branch of upstream's internal/health/condition checks has an
// example; BackupReady's windows are probed exactly at the limit and one nanosecond either
// side.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "models/druid/backup_ready.hpp"
#include "models/druid/conditions.hpp"
#include "models/druid/member_status.hpp"
#include "druid_status_rig.hpp"

using namespace hasim;
using namespace hasim::druid;
using namespace hasim::druid::testing;

// ---------------------------------------------------------------- conditions

namespace {

std::vector<EtcdMemberStatus> members_with(std::vector<MemberStatus> statuses) {
  std::vector<EtcdMemberStatus> out;
  for (std::size_t i = 0; i < statuses.size(); ++i) {
    out.push_back(member("etcd-" + std::to_string(i), statuses[i]));
  }
  return out;
}

constexpr auto R = MemberStatus::kReady;
constexpr auto N = MemberStatus::kNotReady;
constexpr auto U = MemberStatus::kUnknown;

}  // namespace

TEST_CASE("Ready: quorum over status.members, Unknown counts", "[druid-status]") {
  const auto ready = [](std::vector<MemberStatus> s) { return check_ready(members_with(s)); };
  const auto none = ready({});
  CHECK(none.status == ConditionStatus::kUnknown);
  CHECK(name(none.reason) == "NoMembersInStatus");
  CHECK(name(ready({R}).reason) == "Quorate");
  CHECK(ready({N}).status == ConditionStatus::kFalse);
  CHECK(ready({R, N}).status == ConditionStatus::kFalse);  // quorum of 2 is 2
  CHECK(ready({R, N, N}).status == ConditionStatus::kFalse);
  CHECK(name(ready({R, N, N}).reason) == "QuorumLost");
  CHECK(ready({R, R, N}).status == ConditionStatus::kTrue);
  CHECK(ready({U, U, U}).status == ConditionStatus::kTrue);
  CHECK(ready({U, U, N}).status == ConditionStatus::kTrue);
  CHECK(ready({R, R, N, N}).status == ConditionStatus::kFalse);  // quorum of 4 is 3
  CHECK(ready({R, U, R, N}).status == ConditionStatus::kTrue);
  // Two of three members missing from status: the one left is a quorum of itself.
  CHECK(ready({R}).status == ConditionStatus::kTrue);
}

TEST_CASE("Ready agrees with 'more than half are not NotReady'", "[druid-status]") {
  rc::prop("majority", [] {
    const auto statuses = *rc::gen::container<std::vector<MemberStatus>>(
        rc::gen::element(MemberStatus::kReady, MemberStatus::kNotReady, MemberStatus::kUnknown));
    const auto r = check_ready(members_with(statuses));
    if (statuses.empty()) {
      RC_ASSERT(r.status == ConditionStatus::kUnknown);
      return;
    }
    const auto up = std::count_if(statuses.begin(), statuses.end(),
                                  [](MemberStatus s) { return s != MemberStatus::kNotReady; });
    const bool majority = 2 * up > static_cast<std::int64_t>(statuses.size());
    RC_ASSERT(r.status == (majority ? ConditionStatus::kTrue : ConditionStatus::kFalse));
  });
}

TEST_CASE("AllMembersReady", "[druid-status]") {
  const auto amr = [](std::vector<MemberStatus> s, std::int32_t replicas) {
    return check_all_members_ready(members_with(s), replicas);
  };
  CHECK(amr({}, 3).status == ConditionStatus::kUnknown);
  CHECK(name(amr({}, 3).reason) == "NoMembersInStatus");
  CHECK(amr({R, R}, 3).status == ConditionStatus::kFalse);  // not all registered
  CHECK(name(amr({R, R}, 3).reason) == "NotAllMembersReady");
  CHECK(amr({R, R, R}, 3).status == ConditionStatus::kTrue);
  CHECK(name(amr({R, R, R}, 3).reason) == "AllMembersReady");
  CHECK(amr({R, U, R}, 3).status == ConditionStatus::kFalse);
  CHECK(amr({R, R, N}, 3).status == ConditionStatus::kFalse);
  CHECK(amr({R, R, R}, 1).status == ConditionStatus::kTrue);  // more members than replicas
}

TEST_CASE("ClusterIDMismatch", "[druid-status]") {
  const auto members = members_with({R, N, U});
  const auto leases = [](std::string h0, std::string h1, std::string h2) {
    return std::vector<MemberLeaseObservation>{lease("etcd-0", h0, kT0), lease("etcd-1", h1, kT0),
                                               lease("etcd-2", h2, kT0)};
  };
  auto same =
      check_cluster_id_mismatch(members, leases("a:c1:Leader", "b:c1:Member", "c:c9:Member"));
  CHECK(same.status == ConditionStatus::kFalse);  // etcd-2 is Unknown: its c9 is ignored
  CHECK(name(same.reason) == "NoClusterIDMismatchDetected");
  auto two =
      check_cluster_id_mismatch(members, leases("a:c1:Leader", "b:c2:Member", "c:c1:Member"));
  CHECK(two.status == ConditionStatus::kTrue);  // a NotReady member still counts
  CHECK(name(two.reason) == "MultipleClusterIDsDetected");
  auto legacy = check_cluster_id_mismatch(members, leases("a:Leader", "b:Member", "c:c1:Member"));
  CHECK(legacy.status == ConditionStatus::kUnknown);
  CHECK(name(legacy.reason) == "NoClusterIDDetected");
  CHECK(check_cluster_id_mismatch({}, leases("a:c1:Leader", "b:c2:Member", "c:c3:Member")).reason ==
        ConditionReason::kNoClusterIDDetected);

  // Every existing Lease must parse, even one without a member entry.
  auto fresh = leases("a:c1:Leader", "b:c2:Member", "c:c1:Member");
  fresh[2].holder_identity.reset();  // as druid creates it
  CHECK(name(check_cluster_id_mismatch(members_with({R, R}), fresh).reason) ==
        "UnableToParseLeaseHolderIdentity");
  fresh[2].read = ObjectRead::kNotFound;  // not created yet: ignored
  CHECK(check_cluster_id_mismatch(members_with({R, R}), fresh).status == ConditionStatus::kTrue);
  fresh[2].read = ObjectRead::kError;
  CHECK(name(check_cluster_id_mismatch(members_with({R, R}), fresh).reason) ==
        "UnableToFetchLease");
  // The first failing Lease in ordinal order decides the reason.
  auto both = leases("a:b:c:d", "b:c2:Member", "c:c1:Member");
  both[1].read = ObjectRead::kError;
  CHECK(check_cluster_id_mismatch(members, both).reason ==
        ConditionReason::kUnableToParseLeaseHolderIdentity);
}

TEST_CASE("AllMembersUpdated", "[druid-status]") {
  StatefulSetRollout done{4, 4, 3, 3, "rev-b", "rev-b"};
  CHECK(check_all_members_updated(ObjectRead::kFound, done).status == ConditionStatus::kTrue);
  CHECK(name(check_all_members_updated(ObjectRead::kFound, done).reason) == "AllMembersUpdated");
  CHECK(name(check_all_members_updated(ObjectRead::kNotFound, done).reason) ==
        "StatefulSetNotFound");
  CHECK(check_all_members_updated(ObjectRead::kError, done).status == ConditionStatus::kUnknown);
  CHECK(name(check_all_members_updated(ObjectRead::kError, done).reason) ==
        "UnableToFetchStatefulSet");
  auto stale_generation = done;
  stale_generation.observed_generation = 3;
  auto partial = done;
  partial.updated_replicas = 2;
  auto rolling = done;
  rolling.current_revision = "rev-a";
  for (const auto& r : {stale_generation, partial, rolling}) {
    const auto c = check_all_members_updated(ObjectRead::kFound, r);
    CHECK(c.status == ConditionStatus::kFalse);
    CHECK(name(c.reason) == "NotAllMembersUpdated");
  }
}

TEST_CASE("DataVolumesReady", "[druid-status]") {
  CHECK(name(check_data_volumes_ready(ObjectRead::kFound, false).reason) ==
        "NoWarningsFoundForDataVolumes");
  CHECK(check_data_volumes_ready(ObjectRead::kFound, false).status == ConditionStatus::kTrue);
  CHECK(check_data_volumes_ready(ObjectRead::kFound, true).status == ConditionStatus::kFalse);
  CHECK(name(check_data_volumes_ready(ObjectRead::kFound, true).reason) ==
        "FoundWarningsForDataVolumes");
  CHECK(name(check_data_volumes_ready(ObjectRead::kFound, std::nullopt).reason) ==
        "UnableToFetchWarningEventsForDataVolumes");
  CHECK(check_data_volumes_ready(ObjectRead::kNotFound, true).status == ConditionStatus::kUnknown);
  CHECK(check_data_volumes_ready(ObjectRead::kNotFound, true).reason ==
        ConditionReason::kStatefulSetNotFound);
  CHECK(check_data_volumes_ready(ObjectRead::kError, false).reason ==
        ConditionReason::kUnableToFetchStatefulSet);
}

TEST_CASE("condition types are declared in name order", "[druid-status]") {
  std::vector<std::string_view> names;
  for (int t = 0; t <= static_cast<int>(ConditionType::kReady); ++t) {
    names.push_back(name(static_cast<ConditionType>(t)));
  }
  CHECK(std::is_sorted(names.begin(), names.end()));
  CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
}

namespace {

Condition cond(ConditionType type, ConditionStatus status, ConditionReason reason, LocalTime t) {
  return {type, status, reason, t, t};
}

}  // namespace

TEST_CASE("conditions builder: transition and update times", "[druid-status]") {
  const LocalTime before = kT0 - hours(2);
  const LocalTime now = kT0;
  const std::vector<Condition> previous = {
      cond(ConditionType::kReady, ConditionStatus::kTrue, ConditionReason::kQuorate, before),
      cond(ConditionType::kAllMembersReady, ConditionStatus::kTrue,
           ConditionReason::kAllMembersReady, before)};
  const std::vector<ConditionResult> results = {
      {ConditionType::kReady, ConditionStatus::kTrue, ConditionReason::kQuorate},
      {ConditionType::kAllMembersReady, ConditionStatus::kFalse,
       ConditionReason::kNotAllMembersReady},
      {ConditionType::kDataVolumesReady, ConditionStatus::kTrue,
       ConditionReason::kNoWarningsFoundForDataVolumes}};
  const auto built = build_conditions(results, previous, 3, now);
  REQUIRE(built.size() == 3);
  CHECK(built[0].type == ConditionType::kAllMembersReady);  // sorted by name
  CHECK(built[0].status == ConditionStatus::kFalse);
  CHECK(built[0].last_transition_time == now);
  CHECK(built[1].type == ConditionType::kDataVolumesReady);
  CHECK(built[1].last_transition_time == now);  // new
  CHECK(built[2].type == ConditionType::kReady);
  CHECK(built[2].last_transition_time == before);  // unchanged status
  CHECK(built[2].last_update_time == now);
}

TEST_CASE("conditions builder: stale owned conditions vanish, others stay", "[druid-status]") {
  const LocalTime before = kT0 - hours(2);
  const std::vector<Condition> previous = {
      cond(ConditionType::kBackupReady, ConditionStatus::kTrue, ConditionReason::kBackupSucceeded,
           before),
      cond(ConditionType::kLastSnapshotCompactionSucceeded, ConditionStatus::kTrue,
           ConditionReason::kOther, before)};
  const std::vector<ConditionResult> results = {
      {ConditionType::kReady, ConditionStatus::kTrue, ConditionReason::kQuorate}};
  const auto built = build_conditions(results, previous, 3, kT0);
  REQUIRE(built.size() == 2);
  CHECK(built[0].type == ConditionType::kLastSnapshotCompactionSucceeded);
  CHECK(built[0].last_update_time == before);  // carried over untouched
  CHECK(built[1].type == ConditionType::kReady);
}

TEST_CASE("conditions builder: spec.replicas 0 reports NotChecked", "[druid-status]") {
  const LocalTime before = kT0 - hours(2);
  const std::vector<Condition> previous = {
      cond(ConditionType::kReady, ConditionStatus::kTrue, ConditionReason::kQuorate, before),
      cond(ConditionType::kAllMembersReady, ConditionStatus::kFalse,
           ConditionReason::kNotAllMembersReady, before)};
  const std::vector<ConditionResult> results = {
      {ConditionType::kReady, ConditionStatus::kUnknown, ConditionReason::kNoMembersInStatus},
      {ConditionType::kAllMembersReady, ConditionStatus::kFalse,
       ConditionReason::kNotAllMembersReady},
      {ConditionType::kDataVolumesReady, ConditionStatus::kTrue,
       ConditionReason::kNoWarningsFoundForDataVolumes}};
  const auto built = build_conditions(results, previous, 0, kT0);
  REQUIRE(built.size() == 3);
  for (const auto& c : built) CHECK(name(c.reason) == "NotChecked");
  CHECK(built[0].status == ConditionStatus::kFalse);  // AllMembersReady kept
  CHECK(built[0].last_transition_time == before);
  CHECK(built[1].status == ConditionStatus::kUnknown);  // DataVolumesReady, new
  CHECK(built[2].status == ConditionStatus::kTrue);     // Ready keeps True...
  CHECK(built[2].last_transition_time == kT0);          // ...yet its transition time moves
}

// ---------------------------------------------------------------- BackupReady

namespace {

constexpr Duration kDelta = minutes(5);  // deltaSnapshotPeriod in these examples

SnapshotLease renewed(LocalTime t, LocalTime created = kT0 - hours(100)) {
  return {ObjectRead::kFound, t, created};
}
SnapshotLease never_renewed(LocalTime created = kT0 - hours(100)) {
  return {ObjectRead::kFound, std::nullopt, created};
}

BackupReadyInput backup(SnapshotLease full, SnapshotLease delta,
                        std::span<const Condition> previous = {}) {
  BackupReadyInput in;
  in.delta_snapshot_period = kDelta;
  in.full_snapshot_lease = full;
  in.delta_snapshot_lease = delta;
  in.previous_conditions = previous;
  return in;
}

BackupReadyPath path_of(const BackupReadyInput& in, LocalTime now) {
  return check_backup_ready(in, now).value().path;
}

const std::vector<Condition> kPrevUnknown = {cond(ConditionType::kBackupReady,
                                                  ConditionStatus::kUnknown,
                                                  ConditionReason::kUnknown, kT0 - hours(1))};
const std::vector<Condition> kPrevTrue = {cond(ConditionType::kBackupReady, ConditionStatus::kTrue,
                                               ConditionReason::kBackupSucceeded, kT0 - hours(1))};

}  // namespace

TEST_CASE("BackupReady: omitted without a backup store", "[druid-status]") {
  auto in = backup(renewed(kT0), renewed(kT0));
  REQUIRE(check_backup_ready(in, kT0).has_value());
  in.backup_store_configured = false;
  CHECK_FALSE(check_backup_ready(in, kT0).has_value());
}

TEST_CASE("BackupReady: Unknown before anything can be judged", "[druid-status]") {
  auto in = backup(renewed(kT0), renewed(kT0));
  in.full_snapshot_schedule.state = FullSnapshotSchedule::State::kInvalid;
  const auto v = check_backup_ready(in, kT0).value();
  CHECK(v.path == BackupReadyPath::kScheduleInvalid);
  CHECK(v.result.status == ConditionStatus::kUnknown);
  CHECK(name(v.result.reason) == "Unknown");

  auto missing = backup(renewed(kT0), renewed(kT0));
  missing.full_snapshot_lease.read = ObjectRead::kNotFound;
  CHECK(path_of(missing, kT0) == BackupReadyPath::kLeaseUnreadable);
  missing = backup(renewed(kT0), renewed(kT0));
  missing.delta_snapshot_lease.read = ObjectRead::kError;
  CHECK(path_of(missing, kT0) == BackupReadyPath::kLeaseUnreadable);

  CHECK(path_of(backup(never_renewed(), never_renewed(), kPrevUnknown), kT0 + hours(50)) ==
        BackupReadyPath::kNeverRenewed);
}

TEST_CASE("BackupReady: both renewed, the 2x delta window is strict", "[druid-status]") {
  const LocalTime now = kT0;
  const auto at_delta_age = [&](Duration age) {
    return check_backup_ready(backup(renewed(now - hours(1)), renewed(now - age)), now).value();
  };
  const auto ok = at_delta_age(kDelta * 2 - kNs);
  CHECK(ok.path == BackupReadyPath::kBothSucceeded);
  CHECK(ok.result.status == ConditionStatus::kTrue);
  CHECK(name(ok.result.reason) == "BackupSucceeded");
  CHECK(at_delta_age(kDelta * 2).path == BackupReadyPath::kCannotProve);
  CHECK(at_delta_age(kDelta * 2 + kNs).result.status == ConditionStatus::kUnknown);
}

TEST_CASE("BackupReady: both renewed, the full interval is strict", "[druid-status]") {
  const LocalTime now = kT0;
  const auto at_full_age = [&](Duration age, FullSnapshotSchedule schedule) {
    auto in = backup(renewed(now - age), renewed(now));
    in.full_snapshot_schedule = schedule;
    return path_of(in, now);
  };
  const FullSnapshotSchedule unset{};
  CHECK(at_full_age(hours(24) - kNs, unset) == BackupReadyPath::kBothSucceeded);
  CHECK(at_full_age(hours(24), unset) == BackupReadyPath::kCannotProve);
  const FullSnapshotSchedule hourly{FullSnapshotSchedule::State::kParsed, hours(1)};
  CHECK(at_full_age(hours(1) - kNs, hourly) == BackupReadyPath::kBothSucceeded);
  CHECK(at_full_age(hours(1), hourly) == BackupReadyPath::kCannotProve);
}

TEST_CASE("BackupReady: only delta renewed uses the full Lease's creation", "[druid-status]") {
  const LocalTime now = kT0;
  const auto with = [&](Duration delta_age, Duration full_lease_age) {
    return path_of(backup(never_renewed(now - full_lease_age), renewed(now - delta_age)), now);
  };
  CHECK(with(kDelta * 2 - kNs, hours(24) - kNs) == BackupReadyPath::kDeltaOnlySucceeded);
  CHECK(with(kDelta * 2, hours(24) - kNs) == BackupReadyPath::kCannotProve);
  CHECK(with(kDelta * 2 - kNs, hours(24)) == BackupReadyPath::kCannotProve);
}

TEST_CASE("BackupReady: only full renewed never leaves Unknown", "[druid-status]") {
  const LocalTime now = kT0;
  const auto with = [&](Duration full_age) {
    return check_backup_ready(backup(renewed(now - full_age), never_renewed(), kPrevUnknown), now)
        .value();
  };
  CHECK(with(kDelta * 5).path == BackupReadyPath::kCannotProve);
  CHECK(with(kDelta * 5 + kNs).path == BackupReadyPath::kDeltaSnapshotsNotStarted);
  CHECK(with(hours(30)).result.status == ConditionStatus::kUnknown);
  CHECK(with(minutes(1)).result.status == ConditionStatus::kUnknown);
}

TEST_CASE("BackupReady: False only past 3x delta and from Unknown or False", "[druid-status]") {
  const LocalTime now = kT0;
  const auto with = [&](Duration delta_age, std::span<const Condition> prev) {
    return check_backup_ready(backup(renewed(now - hours(1)), renewed(now - delta_age), prev), now)
        .value();
  };
  CHECK(with(kDelta * 3, kPrevUnknown).path == BackupReadyPath::kCannotProve);
  const auto failed = with(kDelta * 3 + kNs, kPrevUnknown);
  CHECK(failed.result.status == ConditionStatus::kFalse);
  CHECK(name(failed.result.reason) == "BackupFailed");
  const std::vector<Condition> prev_false = {cond(
      ConditionType::kBackupReady, ConditionStatus::kFalse, ConditionReason::kBackupFailed, kT0)};
  CHECK(with(hours(2), prev_false).path == BackupReadyPath::kStale);
  CHECK(with(hours(2), kPrevTrue).path == BackupReadyPath::kCannotProve);  // True -> Unknown first
  CHECK(with(hours(2), {}).path == BackupReadyPath::kCannotProve);         // no conditions at all
  // Only-delta Leases go stale the same way.
  CHECK(path_of(backup(never_renewed(now - hours(2)), renewed(now - hours(2)), kPrevUnknown),
                now) == BackupReadyPath::kStale);
}

TEST_CASE("BackupReady: without a previous BackupReady the last condition stands in",
          "[druid-status]") {
  const LocalTime now = kT0;
  std::vector<Condition> prev = {
      cond(ConditionType::kAllMembersReady, ConditionStatus::kTrue,
           ConditionReason::kAllMembersReady, kT0),
      cond(ConditionType::kReady, ConditionStatus::kFalse, ConditionReason::kQuorumLost, kT0)};
  CHECK(previous_backup_ready_status(prev) == ConditionStatus::kFalse);
  const auto stale = backup(renewed(now - hours(1)), renewed(now - hours(2)), prev);
  CHECK(path_of(stale, now) == BackupReadyPath::kStale);  // straight to False
  prev[1].status = ConditionStatus::kTrue;
  CHECK(path_of(stale, now) == BackupReadyPath::kCannotProve);
  CHECK_FALSE(previous_backup_ready_status({}).has_value());
  prev.push_back(
      cond(ConditionType::kBackupReady, ConditionStatus::kUnknown, ConditionReason::kUnknown, kT0));
  CHECK(previous_backup_ready_status(prev) == ConditionStatus::kUnknown);
}

TEST_CASE("BackupReady: verdicts respect their windows", "[druid-status]") {
  rc::prop("True needs a fresh delta, False a stale one and no previous True", [] {
    const LocalTime now = kT0;
    const auto gen_lease = [&] {
      SnapshotLease l;
      l.read = *rc::gen::element(ObjectRead::kFound, ObjectRead::kFound, ObjectRead::kNotFound);
      if (*rc::gen::arbitrary<bool>()) {
        l.renew_time = now - seconds(*rc::gen::inRange<std::int64_t>(-60, 200'000));
      }
      l.creation_timestamp = now - seconds(*rc::gen::inRange<std::int64_t>(0, 200'000));
      return l;
    };
    const auto prev_status = *rc::gen::element(ConditionStatus::kTrue, ConditionStatus::kFalse,
                                               ConditionStatus::kUnknown);
    const std::vector<Condition> prev = {
        cond(ConditionType::kBackupReady, prev_status, ConditionReason::kOther, kT0)};
    auto in = backup(gen_lease(), gen_lease(), prev);
    in.delta_snapshot_period = seconds(*rc::gen::inRange<std::int64_t>(1, 3600));
    const auto v = check_backup_ready(in, now).value();
    const auto& delta = in.delta_snapshot_lease;
    const auto& full = in.full_snapshot_lease;
    const bool readable = delta.read == ObjectRead::kFound && full.read == ObjectRead::kFound;
    if (v.result.status == ConditionStatus::kTrue) {
      RC_ASSERT(readable && delta.renew_time.has_value());
      RC_ASSERT(now - *delta.renew_time < in.delta_snapshot_period * 2);
      const LocalTime full_age_from = full.renew_time.value_or(full.creation_timestamp);
      RC_ASSERT(now - full_age_from < kDefaultFullSnapshotInterval);
    } else if (v.result.status == ConditionStatus::kFalse) {
      RC_ASSERT(readable && delta.renew_time.has_value());
      RC_ASSERT(now - *delta.renew_time > in.delta_snapshot_period * 3);
      RC_ASSERT(prev_status != ConditionStatus::kTrue);
    } else if (readable && delta.renew_time.has_value() &&
               now - *delta.renew_time > in.delta_snapshot_period * 3) {
      RC_ASSERT(prev_status == ConditionStatus::kTrue);  // else it would be False
    }
  });
}

TEST_CASE("conditions builder against a naive merge", "[druid-status]") {
  rc::prop("types, statuses, reasons and times", [] {
    const auto gen_type = rc::gen::element(
        ConditionType::kReady, ConditionType::kBackupReady, ConditionType::kAllMembersReady,
        ConditionType::kDataVolumesReady, ConditionType::kLastSnapshotCompactionSucceeded);
    const auto gen_status = rc::gen::element(ConditionStatus::kTrue, ConditionStatus::kFalse,
                                             ConditionStatus::kUnknown);
    std::vector<ConditionResult> results;
    const int n_results = *rc::gen::inRange(0, 6);
    for (int i = 0; i < n_results; ++i) {
      results.push_back({*gen_type, *gen_status, ConditionReason::kQuorate});
    }
    std::vector<Condition> previous;
    const int n_prev = *rc::gen::inRange(0, 6);
    for (int i = 0; i < n_prev; ++i) {
      previous.push_back(cond(*gen_type, *gen_status, ConditionReason::kOther, kT0 - seconds(i)));
    }
    const auto replicas = *rc::gen::element<std::int32_t>(0, 3);
    const LocalTime now = kT0 + hours(1);
    const auto built = build_conditions(results, previous, replicas, now);

    // Naive: walk the types by name; the last result and last previous entry of each count.
    std::vector<Condition> expected;
    for (int t = 0; t <= static_cast<int>(ConditionType::kReady); ++t) {
      const auto type = static_cast<ConditionType>(t);
      const Condition* old = nullptr;
      for (const auto& c : previous)
        if (c.type == type) old = &c;
      const ConditionResult* res = nullptr;
      for (const auto& r : results)
        if (r.type == type) res = &r;
      if (res == nullptr) {
        if (old != nullptr && type == ConditionType::kLastSnapshotCompactionSucceeded) {
          expected.push_back(*old);
        }
        continue;
      }
      Condition c{type, res->status, res->reason, now, now};
      if (old != nullptr && old->status == res->status)
        c.last_transition_time = old->last_transition_time;
      if (replicas == 0) {
        c.status = old != nullptr ? old->status : ConditionStatus::kUnknown;
        c.reason = ConditionReason::kNotChecked;
      }
      expected.push_back(c);
    }
    RC_ASSERT(built.size() == expected.size());
    for (std::size_t i = 0; i < built.size(); ++i) {
      RC_ASSERT(built[i].type == expected[i].type);
      RC_ASSERT(built[i].status == expected[i].status);
      RC_ASSERT(built[i].reason == expected[i].reason);
      RC_ASSERT(built[i].last_transition_time == expected[i].last_transition_time);
      RC_ASSERT(built[i].last_update_time == expected[i].last_update_time);
    }
  });
}
