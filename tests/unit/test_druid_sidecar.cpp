// The pure decision units of the etcd-backup-restore sidecar (models/druid/sidecar_*.hpp):
// Initialize's choice, the served initial-cluster(-state), the leading-sidecar poll, the
// membership retry policies, defragmentation order and schedule, the member-Lease identity.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "civil_time.hpp"
#include "models/druid/sidecar_cluster_state.hpp"
#include "models/druid/sidecar_cron.hpp"
#include "models/druid/sidecar_defrag.hpp"
#include "models/druid/sidecar_heartbeat.hpp"
#include "models/druid/sidecar_initializer.hpp"
#include "models/druid/sidecar_leading.hpp"
#include "models/druid/sidecar_member_ops.hpp"

using namespace hasim;
using namespace hasim::druid::sidecar;

namespace {

LocalTime at(int y, unsigned mo, unsigned d, int hh = 0, int mm = 0, int ss = 0) {
  return testing::utc(y, mo, d, hh, mm, ss);
}

// The waits of a call that keeps failing with `outcome`, until its policy stops retrying.
template <typename Outcome, typename StepFn>
std::vector<Duration> waits_until_stop(Backoff b, Outcome outcome, StepFn step_fn,
                                       AddLearnerStep* last) {
  std::vector<Duration> waits;
  for (int attempt = 1; attempt <= 20; ++attempt) {
    *last = step_fn(b, outcome);
    if (last->verdict != RetryVerdict::Retry) break;
    waits.push_back(last->wait);
    b = last->next;
  }
  return waits;
}

}  // namespace

TEST_CASE("validate: an invalid dir in a multi-node cluster with backups is InvalidInMultiNode",
          "[druid-sidecar]") {
  ValidationInput in{DataDirStatus::DataDirectoryNotExist, CorruptionCheck::NotRun, 3, false};
  CHECK(validate(in) == DataDirStatus::DataDirStatusInvalidInMultiNode);
  in.sanity = DataDirStatus::DataDirectoryInvStruct;
  CHECK(validate(in) == DataDirStatus::DataDirStatusInvalidInMultiNode);
  // Even a status Initialize would otherwise refuse becomes repairable.
  in.sanity = DataDirStatus::DataDirectoryStatusUnknown;
  CHECK(validate(in) == DataDirStatus::DataDirStatusInvalidInMultiNode);
  // No mapping with an empty bucket or a single member.
  in = ValidationInput{DataDirStatus::DataDirectoryNotExist, CorruptionCheck::NotRun, 3, true};
  CHECK(validate(in) == DataDirStatus::DataDirectoryNotExist);
  in.original_cluster_size = 1;
  in.backup_bucket_empty = false;
  CHECK(validate(in) == DataDirStatus::DataDirectoryNotExist);
  in.sanity = DataDirStatus::RevisionConsistencyError;
  CHECK(validate(in) == DataDirStatus::RevisionConsistencyError);
  // Wrong volume and bolt lock pass checkStatus unchanged.
  in = ValidationInput{DataDirStatus::WrongVolumeMounted, CorruptionCheck::NotRun, 3, false};
  CHECK(validate(in) == DataDirStatus::WrongVolumeMounted);
  in.sanity = DataDirStatus::FailToOpenBoltDBError;
  CHECK(validate(in) == DataDirStatus::FailToOpenBoltDBError);
}

TEST_CASE("validate: the full-mode check bypasses checkStatus", "[druid-sidecar]") {
  ValidationInput in{DataDirStatus::DataDirectoryValid, CorruptionCheck::Corrupt, 3, false};
  CHECK(validate(in) == DataDirStatus::DataDirectoryCorrupt);
  in.full_mode = CorruptionCheck::BoltLockTimeout;
  CHECK(validate(in) == DataDirStatus::FailToOpenBoltDBError);
  in.full_mode = CorruptionCheck::Clean;
  CHECK(validate(in) == DataDirStatus::DataDirectoryValid);
  in.full_mode = CorruptionCheck::NotRun;
  CHECK(validate(in) == DataDirStatus::DataDirectoryValid);
}

