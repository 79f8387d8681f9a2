// etcd-druid's status computation (models/druid/): holderIdentity parsing, status.members,
// the status conditions, BackupReady and the spec rules (PDB, replicas). Each branch and
// threshold of upstream's internal/health checks has an example here, with the boundary
// exactly at the threshold and one nanosecond either side.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "models/druid/backup_ready.hpp"
#include "models/druid/conditions.hpp"
#include "models/druid/etcd_spec_rules.hpp"
#include "models/druid/holder_identity.hpp"
#include "models/druid/member_status.hpp"
#include "druid_status_rig.hpp"

using namespace hasim;
using namespace hasim::druid;
using namespace hasim::druid::testing;

namespace {

std::string naive_hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%" PRIx64, v);
  return buf;
}

}  // namespace

// ---------------------------------------------------------------- holderIdentity

TEST_CASE("holderIdentity: the current 3-part form", "[druid-status]") {
  const auto h = parse_holder_identity("8e9e05c52164694d:cdf818194e3a8c32:Leader");
  REQUIRE(h.has_value());
  CHECK(h->member_id == "8e9e05c52164694d");
  CHECK(h->cluster_id == std::optional<std::string>("cdf818194e3a8c32"));
  CHECK(h->role == EtcdRole::kLeader);
  CHECK(name(*h->role) == "Leader");
}

TEST_CASE("holderIdentity: the legacy 2-part form has no clusterID", "[druid-status]") {
  const auto h = parse_holder_identity("a1:Member");
  REQUIRE(h.has_value());
  CHECK(h->member_id == "a1");
  CHECK_FALSE(h->cluster_id.has_value());
  CHECK(h->role == EtcdRole::kMember);
}

TEST_CASE("holderIdentity: an unknown role is kept as no role, not rejected", "[druid-status]") {
  for (const char* text : {"a1:c1:Follower", "a1:c1:leader", "a1:", "a1:c1:"}) {
    const auto h = parse_holder_identity(text);
    REQUIRE(h.has_value());
    CHECK_FALSE(h->role.has_value());
  }
  const auto empty_cluster = parse_holder_identity("a1::Leader");
  REQUIRE(empty_cluster.has_value());
  CHECK(empty_cluster->cluster_id == std::optional<std::string>(""));
}

TEST_CASE("holderIdentity: 1 or 4+ parts are rejected", "[druid-status]") {
  for (const char* text : {"", "a1", "Leader", "a:b:c:Leader", ":::"}) {
    CHECK_FALSE(parse_holder_identity(text).has_value());
  }
}

TEST_CASE("holderIdentity: formatted as backup-restore writes it", "[druid-status]") {
  CHECK(format_holder_identity(0x8e9e05c52164694dULL, 0xcdf818194e3a8c32ULL, true) ==
        "8e9e05c52164694d:cdf818194e3a8c32:Leader");
  CHECK(format_holder_identity(0, 0x0a, false) == "0:a:Member");
  CHECK(format_holder_identity(UINT64_MAX, 0x10, false) == "ffffffffffffffff:10:Member");
}

TEST_CASE("holderIdentity: format then parse gives back hex ids and the role", "[druid-status]") {
  rc::prop("round trip against printf's %x",
           [](std::uint64_t id, std::uint64_t cluster, bool leader) {
             const auto h = parse_holder_identity(format_holder_identity(id, cluster, leader));
             RC_ASSERT(h.has_value());
             RC_ASSERT(h->member_id == naive_hex(id));
             RC_ASSERT(h->cluster_id == std::optional<std::string>(naive_hex(cluster)));
             RC_ASSERT(h->role == (leader ? EtcdRole::kLeader : EtcdRole::kMember));
           });
  rc::prop("accepted exactly when there are 1 or 2 colons", [](const std::string& raw) {
    std::string text = raw;
    // Make colons common so 2- and 3-part strings are frequent.
    for (char& c : text)
      if (c == 'x' || c == 'y' || c == 'z') c = ':';
    const auto colons = std::count(text.begin(), text.end(), ':');
    RC_ASSERT(parse_holder_identity(text).has_value() == (colons == 1 || colons == 2));
  });
}

// ---------------------------------------------------------------- member status

