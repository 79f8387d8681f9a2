// quorum-recovery:BOUND (properties/etcd_store/quorum_recovery.hpp) over hand-built traces of
// etcd members (raft-recovered, raft-state, raft-persist, raft-apply with "rev",
// raft-fatal), kube-apiservers (start, etcd-call-end, write) and faults (partition, heal,
// crash of a disk loss, disk-loss, node-down): recovery in time holds; no leader, or an
// apiserver whose writes never go through, breaks it once the bound runs out after the
// faults heal; a quorum's data gone is reported with the acknowledged revisions lost.
#include <catch2/catch.hpp>

#include "etcd_call_rig.hpp"
#include "models/druid/trace_kinds.hpp"
#include "models/etcd/trace_kinds.hpp"
#include "properties/etcd_store/quorum_recovery.hpp"
#include "sim/trace_kinds.hpp"

using Catch::Matchers::Contains;
using hasim::QuorumRecovery;
using hasim::etcd_rig::at_ms;
using hasim::etcd_rig::CallTrace;
namespace k = hasim::trace_kind;
namespace e = hasim::etcd::trace_kind;

namespace {

struct Rig {
  QuorumRecovery property{"quorum-recovery:3s", hasim::seconds(3)};
  CallTrace trace{{&property}};

  // Members cp-1..cp-3 start from the bootstrap snapshot; apiservers on cp-1 and cp-2.
  Rig() {
    for (int m = 1; m <= 3; ++m) {
      member(0, m, e::kRecovered,
             {{"snap-index", std::int64_t{1}},
              {"first", std::int64_t{2}},
              {"ents", std::string()},
              {"term", std::int64_t{1}}});
    }
    for (int a = 1; a <= 2; ++a) {
      trace.process(0, a, "kube-apiserver", k::kStart, {{"incarnation", std::int64_t{1}}});
    }
  }
  void member(std::int64_t ms, int m, std::string_view kind, std::vector<hasim::TraceField> f) {
    f.insert(f.begin(), {"member", std::int64_t{m}});
    trace.process(ms, m, "etcd", kind, std::move(f));
  }
  void lead(std::int64_t ms, int m) {
    member(ms, m, e::kState,
           {{"term", std::int64_t{2}},
            {"state", std::string("StateLeader")},
            {"lead", std::int64_t{m}}});
  }
  // An acknowledged write through apiserver `a` (call `id`) at revision `rev`.
  void write(std::int64_t ms, int a, std::int64_t id, std::int64_t rev) {
    trace.put(ms, ms + 5, a, id, "/registry/x", "v" + std::to_string(id), rev);
  }
  void world(std::int64_t ms, std::string_view kind, std::vector<hasim::TraceField> f) {
    trace.feed(ms, "", "", kind, std::move(f));
  }
  // `n` log entries from `first` on, all of term 2.
  static std::string ents(int n) {
    std::string text = "2:";
    for (int i = 0; i < n; ++i) text += (i == 0 ? "" : ",") + std::string("00000000000000a") + "0";
    return text;
  }
};

}  // namespace