TEST_CASE("WasMemberInCluster: etcd's answer wins, the lease only when etcd is unreadable",
          "[druid-sidecar]") {
  CHECK(was_member_in_cluster(MemberListRead::Present, MemberLeaseRead::HolderNil));
  CHECK_FALSE(was_member_in_cluster(MemberListRead::Absent, MemberLeaseRead::HolderSet));
  CHECK(was_member_in_cluster(MemberListRead::Unreadable, MemberLeaseRead::HolderSet));
  CHECK_FALSE(was_member_in_cluster(MemberListRead::Unreadable, MemberLeaseRead::HolderNil));
  CHECK_FALSE(was_member_in_cluster(MemberListRead::Unreadable, MemberLeaseRead::Unreadable));
  // IsClusterScaledUp: only a readable list without this member.
  CHECK(is_cluster_scaled_up(MemberListRead::Absent));
  CHECK_FALSE(is_cluster_scaled_up(MemberListRead::Present));
  CHECK_FALSE(is_cluster_scaled_up(MemberListRead::Unreadable));
}

namespace {

using L = MemberListRead;
using H = MemberLeaseRead;
using S = DataDirStatus;
using St = SnapstoreRead;
using A = InitAction;
using F = FatalReason;

struct InitCase {
  const char* branch;
  InitObservation obs;  // size, list, list at the scale-up check, lease, status, store, dir
  A action;
  F fatal = F::None;
  bool heartbeat = false;
  bool wipe = false;
};

// One row per branch of Initialize, in upstream's order of checks.
// clang-format off
const InitCase kInitCases[] = {
  {"scale-up: a learner, status never looked at", {3, L::Absent, L::Absent, H::HolderNil,
   S::WrongVolumeMounted}, A::ScaleUpAddLearner},
  {"scale-up decided by the second read", {3, L::Unreadable, L::Absent}, A::ScaleUpAddLearner},
  {"no scale-up when the second read fails", {3, L::Absent, L::Unreadable}, A::UseExistingData},
  {"a lease holder is a former member, not a scale-up",
   {3, L::Unreadable, L::Absent, H::HolderSet}, A::UseExistingData, F::None, true},
  {"a single node never checks membership", {1, L::Absent, L::Absent}, A::UseExistingData},
  {"fatal: wrong volume, even for a former member", {3, L::Present, L::Present, H::HolderNil,
   S::WrongVolumeMounted}, A::Fatal, F::WrongVolumeMounted, true},
  {"fatal: bolt file lock", {3, L::Present, L::Present, H::HolderNil,
   S::FailToOpenBoltDBError}, A::Fatal, F::BoltDBFileLock, true},
  {"fatal: status unknown", {1, L::Unreadable, L::Unreadable, H::HolderNil,
   S::DataDirectoryStatusUnknown}, A::Fatal, F::StatusUnknown},
  {"valid dir used by a known member", {3, L::Present, L::Present}, A::UseExistingData, F::None,
   true},
  {"repair: InvalidInMultiNode", {3, L::Unreadable, L::Unreadable, H::HolderNil,
   S::DataDirStatusInvalidInMultiNode}, A::MemberRepair},
  {"repair: corrupt in multi-node, backups or not", {3, L::Unreadable, L::Unreadable,
   H::HolderNil, S::DataDirectoryCorrupt, St::HasSnapshots}, A::MemberRepair},
  {"repair: a former member with an invalid dir", {3, L::Present, L::Present, H::HolderNil,
   S::DataDirectoryInvStruct}, A::MemberRepair, F::None, true},
  {"fresh multi-node bootstrap: nothing to wipe", {3, L::Unreadable, L::Unreadable, H::HolderNil,
   S::DataDirectoryNotExist, St::Empty, false}, A::FreshStart},
  {"never a member, invalid dir, no backups: wiped", {3, L::Unreadable, L::Unreadable,
   H::HolderNil, S::DataDirectoryInvStruct, St::Empty, true}, A::FreshStart, F::None, false, true},
  {"single node restores a corrupt dir", {1, L::Unreadable, L::Unreadable, H::HolderNil,
   S::DataDirectoryCorrupt, St::HasSnapshots, true}, A::RestoreFromSnapshots},
  {"single node restores a dir behind the backup", {1, L::Unreadable, L::Unreadable, H::HolderNil,
   S::RevisionConsistencyError, St::HasSnapshots, true}, A::RestoreFromSnapshots},
  {"single node, no snapstore, no dir: bootstrap", {1, L::Unreadable, L::Unreadable, H::HolderNil,
   S::DataDirectoryNotExist, St::NotConfigured, false}, A::FreshStart},
  {"single node, no snapstore, bolt corrupt: wiped", {1, L::Unreadable, L::Unreadable,
   H::HolderNil, S::BoltDBCorrupt, St::NotConfigured, true}, A::FreshStart, F::None, false, true},
  {"an unreadable snapstore fails the restore", {1, L::Unreadable, L::Unreadable, H::HolderNil,
   S::DataDirectoryCorrupt, St::Unreadable}, A::Fatal, F::SnapstoreError},
};
// clang-format on

}  // namespace