TEST_CASE("member check: skipped members", "[druid-status]") {
  const MemberThresholds th;
  auto missing = lease("etcd-0", "a:c:Leader", kT0);
  missing.read = ObjectRead::kNotFound;
  CHECK_FALSE(check_member(missing, kT0, th).has_value());
  missing.read = ObjectRead::kError;
  CHECK_FALSE(check_member(missing, kT0, th).has_value());
  CHECK_FALSE(check_member(lease("etcd-0", std::nullopt, kT0), kT0, th).has_value());
  CHECK_FALSE(check_member(lease("etcd-0", "", kT0), kT0, th).has_value());
  CHECK_FALSE(check_member(lease("etcd-0", "a:b:c:Leader", kT0), kT0, th).has_value());
  // Bootstrapping: holderIdentity written but never renewed.
  CHECK_FALSE(check_member(lease("etcd-0", "a:c:Leader", std::nullopt), kT0, th).has_value());
  // The happy case of the same Lease is not skipped (so the above can fail).
  CHECK(check_member(lease("etcd-0", "a:c:Leader", kT0), kT0, th).has_value());
}

TEST_CASE("member check: Ready copies id, name and role", "[druid-status]") {
  const auto r = check_member(lease("etcd-1", "b2:c:Leader", kT0), kT0, MemberThresholds{});
  REQUIRE(r.has_value());
  CHECK(r->id == "b2");
  CHECK(r->name == "etcd-1");
  CHECK(r->role == EtcdRole::kLeader);
  CHECK(r->status == MemberStatus::kReady);
  CHECK(name(r->reason) == "LeaseSucceeded");
  const auto no_role = check_member(lease("etcd-1", "b2:Boss", kT0), kT0, MemberThresholds{});
  REQUIRE(no_role.has_value());
  CHECK_FALSE(no_role->role.has_value());
}

TEST_CASE("member check: the Unknown threshold is strict", "[druid-status]") {
  const MemberThresholds th;  // 1 min, 5 min
  const auto at = [&](Duration age, PodContainersReady pod) {
    return check_member(lease("etcd-0", "a:c:Member", kT0, pod), kT0 + age, th).value();
  };
  CHECK(at(minutes(1) - kNs, PodContainersReady::kFalse).status == MemberStatus::kReady);
  CHECK(at(minutes(1), PodContainersReady::kFalse).status == MemberStatus::kReady);
  const auto past = at(minutes(1) + kNs, PodContainersReady::kTrue);
  CHECK(past.status == MemberStatus::kUnknown);
  CHECK(name(past.reason) == "LeaseExpired");
  // A renewTime in the future (clock skew) is Ready.
  CHECK(at(-minutes(3), PodContainersReady::kFalse).status == MemberStatus::kReady);
}

TEST_CASE("member check: a stale Lease consults the pod", "[druid-status]") {
  const MemberThresholds th;
  const LocalTime now = kT0 + minutes(3);
  const auto with_pod = [&](PodContainersReady pod) {
    return check_member(lease("etcd-0", "a:c:Member", kT0, pod), now, th).value();
  };
  CHECK(with_pod(PodContainersReady::kTrue).reason == MemberReason::kLeaseExpired);
  // A pod that could not be read (not NotFound) gives the benefit of the doubt.
  CHECK(with_pod(PodContainersReady::kPodUnreadable).status == MemberStatus::kUnknown);
  for (const auto pod : {PodContainersReady::kFalse, PodContainersReady::kConditionAbsent,
                         PodContainersReady::kPodNotFound}) {
    const auto r = with_pod(pod);
    CHECK(r.status == MemberStatus::kNotReady);
    CHECK(name(r.reason) == "ContainersNotReady");
  }
}

TEST_CASE("member check: the NotReady grace period is strict and ignores the pod",
          "[druid-status]") {
  const MemberThresholds th;
  const auto at = [&](Duration age) {
    return check_member(lease("etcd-0", "a:c:Member", kT0), kT0 + age, th).value();
  };
  CHECK(at(minutes(6) - kNs).status == MemberStatus::kUnknown);
  CHECK(at(minutes(6)).status == MemberStatus::kUnknown);
  const auto past = at(minutes(6) + kNs);
  CHECK(past.status == MemberStatus::kNotReady);
  CHECK(name(past.reason) == "UnknownGracePeriodExceeded");
}