TEST_CASE("quorum-recovery holds when a leader and writes come within the bound",
          "[quorum-recovery]") {
  Rig rig;
  rig.lead(1000, 1);
  rig.write(1500, 1, 1, 2);
  rig.trace.feed(1600, "cp-2", "kube-apiserver", hasim::api::trace_kind::kWrite,
                 {{"user", std::string("kcm")}});
  rig.trace.finish(20'000);
  CHECK_FALSE(rig.property.violation());
  CHECK(rig.property.voters() == 3);
  CHECK(rig.property.members_with_data() == 3);
}

TEST_CASE("quorum-recovery: no leader within the bound after the faults heal",
          "[quorum-recovery]") {
  Rig rig;
  rig.world(0, k::kPartition, {{"cut", std::int64_t{1}}});
  rig.world(5000, k::kHeal, {{"cut", std::int64_t{1}}});
  rig.trace.finish(20'000);
  REQUIRE(rig.property.violation());
  CHECK(rig.property.violation()->at == at_ms(8000));
  CHECK_THAT(rig.property.violation()->detail,
             Contains("from t=5.000000000s, when faults had healed and 3 of 3 etcd members had "
                      "their data") &&
                 Contains("no etcd member was raft leader"));
}

TEST_CASE("quorum-recovery names the apiserver whose writes do not go through",
          "[quorum-recovery]") {
  Rig rig;
  rig.lead(1000, 1);
  rig.write(1500, 1, 1, 2);
  rig.write(2500, 2, 1, 0);  // an ok write with no revision recorded still counts...
  SECTION("both wrote: holds") {
    rig.trace.finish(20'000);
    CHECK_FALSE(rig.property.violation());
  }
  SECTION("a crashed apiserver is not waited for, a restarted one is") {
    Rig fresh;
    fresh.lead(1000, 1);
    fresh.write(1500, 1, 1, 2);
    fresh.trace.process(1600, 2, "kube-apiserver", k::kCrash, {{"reason", std::string("oom")}});
    fresh.trace.finish(20'000);
    CHECK_FALSE(fresh.property.violation());
  }
  SECTION("the leader is lost: the next leader and writes are owed again") {
    rig.member(5000, 1, k::kCrash, {{"reason", std::string("oom")}});
    rig.lead(6000, 2);
    rig.write(7000, 1, 2, 3);  // cp-2's apiserver never writes again
    rig.trace.finish(20'000);
    REQUIRE(rig.property.violation());
    CHECK(rig.property.violation()->at == at_ms(8000));
    CHECK_THAT(rig.property.violation()->detail,
               Contains("a member led but etcd served nothing through cp-2/kube-apiserver"));
  }
}

TEST_CASE("quorum-recovery: a quorum's data gone needs an operator; revisions lost are counted",
          "[quorum-recovery]") {
  Rig rig;
  rig.lead(500, 1);
  // cp-1 and cp-2 persist entries 2..11; cp-3 only 2..7. Applied: up to 7 is revision 6, up
  // to 11 revision 10.
  for (int m = 1; m <= 2; ++m) {
    rig.member(600, m, e::kPersist, {{"first", std::int64_t{2}}, {"ents", Rig::ents(10)}});
  }
  rig.member(600, 3, e::kPersist, {{"first", std::int64_t{2}}, {"ents", Rig::ents(6)}});
  rig.member(700, 1, e::kApply,
             {{"first", std::int64_t{2}}, {"ents", Rig::ents(6)}, {"rev", std::int64_t{6}}});
  rig.member(800, 1, e::kApply,
             {{"first", std::int64_t{8}}, {"ents", Rig::ents(4)}, {"rev", std::int64_t{10}}});
  rig.write(900, 1, 1, 10);
  rig.write(950, 2, 1, 9);
  CHECK(rig.property.acknowledged_revision() == 10);
  CHECK(rig.property.surviving_revision() == 10);
  SECTION("two members' disks fail while they run") {
    rig.member(5000, 1, k::kCrash, {{"reason", std::string("disk-loss")}});
    CHECK_FALSE(rig.property.violation());
    rig.member(5000, 2, k::kCrash, {{"reason", std::string("disk-loss")}});
  }
  SECTION("a node down loses every disk; another member refuses to start without its data") {
    rig.trace.node_event(4000, 1, k::kNodeDown);
    rig.trace.node_event(5000, 1, k::kDiskLoss);
    CHECK_FALSE(rig.property.violation());
    rig.member(5000, 2, e::kFatal,
               {{"error", std::string("member 2 has already been bootstrapped")}});
  }
  rig.trace.finish(20'000);
  REQUIRE(rig.property.violation());
  // The window opens at 5s; with no restore within the bound (3s), it is a violation from 8s.
  REQUIRE(rig.property.windows().size() == 1);
  CHECK(rig.property.windows()[0].start == at_ms(5000));
  CHECK(rig.property.violation()->at == at_ms(8000));
  CHECK(rig.property.surviving_revision() == 6);
  const std::string& detail = rig.property.violation()->detail;
  CHECK_THAT(detail, Contains("a quorum's data is gone: 2 of 3 etcd members lost their data"));
  CHECK_THAT(detail, Contains("recovery needs an operator"));
  CHECK_THAT(detail, Contains("no restore came within the bound 3s"));
  CHECK_THAT(detail, Contains("4 acknowledged revision(s) lost: revision 10 was acknowledged to "
                              "cp-1/kube-apiserver call 1 (put /registry/x, acknowledged at "
                              "t=0.905000000s)"));
  CHECK_THAT(detail, Contains("hold up to revision 6"));
  CHECK(rig.property.violation()->causes.size() == 2);
}

TEST_CASE("quorum-recovery counts traced entries without decoding them", "[quorum-recovery]") {
  CHECK(hasim::count_trace_entries("") == 0);
  CHECK(hasim::count_trace_entries("2:00000000000000a0") == 1);
  CHECK(hasim::count_trace_entries("2:00000000000000a0,00000000000000a1 3:00000000000000a2") == 3);
}

// etcd-druid's members are named after their pods ("etcd-main-0.etcd") and move between
// nodes; a lone member whose emptyDir went with its pod is restored by its sidecar.
TEST_CASE("quorum-recovery: an automatic restore within the bound closes the data-loss window",
          "[quorum-recovery]") {
  QuorumRecovery property{"quorum-recovery:30s", hasim::seconds(30)};
  CallTrace trace{{&property}};
  trace.feed(16'700, "w-1", "etcd-main-0.etcd", e::kRecovered,
             {{"member", std::int64_t{1}},
              {"snap-index", std::int64_t{1}},
              {"first", std::int64_t{2}},
              {"ents", std::string()},
              {"term", std::int64_t{1}}});
  CHECK(property.voters() == 1);
  trace.feed(60'000, "w-1", "etcd-main-0.etcd", k::kPodDelete,
             {{"volumes_wiped", std::int64_t{1}}});
  CHECK(property.members_with_data() == 0);
  SECTION("restored 0.7s later") {
    trace.feed(60'700, "w-2", "etcd-main-0.backup-restore", hasim::druid::trace_kind::kRestore,
               {{"pod", std::string("etcd-main-0")},
                {"member", std::int64_t{1}},
                {"full", std::string("Full-00000000-00000010-1")},
                {"deltas", std::int64_t{2}},
                {"revision", std::int64_t{40}},
                {"outcome", std::string("restored")}});
    CHECK(property.members_with_data() == 1);
    trace.finish(60'800);
    REQUIRE(property.windows().size() == 1);
    CHECK(property.windows()[0].start == at_ms(60'000));
    CHECK(property.windows()[0].end == at_ms(60'700));
    CHECK_FALSE(property.violation());
  }
  SECTION("never restored") {
    trace.finish(200'000);
    REQUIRE(property.violation());
    CHECK(property.violation()->at == at_ms(90'000));
    CHECK_THAT(property.violation()->detail,
               Contains("1 of 1 etcd members lost their data directories"));
    REQUIRE(property.violation()->causes.size() == 1);
    CHECK(property.violation()->causes[0] ==
          "etcd-main-0.etcd lost its data: its pod's deletion at t=60.000000000s took its "
          "emptyDir");
  }
}