TEST_CASE("Initialize: each branch", "[druid-sidecar]") {
  for (const InitCase& c : kInitCases) {
    DYNAMIC_SECTION(c.branch) {
      const InitDecision d = decide_initialize(c.obs);
      CHECK(name(d.action) == name(c.action));
      CHECK(name(d.fatal) == name(c.fatal));
      CHECK(d.member_heartbeat_present == c.heartbeat);
      CHECK(d.wipe_data_dir == c.wipe);
    }
  }
}

TEST_CASE("getClusterState", "[druid-sidecar]") {
  CHECK(get_cluster_state(1, LearnerRead::Present) == ClusterState::New);
  CHECK(get_cluster_state(3, LearnerRead::Present) == ClusterState::Existing);
  CHECK(get_cluster_state(3, LearnerRead::Absent) == ClusterState::New);
  CHECK(get_cluster_state(3, LearnerRead::Unreadable) == ClusterState::New);
  CHECK(get_cluster_state(2, LearnerRead::Present) == ClusterState::Existing);
  CHECK(name(ClusterState::New) == "new");
  CHECK(name(ClusterState::Existing) == "existing");
  // getInitialCluster keeps listed members and itself.
  const std::vector<InitialClusterEntry> configured{{"etcd-0", "https://etcd-0:2380"},
                                                    {"etcd-1", "https://etcd-1:2380"},
                                                    {"etcd-2", "https://etcd-2:2380"}};
  // Unreadable, or at most one member listed: unchanged.
  CHECK(tailor_initial_cluster(configured, std::nullopt, "etcd-2") == configured);
  CHECK(tailor_initial_cluster(configured, std::vector<std::string>{"etcd-0"}, "etcd-2") ==
        configured);
  // Two members listed, etcd-2 joining: etcd-1 is dropped.
  const std::vector<InitialClusterEntry> expected{configured[0], configured[2]};
  CHECK(tailor_initial_cluster(configured, std::vector<std::string>{"etcd-0", ""}, "etcd-2") ==
        expected);
  CHECK(tailor_initial_cluster(configured, std::vector<std::string>{"etcd-0", "etcd-1", "etcd-2"},
                               "etcd-2") == configured);
}

TEST_CASE("EtcdMemberStatus", "[druid-sidecar]") {
  CHECK(etcd_member_status({false, 1, 1, false}).error);
  const MemberStatus leader = etcd_member_status({true, 7, 7, false});
  CHECK((leader.is_leader && !leader.error));
  CHECK(etcd_member_status({true, 7, 0, false}).error);  // no leader
  CHECK(etcd_member_status({true, 7, 0, true}).error);   // a learner without a leader too
  const MemberStatus learner = etcd_member_status({true, 7, 3, true});
  CHECK((learner.is_learner && !learner.is_leader && !learner.error));
  const MemberStatus follower = etcd_member_status({true, 7, 3, false});
  CHECK((!follower.is_learner && !follower.is_leader && !follower.error));
}

