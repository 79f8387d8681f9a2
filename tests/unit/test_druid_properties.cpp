// The etcd-druid properties (properties/druid/) on hand-made traces: status-truth:BOUND
// (druid's member statuses and Ready condition against which etcd members truly serve) and
// no-superfluous-members:SETTLE (etcd's member list against the StatefulSet's pods once
// nothing changes), each shown to hold and to fail.
#include <catch2/catch.hpp>

#include "models/druid/trace_kinds.hpp"
#include "models/etcd/trace_kinds.hpp"
#include "properties/druid/etcd_membership.hpp"
#include "properties/druid/no_superfluous_members.hpp"
#include "properties/druid/status_truth.hpp"
#include "properties/property.hpp"
#include "scenarios/workloads/trace_kinds.hpp"
#include "sim/trace_kinds.hpp"

using namespace hasim;
using Catch::Matchers::Contains;

namespace {

namespace dk = druid::trace_kind;
namespace ek = etcd::trace_kind;
namespace wk = workloads::trace_kind;

TrueTime at_ms(std::int64_t ms) { return TrueTime{ms * 1'000'000}; }
std::string pod_name(int ordinal) { return "etcd-main-" + std::to_string(ordinal); }

// Feeds the events the models trace (scenarios/druid, models/druid, models/etcd) to one
// property, as a run would.
struct Trace {
  Property& property;