TEST_CASE("member check: configured thresholds", "[druid-status]") {
  const MemberThresholds th{seconds(10), seconds(20)};
  const auto at = [&](Duration age) {
    return check_member(lease("etcd-0", "a:c:Member", kT0), kT0 + age, th).value().status;
  };
  CHECK(at(seconds(10)) == MemberStatus::kReady);
  CHECK(at(seconds(10) + kNs) == MemberStatus::kUnknown);
  CHECK(at(seconds(30)) == MemberStatus::kUnknown);
  CHECK(at(seconds(30) + kNs) == MemberStatus::kNotReady);
}

TEST_CASE("member check agrees with a classifier by Lease age", "[druid-status]") {
  rc::prop("status from age and pod", [] {
    const MemberThresholds th{seconds(*rc::gen::inRange(0, 120)),
                              seconds(*rc::gen::inRange(0, 600))};
    const Duration age =
        nanoseconds(*rc::gen::inRange<std::int64_t>(-1'000'000'000'000, 1'000'000'000'000));
    const auto pod = *rc::gen::element(
        PodContainersReady::kTrue, PodContainersReady::kFalse, PodContainersReady::kConditionAbsent,
        PodContainersReady::kPodNotFound, PodContainersReady::kPodUnreadable);
    const auto r = check_member(lease("m", "1:2:Member", kT0, pod), kT0 + age, th);
    RC_ASSERT(r.has_value());
    MemberStatus expected = MemberStatus::kReady;
    if (age.ns > (th.unknown_threshold + th.not_ready_threshold).ns) {
      expected = MemberStatus::kNotReady;
    } else if (age.ns > th.unknown_threshold.ns) {
      const bool pod_ok =
          pod == PodContainersReady::kTrue || pod == PodContainersReady::kPodUnreadable;
      expected = pod_ok ? MemberStatus::kUnknown : MemberStatus::kNotReady;
    }
    RC_ASSERT(r->status == expected);
  });
}

TEST_CASE("status.members: sorted, skipped members absent", "[druid-status]") {
  const std::vector<MemberLeaseObservation> leases = {lease("etcd-2", "c:x:Member", kT0),
                                                      lease("etcd-0", "a:x:Leader", kT0),
                                                      lease("etcd-1", "b:x:Member", std::nullopt)};
  const auto members = compute_member_statuses(leases, {}, kT0 + seconds(5), MemberThresholds{});
  REQUIRE(members.size() == 2);
  CHECK(members[0].name == "etcd-0");
  CHECK(members[0].role == EtcdRole::kLeader);
  CHECK(members[1].name == "etcd-2");
  CHECK(members[1].last_transition_time == kT0 + seconds(5));
}

TEST_CASE("status.members: lastTransitionTime follows the status only", "[druid-status]") {
  const LocalTime old_ltt = kT0 - hours(1);
  const LocalTime now = kT0 + minutes(10);
  std::vector<EtcdMemberStatus> previous = {member("etcd-0", MemberStatus::kNotReady, old_ltt),
                                            member("etcd-1", MemberStatus::kReady, old_ltt),
                                            member("etcd-9", MemberStatus::kReady, old_ltt)};
  previous[0].reason = MemberReason::kContainersNotReady;
  const std::vector<MemberCheckResult> results = {
      {"a", "etcd-0", EtcdRole::kMember, MemberStatus::kNotReady,
       MemberReason::kUnknownGracePeriodExceeded},  // same status, new reason: kept
      {"b", "etcd-1", EtcdRole::kLeader, MemberStatus::kUnknown,
       MemberReason::kLeaseExpired},  // status changed: now
      {"c", "etcd-3", std::nullopt, MemberStatus::kReady, MemberReason::kLeaseSucceeded}};
  const auto members = build_member_statuses(results, previous, now);
  REQUIRE(members.size() == 3);  // etcd-9 had no result this round: dropped
  CHECK(members[0].last_transition_time == old_ltt);
  CHECK(members[0].reason == MemberReason::kUnknownGracePeriodExceeded);
  CHECK(members[1].last_transition_time == now);
  CHECK(members[1].role == EtcdRole::kLeader);
  CHECK(members[2].name == "etcd-3");
  CHECK(members[2].last_transition_time == now);
}