namespace {

using LS = LeadingState;
constexpr MemberStatus kError{true, false, false};
constexpr MemberStatus kIsLeader{false, true, false};
constexpr MemberStatus kNotLeader{false, false, false};
constexpr MemberStatus kLearner{false, false, true};

struct LeadingCase {
  const char* branch;
  LS current;
  MemberStatus status;
  int size;
  LS next;
  LeadingEffects effects;  // stop lease, start lease, started, stopped, promote
};

// One row per branch of the leading-sidecar loop.
// clang-format off
const LeadingCase kLeadingCases[] = {
  {"error from Follower stops renewal", LS::Follower, kError, 3, LS::Unknown, {true}},
  {"error while Unknown: renewal already stopped", LS::Unknown, kError, 3, LS::Unknown, {}},
  {"error as Leader also stops leading", LS::Leader, kError, 3, LS::Unknown,
   {true, false, false, true}},
  {"Follower leads; renewal never stopped", LS::Follower, kIsLeader, 3, LS::Leader,
   {false, false, true}},
  {"Unknown leads, restarts renewal", LS::Unknown, kIsLeader, 3, LS::Leader, {false, true, true}},
  {"Candidate leads", LS::Candidate, kIsLeader, 3, LS::Leader, {false, false, true}},
  {"Leader stays Leader: no effects", LS::Leader, kIsLeader, 3, LS::Leader, {}},
  {"Leader loses", LS::Leader, kNotLeader, 3, LS::Follower, {false, false, false, true}},
  {"Unknown to Follower; a learner waits a poll", LS::Unknown, kLearner, 3, LS::Follower,
   {false, true}},
  {"Follower learner promotes", LS::Follower, kLearner, 3, LS::Follower,
   {false, false, false, false, true}},
  {"no promote in a single-member cluster", LS::Follower, kLearner, 1, LS::Follower, {}},
  {"Follower voter: nothing", LS::Follower, kNotLeader, 3, LS::Follower, {}},
  {"Candidate not leader: no branch upstream", LS::Candidate, kNotLeader, 3, LS::Candidate, {}},
};
// clang-format on

}  // namespace

TEST_CASE("leading: each branch", "[druid-sidecar]") {
  for (const LeadingCase& c : kLeadingCases) {
    DYNAMIC_SECTION(c.branch) {
      const LeadingStep s = leading_transition(c.current, c.status, c.size);
      CHECK(name(s.next) == name(c.next));
      CHECK(s.effects.stop_lease_renewal == c.effects.stop_lease_renewal);
      CHECK(s.effects.start_lease_renewal == c.effects.start_lease_renewal);
      CHECK(s.effects.started_leading == c.effects.started_leading);
      CHECK(s.effects.stopped_leading == c.effects.stopped_leading);
      CHECK(s.effects.promote == c.effects.promote);
    }
  }
  CHECK(name(LS::Unknown) == "UnknownState");
  CHECK(kDefaultReelectionPeriod == seconds(5));
  CHECK(kDefaultEtcdStatusConnectTimeout == seconds(5));
  CHECK(kInitialLeadingState == LS::Follower);
}

TEST_CASE("AddLearnerWithRetry: 6 attempts, sleeps doubling from 2 s", "[druid-sidecar]") {
  AddLearnerStep step;
  const auto waits = waits_until_stop(add_learner_backoff(), AddLearnerOutcome::OtherError,
                                      add_learner_step, &step);
  CHECK(step.verdict == RetryVerdict::GiveUp);
  CHECK(step.wait == Duration{});
  CHECK(waits ==
        std::vector<Duration>{seconds(2), seconds(4), seconds(8), seconds(16), seconds(32)});
  CHECK(add_learner_backoff().jitter_percent == 10);
  // AddLearnerWithRetry: too many learners waits 5 s more.
  const AddLearnerStep first =
      add_learner_step(add_learner_backoff(), AddLearnerOutcome::TooManyLearners);
  CHECK(first.verdict == RetryVerdict::Retry);
  CHECK(first.wait == seconds(7));
  Backoff last = add_learner_backoff();
  last.steps = 1;
  const AddLearnerStep final_step = add_learner_step(last, AddLearnerOutcome::TooManyLearners);
  CHECK(final_step.verdict == RetryVerdict::GiveUp);
  CHECK(final_step.wait == seconds(5));
  // AddLearnerWithRetry: existing member or peer URL is success.
  for (const auto outcome : {AddLearnerOutcome::Added, AddLearnerOutcome::MemberExists,
                             AddLearnerOutcome::PeerURLExists}) {
    const AddLearnerStep s = add_learner_step(add_learner_backoff(), outcome);
    CHECK(s.verdict == RetryVerdict::Done);
    CHECK(s.wait == Duration{});
    CHECK(repair_add_learner_step(default_backoff(), outcome).verdict == RetryVerdict::Done);
  }
}