  void event(std::int64_t ms, std::string_view node, std::string_view proc, std::string_view kind,
             std::vector<TraceField> fields) {
    property.on_event(StoredTraceEvent{at_ms(ms), node, proc, kind, std::move(fields)});
  }
  void replicas(std::int64_t ms, std::int64_t n) {
    event(ms, "", "", wk::kSetScaled, {{"set", std::string("etcd-main")}, {"replicas", n}});
  }
  void pod(std::int64_t ms, std::string_view kind, int ordinal) {
    event(ms, "", "", kind, {{"pod", pod_name(ordinal)}});
  }
  void etcd_start(std::int64_t ms, int ordinal, std::int64_t member, std::string state) {
    const std::string proc = pod_name(ordinal) + ".etcd";
    event(ms, "w-" + std::to_string(ordinal + 1), proc, dk::kEtcdStart,
          {{"pod", pod_name(ordinal)}, {"member", member}, {"state", std::move(state)}});
  }
  void crash(std::int64_t ms, int ordinal) {
    const std::string proc = pod_name(ordinal) + ".etcd";
    event(ms, "w-" + std::to_string(ordinal + 1), proc, trace_kind::kCrash, {});
  }
  void conf_change(std::int64_t ms, std::int64_t applier, std::string type, std::int64_t node) {
    event(ms, "w-1", "etcd-main-0.etcd", ek::kConfChange,
          {{"member", applier}, {"type", std::move(type)}, {"node", node}});
  }
  void status(std::int64_t ms, int ordinal, std::int64_t id, std::string status) {
    event(ms, "cp-1", "etcd-druid", dk::kMemberStatus,
          {{"member", pod_name(ordinal)},
           {"id", std::to_string(id)},
           {"role", std::string("Member")},
           {"status", std::move(status)},
           {"reason", std::string("LeaseSucceeded")}});
  }
  void ready_condition(std::int64_t ms, std::string status) {
    event(ms, "cp-1", "etcd-druid", dk::kCondition,
          {{"type", std::string("Ready")},
           {"status", std::move(status)},
           {"reason", std::string("Quorate")}});
  }
  // Three pods created and bootstrapped as druid-bootstrap-3 does: etcd serves from 16.7s.
  void bootstrap() {
    replicas(1, 3);
    for (int i = 0; i < 3; ++i) pod(2, wk::kPodCreate, i);
    for (int i = 0; i < 3; ++i) etcd_start(16'700, i, i + 1, "new");
  }
  // druid's first status with members, 45s: all Ready, Quorate.
  void all_ready(std::int64_t ms) {
    for (int i = 0; i < 3; ++i) status(ms, i, i + 1, "Ready");
    ready_condition(ms, "True");
  }
};

}  // namespace

TEST_CASE("status-truth: the allowances are upstream's thresholds plus BOUND",
          "[druid-properties]") {
  StatusTruth property("status-truth:30s", seconds(30));
  CHECK(property.stale_allowance() == seconds(60 + 15 + 10 + 30));
  CHECK(property.fresh_allowance() == seconds(10 + 15 + 30));
}

TEST_CASE("status-truth holds while druid follows a bootstrap and a crash within its thresholds",
          "[druid-properties]") {
  StatusTruth property("status-truth:30s", seconds(30));
  Trace trace{property};
  trace.bootstrap();
  trace.all_ready(45'000);  // 28.3s after etcd started: within 55s
  trace.crash(60'000, 1);
  // The Lease went stale at about 1m50s; druid's sync at 2m0s says Unknown (60s < 1m55s).
  trace.status(120'000, 1, 2, "Unknown");
  trace.etcd_start(130'000, 1, 2, "new");  // restarted on its data: serving again
  trace.status(150'000, 1, 2, "Ready");    // 20s later
  property.finish(at_ms(300'000));
  CHECK_FALSE(property.violation().has_value());
  CHECK(property.windows().empty());
}

TEST_CASE("status-truth: druid reporting a crashed member Ready past the allowance",
          "[druid-properties]") {
  StatusTruth property("status-truth:30s", seconds(30));
  Trace trace{property};
  trace.bootstrap();
  trace.all_ready(45'000);
  trace.crash(60'000, 1);
  trace.status(175'000, 1, 2, "Unknown");  // exactly at the allowance's end: still allowed
  trace.status(180'000, 1, 2, "Ready");    // but Ready again while it is still down
  trace.status(195'000, 1, 2, "Unknown");
  property.finish(at_ms(300'000));
  REQUIRE(property.violation().has_value());
  CHECK(property.violation()->at == at_ms(180'000));
  CHECK(property.violation()->detail ==
        "druid reported etcd-main-1 Ready at 3m0s but its etcd (member 2) has not served in a "
        "quorate cluster since 1m0s; upstream's rules allow 1m55s (UnknownThreshold 1m + status "
        "sync 15s + heartbeat "
        "10s + bound 30s)");
  REQUIRE(property.violation()->causes.size() == 2);
  CHECK_THAT(property.violation()->causes[0], Contains("crash"));
  CHECK_THAT(property.violation()->causes[1], Contains("status=Ready"));
  REQUIRE(property.windows().size() == 1);
  CHECK(property.windows()[0].start == at_ms(180'000));
  CHECK(property.windows()[0].end == at_ms(195'000));
}

TEST_CASE("status-truth: a stale Ready opens when the allowance runs out, removal counts",
          "[druid-properties]") {
  StatusTruth property("status-truth:30s", seconds(30));
  Trace trace{property};
  trace.bootstrap();
  trace.all_ready(45'000);
  // Member 2 is removed from the cluster; its process keeps running, but it serves nothing.
  trace.conf_change(60'000, 1, "ConfChangeRemoveNode", 2);
  trace.conf_change(61'000, 3, "ConfChangeRemoveNode", 2);  // another member applies it too
  property.finish(at_ms(200'000));
  REQUIRE(property.violation().has_value());
  CHECK(property.violation()->at == at_ms(175'000));
  CHECK_THAT(property.violation()->detail,
             Contains("druid reported etcd-main-1 Ready at 2m55s but its etcd (member 2) has not "
                      "served in a quorate cluster since 1m0s"));
  REQUIRE(property.windows().size() == 1);
  CHECK(property.windows()[0].end == at_ms(200'000));  // open until the end of the run
}

TEST_CASE("status-truth: druid never reporting a healthy member Ready", "[druid-properties]") {
  StatusTruth property("status-truth:30s", seconds(30));
  Trace trace{property};
  trace.bootstrap();
  trace.status(45'000, 0, 1, "Ready");
  trace.status(45'000, 2, 3, "Ready");
  trace.ready_condition(45'000, "True");
  trace.status(75'000, 1, 2, "Unknown");  // a status, but not Ready
  property.finish(at_ms(180'000));
  REQUIRE(property.violation().has_value());
  // Serving from 16.7s, 55s allowed: missing at 1m11.7s.
  CHECK(property.violation()->at == at_ms(71'700));
  CHECK(property.violation()->detail ==
        "druid did not report etcd-main-1 Ready by 1m11.7s (no status) although its etcd "
        "(member 2) has served in a quorate cluster since 16.7s; upstream's rules allow 55s "
        "(heartbeat 10s + status sync 15s + bound 30s)");
  // Still not Ready after the Unknown: one window to the end.
  REQUIRE(property.windows().size() == 1);
  CHECK(property.windows()[0].end == at_ms(180'000));
}

TEST_CASE("status-truth: the Ready condition True without a quorum serving", "[druid-properties]") {
  StatusTruth property("status-truth:30s", seconds(30));
  Trace trace{property};
  trace.bootstrap();
  trace.all_ready(45'000);
  trace.crash(60'000, 1);
  trace.crash(61'000, 2);  // 1 of 3 voters left
  // druid notices the members in time (the survivor too: without a quorum its heartbeat
  // stops), but its condition stays Quorate.
  trace.status(150'000, 0, 1, "Unknown");
  trace.status(150'000, 1, 2, "Unknown");
  trace.status(150'000, 2, 3, "Unknown");
  trace.ready_condition(200'000, "False");
  property.finish(at_ms(240'000));
  REQUIRE(property.violation().has_value());
  CHECK(property.violation()->at == at_ms(176'000));
  CHECK(property.violation()->detail ==
        "druid's Ready condition was True at 2m56s but the etcd cluster has had no quorum "
        "serving since 1m1s (1 of 3 voters serving); upstream's rules allow 1m55s "
        "(UnknownThreshold 1m + status sync 15s + heartbeat 10s + bound 30s)");
  REQUIRE(property.windows().size() == 1);
  CHECK(property.windows()[0].end == at_ms(200'000));
}

TEST_CASE("status-truth: the Ready condition never True although the cluster is quorate",
          "[druid-properties]") {
  StatusTruth property("status-truth:30s", seconds(30));
  Trace trace{property};
  trace.bootstrap();
  for (int i = 0; i < 3; ++i) trace.status(45'000, i, i + 1, "Ready");
  trace.ready_condition(45'000, "Unknown");
  property.finish(at_ms(180'000));
  REQUIRE(property.violation().has_value());
  CHECK(property.violation()->at == at_ms(71'700));
  CHECK_THAT(property.violation()->detail,
             Contains("druid's Ready condition was not True by 1m11.7s (status Unknown) although "
                      "a quorum of etcd voters has served since 16.7s (3 of 3 voters serving)"));
}

TEST_CASE(
    "status-truth: of deadlines that run out between two events the earliest is the "
    "violation",
    "[druid-properties]") {
  StatusTruth property("status-truth:0s", Duration{0});
  Trace trace{property};
  trace.bootstrap();  // nobody is reported: etcd-main-0..2 are all due at 41.7s
  property.finish(at_ms(100'000));
  REQUIRE(property.violation().has_value());
  CHECK(property.violation()->at == at_ms(41'700));
  // Among equals, by name: the condition ("") first.
  CHECK_THAT(property.violation()->detail, Contains("druid's Ready condition was not True"));
  CHECK(property.windows().size() == 4);  // three members and the condition
}

TEST_CASE("etcd membership: bootstrap from the first replicas, late copies change nothing",
          "[druid-properties]") {
  druid_props::EtcdMembership membership;
  auto feed = [&](std::string_view kind, std::vector<TraceField> fields) {
    return membership.on_event(StoredTraceEvent{at_ms(0), "w-1", "p", kind, std::move(fields)});
  };
  CHECK_FALSE(feed(wk::kSetScaled, {{"replicas", std::int64_t{3}}}));
  CHECK_FALSE(feed(wk::kSetScaled, {{"replicas", std::int64_t{5}}}));  // the first one counts
  CHECK(feed(dk::kEtcdStart, {{"member", std::int64_t{1}}, {"state", std::string("new")}}));
  CHECK(membership.voters() == std::set<std::uint64_t>{1, 2, 3});
  CHECK_FALSE(feed(dk::kEtcdStart, {{"member", std::int64_t{2}}, {"state", std::string("new")}}));
  auto change = [&](std::string type, std::int64_t node) {
    return feed(ek::kConfChange, {{"type", std::move(type)}, {"node", node}});
  };
  CHECK(change("ConfChangeAddLearnerNode", 4));
  CHECK(change("ConfChangeAddNode", 4));
  CHECK_FALSE(change("ConfChangeAddLearnerNode", 4));  // a laggard's copy after the promotion
  CHECK(change("ConfChangeRemoveNode", 4));
  CHECK_FALSE(change("ConfChangeAddNode", 4));  // and after the removal
  CHECK(membership.members() == std::set<std::uint64_t>{1, 2, 3});
  CHECK(membership.removed(4));
}

TEST_CASE("no-superfluous-members holds after a bootstrap and a member repair",
          "[druid-properties]") {
  NoSuperfluousMembers property("no-superfluous-members:2m", minutes(2));
  Trace trace{property};
  trace.bootstrap();
  // druid-pod-deleted-emptydir: the pod goes and comes back; its sidecar replaces member 2.
  trace.pod(60'000, wk::kPodDelete, 1);
  trace.pod(60'000, wk::kPodGone, 1);
  trace.pod(60'100, wk::kPodCreate, 1);
  trace.conf_change(60'715, 1, "ConfChangeRemoveNode", 2);
  trace.conf_change(60'721, 1, "ConfChangeAddLearnerNode", 4);
  trace.etcd_start(62'702, 1, 4, "existing");
  trace.conf_change(65'707, 1, "ConfChangeAddNode", 4);
  trace.conf_change(65'708, 3, "ConfChangeAddNode", 4);
  property.finish(at_ms(300'000));  // settled at 3m5.708s: members 1, 3, 4 of three pods
  CHECK_FALSE(property.violation().has_value());
}

TEST_CASE("no-superfluous-members: a scale-up and scale-down leaves members behind",
          "[druid-properties]") {
  NoSuperfluousMembers property("no-superfluous-members:2m", minutes(2));
  Trace trace{property};
  trace.bootstrap();
  trace.replicas(60'000, 5);
  for (int i = 3; i < 5; ++i) trace.pod(60'100, wk::kPodCreate, i);
  trace.conf_change(61'000, 1, "ConfChangeAddLearnerNode", 4);
  trace.conf_change(61'000, 1, "ConfChangeAddLearnerNode", 5);
  trace.etcd_start(62'000, 3, 4, "existing");
  trace.etcd_start(62'000, 4, 5, "existing");
  trace.conf_change(65'000, 1, "ConfChangeAddNode", 4);
  trace.conf_change(65'000, 1, "ConfChangeAddNode", 5);
  trace.replicas(100'000, 3);
  for (int i = 3; i < 5; ++i) trace.pod(100'100, wk::kPodDelete, i);
  for (int i = 3; i < 5; ++i) trace.pod(101'000, wk::kPodGone, i);

  SECTION("not settled by the end: nothing is claimed") {
    property.finish(at_ms(220'000));
    CHECK_FALSE(property.violation().has_value());
  }
  SECTION("settled: the members of the deleted pods are superfluous") {
    property.finish(at_ms(300'000));
    REQUIRE(property.violation().has_value());
    CHECK(property.violation()->at == at_ms(221'000));
    CHECK(property.violation()->detail ==
          "settled at 3m41s (nothing changed for 2m0s), etcd has 5 members (1, 2, 3, 4, 5) but "
          "the StatefulSet has 3 replicas; member 4 belongs to no existing pod (etcd-main-3 ran "
          "it, gone); member 5 belongs to no existing pod (etcd-main-4 ran it, gone)");
    REQUIRE(property.violation()->causes.size() == 1);
    CHECK_THAT(property.violation()->causes[0], Contains("pod-gone"));
    REQUIRE(property.windows().size() == 1);
    CHECK(property.windows()[0].end == at_ms(300'000));
  }
  SECTION("an operator removes them: the window ends at the change, and it settles clean") {
    trace.conf_change(250'000, 1, "ConfChangeRemoveNode", 4);
    trace.conf_change(250'000, 1, "ConfChangeRemoveNode", 5);
    property.finish(at_ms(400'000));
    REQUIRE(property.violation().has_value());
    REQUIRE(property.windows().size() == 1);
    CHECK(property.windows()[0].start == at_ms(221'000));
    CHECK(property.windows()[0].end == at_ms(250'000));
  }
}

TEST_CASE("no-superfluous-members: a member no pod runs, and hibernation is not judged",
          "[druid-properties]") {
  NoSuperfluousMembers property("no-superfluous-members:2m", minutes(2));
  Trace trace{property};
  trace.bootstrap();
  SECTION("a learner added for a pod whose etcd never started") {
    trace.conf_change(30'000, 1, "ConfChangeAddLearnerNode", 4);
    property.finish(at_ms(200'000));
    REQUIRE(property.violation().has_value());
    CHECK(property.violation()->at == at_ms(150'000));
    CHECK_THAT(property.violation()->detail,
               Contains("etcd has 4 members (1, 2, 3, 4) but the StatefulSet has 3 replicas; "
                        "member 4 belongs to no existing pod (no pod ran it)"));
  }
  SECTION("replicas 0: the members stay in the volumes") {
    trace.replicas(30'000, 0);
    for (int i = 0; i < 3; ++i) trace.pod(30'100, wk::kPodGone, i);
    property.finish(at_ms(300'000));
    CHECK_FALSE(property.violation().has_value());
  }
}

TEST_CASE("status-truth: a NotChecked condition and an absent member claim nothing",
          "[druid-properties]") {
  // Hibernation: every etcd stops, druid empties status.members and keeps the Ready
  // condition's status with reason NotChecked (condition/builder.go).
  auto run = [](bool not_checked) {
    StatusTruth property("status-truth:30s", seconds(30));
    Trace trace{property};
    trace.bootstrap();
    trace.all_ready(45'000);
    for (int i = 0; i < 3; ++i) trace.crash(60'000, i);
    if (not_checked) {
      trace.event(75'000, "cp-1", "etcd-druid", dk::kCondition,
                  {{"type", std::string("Ready")},
                   {"status", std::string("True")},
                   {"reason", std::string("NotChecked")}});
      for (int i = 0; i < 3; ++i) {
        trace.event(75'000, "cp-1", "etcd-druid", dk::kMemberStatus,
                    {{"member", pod_name(i)}, {"status", std::string("Absent")}});
      }
    }
    property.finish(at_ms(600'000));
    return property.violation().has_value();
  };
  CHECK_FALSE(run(true));
  CHECK(run(false));  // the same outage with druid still claiming Ready and Quorate
}