TEST_CASE("status.members: builder against a naive merge", "[druid-status]") {
  rc::prop("names, statuses and transition times", [] {
    const auto gen_status =
        rc::gen::element(MemberStatus::kReady, MemberStatus::kNotReady, MemberStatus::kUnknown);
    const auto names = std::vector<std::string>{"e-0", "e-1", "e-10", "e-2", "E-3"};
    std::vector<MemberCheckResult> results;
    const int n_results = *rc::gen::inRange(0, 8);
    for (int i = 0; i < n_results; ++i) {
      results.push_back({std::to_string(i), *rc::gen::elementOf(names), std::nullopt, *gen_status,
                         MemberReason::kLeaseSucceeded});
    }
    std::vector<EtcdMemberStatus> previous;
    const int n_prev = *rc::gen::inRange(0, 6);
    for (int i = 0; i < n_prev; ++i) {
      previous.push_back(member(*rc::gen::elementOf(names), *gen_status, kT0 + seconds(i)));
    }
    const LocalTime now = kT0 + hours(1);
    const auto built = build_member_statuses(results, previous, now);
    // Naive: for each distinct name, the LAST result and the LAST previous entry of it.
    std::vector<std::string> expected_names;
    for (const auto& r : results) expected_names.push_back(r.name);
    std::sort(expected_names.begin(), expected_names.end());
    expected_names.erase(std::unique(expected_names.begin(), expected_names.end()),
                         expected_names.end());
    RC_ASSERT(built.size() == expected_names.size());
    for (std::size_t i = 0; i < built.size(); ++i) {
      RC_ASSERT(built[i].name == expected_names[i]);
      const auto last_result = std::find_if(results.rbegin(), results.rend(),
                                            [&](const auto& r) { return r.name == built[i].name; });
      RC_ASSERT(built[i].id == last_result->id);
      RC_ASSERT(built[i].status == last_result->status);
      const auto last_prev = std::find_if(previous.rbegin(), previous.rend(),
                                          [&](const auto& m) { return m.name == built[i].name; });
      const bool keep = last_prev != previous.rend() && last_prev->status == built[i].status;
      RC_ASSERT(built[i].last_transition_time == (keep ? last_prev->last_transition_time : now));
    }
  });
}

// ---------------------------------------------------------------- spec rules

TEST_CASE("PDB minAvailable", "[druid-status]") {
  CHECK(pdb_min_available(0) == 0);
  CHECK(pdb_min_available(1) == 0);
  CHECK(pdb_min_available(2) == 2);
  CHECK(pdb_min_available(3) == 2);
  CHECK(pdb_min_available(4) == 3);
  CHECK(pdb_min_available(5) == 3);
  rc::prop("the smallest majority for two or more", [] {
    const auto n = *rc::gen::inRange<std::int32_t>(2, 1000);
    const auto m = pdb_min_available(n);
    RC_ASSERT(2 * m > n);
    RC_ASSERT(2 * (m - 1) <= n);
  });
}

TEST_CASE("PDB unhealthyPodEvictionPolicy", "[druid-status]") {
  CHECK_FALSE(unhealthy_pod_eviction_policy(false).has_value());
  REQUIRE(unhealthy_pod_eviction_policy(true).has_value());
  CHECK(name(*unhealthy_pod_eviction_policy(true)) == "AlwaysAllow");
  CHECK(kAllowUnhealthyPodEvictionAnnotation ==
        "resources.druid.gardener.cloud/allow-unhealthy-pod-eviction");
}

TEST_CASE("spec.replicas may only grow or go to 0", "[druid-status]") {
  CHECK(replicas_update_allowed(3, 5));
  CHECK(replicas_update_allowed(3, 3));
  CHECK(replicas_update_allowed(3, 0));
  CHECK(replicas_update_allowed(0, 1));  // waking from hibernation to any size
  CHECK(replicas_update_allowed(0, 0));
  CHECK_FALSE(replicas_update_allowed(3, 1));
  CHECK_FALSE(replicas_update_allowed(5, 4));
  CHECK_FALSE(replicas_update_allowed(3, 2));
}

TEST_CASE("member Lease and pod names", "[druid-status]") {
  CHECK(member_lease_names("etcd-main", "", 3) ==
        std::vector<std::string>{"etcd-main-0", "etcd-main-1", "etcd-main-2"});
  CHECK(member_lease_names("etcd-main", "p", 2) ==
        std::vector<std::string>{"p-etcd-main-0", "p-etcd-main-1"});
  CHECK(member_lease_names("etcd-main", "", 0).empty());
  CHECK(pod_name_from_lease_name("p-etcd-main-1", "p") == "etcd-main-1");
  CHECK(pod_name_from_lease_name("etcd-main-1", "") == "etcd-main-1");
  CHECK(pod_name_from_lease_name("q-etcd-main-1", "p") == "q-etcd-main-1");
}