TEST_CASE("restoreInMultiNode: DefaultBackoff 10, 50, 250 ms; too many learners no extra",
          "[druid-sidecar]") {
  AddLearnerStep step;
  const auto waits =
      waits_until_stop(default_backoff(), RemoveOutcome::RemoveError, remove_member_step, &step);
  CHECK(step.verdict == RetryVerdict::GiveUp);
  CHECK(waits == std::vector<Duration>{milliseconds(10), milliseconds(50), milliseconds(250)});
  CHECK(remove_member_step(default_backoff(), RemoveOutcome::NotListed).verdict ==
        RetryVerdict::Done);
  CHECK(remove_member_step(default_backoff(), RemoveOutcome::ListError).verdict ==
        RetryVerdict::Retry);
  const AddLearnerStep add =
      repair_add_learner_step(default_backoff(), AddLearnerOutcome::TooManyLearners);
  CHECK(add.verdict == RetryVerdict::Retry);
  CHECK(add.wait == milliseconds(10));
}

TEST_CASE("Backoff: hitting the cap sleeps once more and gives up", "[druid-sidecar]") {
  Backoff b = create_backoff(seconds(2), 10);
  std::vector<Duration> sleeps;
  BackoffStep step;
  int attempts = 0;
  for (; attempts < 20; ++attempts) {
    step = after_failed_attempt(b);
    sleeps.push_back(step.sleep);
    if (!step.retry) break;
    b = step.next;
  }
  CHECK(attempts + 1 == 6);  // 6 attempts although 10 steps were allowed
  CHECK(sleeps == std::vector<Duration>{seconds(2), seconds(4), seconds(8), seconds(16),
                                        seconds(32), seconds(64)});
  CHECK(step.next.duration == seconds(120));
  CHECK(step.next.steps == 0);
  // IsMemberInCluster probe: 4 attempts, 14 s of sleeps.
  Backoff probe = member_presence_backoff();
  Duration total{};
  int probes = 1;
  for (; probes <= 10; ++probes) {
    const BackoffStep s = after_failed_attempt(probe);
    total += s.sleep;
    if (!s.retry) break;
    probe = s.next;
  }
  CHECK(probes == 4);
  CHECK(total == seconds(14));
  // promote: success or not-a-learner is done, the rest retries next poll.
  CHECK(promote_verdict(PromoteOutcome::Promoted) == RetryVerdict::Done);
  CHECK(promote_verdict(PromoteOutcome::MemberNotLearner) == RetryVerdict::Done);
  CHECK(promote_verdict(PromoteOutcome::LearnerNotReady) == RetryVerdict::Retry);
  CHECK(promote_verdict(PromoteOutcome::MissingMember) == RetryVerdict::Retry);
  CHECK(promote_verdict(PromoteOutcome::OtherError) == RetryVerdict::Retry);
  CHECK(name(PromoteOutcome::MemberNotLearner) == "ErrMemberNotLearner");
}

TEST_CASE("defrag order: followers in list order, the leader last", "[druid-sidecar]") {
  const std::vector<DefragMember> members{{0x10}, {0x20}, {0x30}};
  CHECK(defrag_order(members, 0x20) == std::vector<std::uint64_t>{0x10, 0x30, 0x20});
  CHECK(defrag_order(members, 0x10) == std::vector<std::uint64_t>{0x20, 0x30, 0x10});
  CHECK(defrag_order(members, 0x30) == std::vector<std::uint64_t>{0x10, 0x20, 0x30});
  // The first member saw no leader, or one that is not listed: all are "followers".
  CHECK(defrag_order(members, 0) == std::vector<std::uint64_t>{0x10, 0x20, 0x30});
  CHECK(defrag_order(members, 0x99) == std::vector<std::uint64_t>{0x10, 0x20, 0x30});
  CHECK(defrag_order({{0x42}}, 0) == std::vector<std::uint64_t>{0x42});
  // defrag run: ticks, health gate, skip and finish.
  CHECK(first_defrag_tick(at(2026, 11, 28)) == at(2026, 11, 28, 0, 1));
  CHECK(on_cron_fire(true) == CronFire::Skip);
  CHECK(on_cron_fire(false) == CronFire::StartRun);
  CHECK(defrag_tick(true, true) == DefragTick::RunSequence);
  CHECK(defrag_tick(true, false) == DefragTick::WaitNextTick);
  CHECK(defrag_tick(false, true) == DefragTick::WaitNextTick);
  CHECK(after_sequence(true) == DefragRunState::Finished);
  CHECK(after_sequence(false) == DefragRunState::Running);
  CHECK(kDruidDefragTimeout == minutes(15));
  CHECK(kDefragRetryPeriod == minutes(1));
}

TEST_CASE("cron: the default schedule fires at midnight on days 1, 4, ..., 31", "[druid-sidecar]") {
  const auto s = parse_cron(kDefaultDefragmentationSchedule);
  REQUIRE(s.has_value());
  CHECK(cron_next(*s, at(2026, 11, 26, 22, 53)) == at(2026, 11, 28));
  CHECK(cron_next(*s, at(2026, 11, 27, 23, 59, 59)) == at(2026, 11, 28));
  // Exactly at an activation: the next one (November has no 31st).
  CHECK(cron_next(*s, at(2026, 11, 28)) == at(2026, 12, 1));
  CHECK(cron_next(*s, at(2026, 11, 28) + nanoseconds(1)) == at(2026, 12, 1));
  CHECK(cron_next(*s, at(2026, 11, 28) - nanoseconds(1)) == at(2026, 11, 28));
  // The 31st and the 1st are consecutive days.
  CHECK(cron_next(*s, at(2026, 12, 31)) == at(2027, 1, 1));
  CHECK(cron_next(*s, at(2027, 2, 28)) == at(2027, 3, 1));
  // cron: day-of-month and day-of-week combine by robfig's rule.
  // Neither starred: either day matches (13 Nov 2026 is a Friday; 6 Nov is one too).
  const auto either = parse_cron("30 6 13 * 5");
  REQUIRE(either.has_value());
  CHECK(cron_next(*either, at(2026, 11, 1)) == at(2026, 11, 6, 6, 30));
  CHECK(cron_next(*either, at(2026, 11, 6, 6, 30)) == at(2026, 11, 13, 6, 30));
  // A starred day-of-week: day-of-month alone decides.
  const auto dom_only = parse_cron("0 12 13 * *");
  REQUIRE(dom_only.has_value());
  CHECK(cron_next(*dom_only, at(2026, 11, 1)) == at(2026, 11, 13, 12));
  // Never: 30 February.
  const auto never = parse_cron("0 0 30 2 *");
  REQUIRE(never.has_value());
  CHECK_FALSE(cron_next(*never, at(2026, 1, 1)).has_value());
}

TEST_CASE("cron: parse errors", "[druid-sidecar]") {
  std::string error;
  CHECK_FALSE(parse_cron("0 0 * *", &error).has_value());
  CHECK_FALSE(error.empty());
  for (const char* bad : {"0 0 * * * *", "60 0 * * *", "0 24 * * *", "0 0 0 * *", "0 0 * 13 *",
                          "0 0 * * 7", "*/0 * * * *", "5-3 * * * *", "a * * * *", "1,,2 * * * *"}) {
    CHECK_FALSE(parse_cron(bad).has_value());
  }
  CHECK(parse_cron("0,30 */6 1-15/2 1-12 1-5").has_value());
  CHECK(parse_cron("  0\t0 */3 * *  ").has_value());
  // cron: star bits follow robfig.
  const auto s = parse_cron("0 0 */3 * ?");
  REQUIRE(s.has_value());
  CHECK_FALSE(s->dom_star);  // a step > 1 clears the star bit
  CHECK(s->dow_star);
  const auto t = parse_cron("0 0 */1 * 1");
  REQUIRE(t.has_value());
  CHECK(t->dom_star);
  CHECK_FALSE(t->dow_star);
}

namespace {

rc::Gen<std::string> gen_field(int min, int max) {
  return rc::gen::oneOf(
      rc::gen::just(std::string("*")),
      rc::gen::map(rc::gen::inRange(min, max + 1), [](int v) { return std::to_string(v); }),
      rc::gen::map(rc::gen::inRange(1, 8), [](int n) { return "*/" + std::to_string(n); }),
      rc::gen::map(rc::gen::pair(rc::gen::inRange(min, max + 1), rc::gen::inRange(1, 4)),
                   [max](std::pair<int, int> p) {
                     return std::to_string(p.first) + "-" + std::to_string(max) + "/" +
                            std::to_string(p.second);
                   }));
}

}  // namespace

TEST_CASE("cron_next equals a minute-by-minute scan", "[druid-sidecar]") {
  rc::prop("cron_next is the first matching minute after t", [] {
    const std::string spec = *gen_field(0, 59) + " " + *gen_field(0, 23) + " " + *gen_field(1, 31) +
                             " " + *gen_field(1, 12) + " " + *gen_field(0, 6);
    const auto s = parse_cron(spec);
    RC_ASSERT(s.has_value());
    // Any time from 2020 to 2035, to the nanosecond.
    const std::int64_t lo = at(2020, 1, 1).ns;
    const std::int64_t hi = at(2035, 1, 1).ns;
    const LocalTime t{*rc::gen::inRange<std::int64_t>(lo, hi)};
    const std::int64_t minute = 60'000'000'000LL;
    const std::int64_t window = 100 * 24 * 60;  // 100 days of minutes
    std::optional<LocalTime> naive;
    for (std::int64_t k = t.ns / minute + 1, end = k + window; k < end; ++k) {
      if (cron_matches(*s, LocalTime{k * minute})) {
        naive = LocalTime{k * minute};
        break;
      }
    }
    const auto fast = cron_next(*s, t);
    if (naive.has_value()) {
      RC_ASSERT(fast == naive);
    } else {
      RC_ASSERT((!fast.has_value() || *fast > t + minutes(window)));
    }
  });
}

TEST_CASE("member lease holderIdentity", "[druid-sidecar]") {
  CHECK(member_lease_holder_identity(0x8e9e05c52164694dULL, 0xcdf818194e3a8c32ULL,
                                     0x8e9e05c52164694dULL) ==
        "8e9e05c52164694d:cdf818194e3a8c32:Leader");
  CHECK(member_lease_holder_identity(0xa, 0, 0xb) == "a:0:Member");
  CHECK(member_lease_holder_identity(0xa, 0xff, 0) == "a:ff:Member");
  CHECK(member_lease_holder_identity(~std::uint64_t{0}, 1, 2) == "ffffffffffffffff:1:Member");
  // member lease renewal spacing.
  CHECK(kDruidHeartbeatDuration == seconds(10));
  CHECK(kDefaultHeartbeatDuration == seconds(30));
  CHECK(next_lease_renewal(at(2026, 1, 1), kDruidHeartbeatDuration) == at(2026, 1, 1, 0, 0, 10));
}

TEST_CASE("sanityCheck: safe_guard, directory, structure, db, in that order", "[druid-sidecar]") {
  SanityObservation obs;
  obs.safe_guard = SafeGuard::Mismatch;
  obs.data_dir = PathStat::Missing;  // not looked at
  CHECK(sanity_check(obs) == DataDirStatus::WrongVolumeMounted);
  obs.safe_guard = SafeGuard::Unreadable;
  CHECK(sanity_check(obs) == DataDirStatus::WrongVolumeMounted);
  obs.safe_guard = SafeGuard::Created;
  CHECK(sanity_check(obs) == DataDirStatus::DataDirectoryNotExist);
  obs.safe_guard = SafeGuard::NamespaceUnset;
  CHECK(sanity_check(obs) == DataDirStatus::DataDirectoryNotExist);
  obs = SanityObservation{};
  obs.data_dir = PathStat::StatError;
  CHECK(sanity_check(obs) == DataDirStatus::DataDirectoryStatusUnknown);
  obs.data_dir = PathStat::Exists;
  obs.structure = PathStat::Missing;
  CHECK(sanity_check(obs) == DataDirStatus::DataDirectoryInvStruct);
  obs.structure = PathStat::StatError;
  CHECK(sanity_check(obs) == DataDirStatus::DataDirectoryStatusUnknown);
  // No snapstore: valid without reading the db.
  obs.structure = PathStat::Exists;
  obs.snapstore_configured = false;
  obs.db = DbRevisionRead::Error;
  CHECK(sanity_check(obs) == DataDirStatus::DataDirectoryValid);
  obs = SanityObservation{};  // the db read
  obs.db = DbRevisionRead::LockTimeout;
  CHECK(sanity_check(obs) == DataDirStatus::FailToOpenBoltDBError);
  obs.db = DbRevisionRead::Error;
  CHECK(sanity_check(obs) == DataDirStatus::DataDirectoryCorrupt);
  obs.db = DbRevisionRead::Ok;
  obs.bolt_panic = true;
  CHECK(sanity_check(obs) == DataDirStatus::BoltDBCorrupt);
}

TEST_CASE("sanityCheck: revision consistency is single-node only", "[druid-sidecar]") {
  SanityObservation obs;
  obs.snapstore = SnapstoreRevision::Found;
  obs.db_revision = 99;
  obs.latest_snapshot_revision = 100;
  obs.embedded_synced_revision = 99;
  CHECK(sanity_check(obs) == DataDirStatus::RevisionConsistencyError);
  obs.original_cluster_size = 3;
  CHECK(sanity_check(obs) == DataDirStatus::DataDirectoryValid);
  obs.original_cluster_size = 1;
  obs.embedded_synced_revision = 100;  // the WAL replay caught up
  CHECK(sanity_check(obs) == DataDirStatus::DataDirectoryValid);
  obs.embedded_etcd_started = false;
  CHECK(sanity_check(obs) == DataDirStatus::DataDirectoryCorrupt);
  obs.db_revision = 100;  // equal is consistent: no embedded etcd needed
  CHECK(sanity_check(obs) == DataDirStatus::DataDirectoryValid);
  obs.snapstore = SnapstoreRevision::Unreadable;
  CHECK(sanity_check(obs) == DataDirStatus::DataDirectoryStatusUnknown);
  obs.snapstore = SnapstoreRevision::NoSnapshots;
  obs.db_revision = 0;
  CHECK(sanity_check(obs) == DataDirStatus::DataDirectoryValid);
}

TEST_CASE("composition: a multi-node member that lost its volume rejoins as a learner",
          "[druid-sidecar]") {
  SanityObservation disk;
  disk.original_cluster_size = 3;
  disk.data_dir = PathStat::Missing;
  ValidationInput v{sanity_check(disk), CorruptionCheck::NotRun, 3, false};
  InitObservation obs;
  obs.original_cluster_size = 3;
  obs.member_list = MemberListRead::Present;  // etcd still lists it: not a scale-up
  obs.data_dir_status = validate(v);
  CHECK(obs.data_dir_status == DataDirStatus::DataDirStatusInvalidInMultiNode);
  CHECK(decide_initialize(obs).action == InitAction::MemberRepair);
  // Without any backup the status stays NotExist; the known member is still repaired.
  v.backup_bucket_empty = true;
  obs.data_dir_status = validate(v);
  CHECK(obs.data_dir_status == DataDirStatus::DataDirectoryNotExist);
  CHECK(decide_initialize(obs).action == InitAction::MemberRepair);
}

TEST_CASE("leading: effects keep renewal and leading in step with the state", "[druid-sidecar]") {
  rc::prop("renewal runs iff not Unknown; leading iff Leader", [] {
    const auto polls = *rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 4));
    const int size = *rc::gen::inRange(1, 6);
    LeadingState state = kInitialLeadingState;
    bool renewing = true;  // the server starts renewal before the elector's first poll
    bool leading = false;
    for (const int p : polls) {
      const MemberStatus status{p == 0, p == 1, p == 3};
      const LeadingStep step = leading_transition(state, status, size);
      RC_ASSERT(!(step.effects.start_lease_renewal && renewing));
      RC_ASSERT(!(step.effects.stop_lease_renewal && !renewing));
      RC_ASSERT(!(step.effects.started_leading && leading));
      RC_ASSERT(!(step.effects.stopped_leading && !leading));
      renewing = (renewing || step.effects.start_lease_renewal) && !step.effects.stop_lease_renewal;
      leading = (leading || step.effects.started_leading) && !step.effects.stopped_leading;
      state = step.next;
      RC_ASSERT(renewing == (state != LeadingState::Unknown));
      RC_ASSERT(leading == (state == LeadingState::Leader));
    }
  });
}

TEST_CASE("backoff: sleeps never shrink, stay within the cap, attempts within steps",
          "[druid-sidecar]") {
  rc::prop("OnError's schedule", [] {
    const int steps = *rc::gen::inRange(1, 12);
    const std::int64_t factor = *rc::gen::inRange<std::int64_t>(1, 6);
    const Duration start = milliseconds(*rc::gen::inRange<std::int64_t>(1, 5000));
    const Duration cap = *rc::gen::element(Duration{}, seconds(30), seconds(120));
    Backoff b{start, factor, 10, steps, cap};
    Duration previous{};
    int attempts = 1;
    for (; attempts <= 20; ++attempts) {
      const BackoffStep s = after_failed_attempt(b);
      if (!s.retry && s.sleep == Duration{}) break;  // no sleep after the last attempt
      RC_ASSERT(s.sleep >= previous);
      RC_ASSERT((cap == Duration{} || s.sleep <= std::max(cap, start)));
      previous = s.sleep;
      if (!s.retry) break;
      b = s.next;
    }
    RC_ASSERT(attempts <= steps);
  });
}
