// no-lost-write across etcd-druid's restores (properties/druid/restore_loss.hpp through the
// StoreNoLostWrite that runs it): a restore's loss is noted with its figures, permitted when a
// quorum's data was gone to faults and the restore reached the last backup, a violation
// otherwise; and the client history starts over with the restored cluster.
#include <catch2/catch.hpp>

#include "models/apiserver/trace_kinds.hpp"
#include "models/druid/trace_kinds.hpp"
#include "properties/no_lost_write.hpp"
#include "scenarios/workloads/trace_kinds.hpp"
#include "sim/trace_kinds.hpp"

using namespace hasim;
using Catch::Matchers::Contains;

namespace restore_loss_test {

namespace dk = druid::trace_kind;

TrueTime when(std::int64_t ms) { return TrueTime{ms * 1'000'000}; }
std::string pod_of(int ordinal) { return "etcd-main-" + std::to_string(ordinal); }

struct Trace {
  Property& property;
  std::int64_t call = 0;

  void event(std::int64_t ms, std::string_view node, std::string_view proc, std::string_view kind,
             std::vector<TraceField> fields) {
    property.on_event(StoredTraceEvent{when(ms), node, proc, kind, std::move(fields)});
  }
  // Three members bootstrapped at 16.7s (IDs 1-3 on etcd-main-0..2).
  void bootstrap() {
    event(1, "", "", hasim::workloads::trace_kind::kSetScaled,
          {{"set", std::string("etcd-main")}, {"replicas", std::int64_t{3}}});
    for (int i = 0; i < 3; ++i) {
      event(16'700, "w", pod_of(i) + ".etcd", dk::kEtcdStart,
            {{"pod", pod_of(i)}, {"member", std::int64_t{i + 1}}, {"state", std::string("new")}});
    }
  }
  // One Put acknowledged at `revision`, invoked 10 ms before.
  void put(std::int64_t ms, std::string key, std::string value, std::int64_t revision) {
    ++call;
    event(ms - 10, "cp-1", "etcd-client", hasim::api::trace_kind::kEtcdCall,
          {{"client", std::string("cp-1/etcd-client")},
           {"call", call},
           {"op", std::string("put")},
           {"key", std::move(key)},
           {"value", std::move(value)},
           {"expected", std::int64_t{0}}});
    event(ms, "cp-1", "etcd-client", hasim::api::trace_kind::kEtcdCallEnd,
          {{"client", std::string("cp-1/etcd-client")},
           {"call", call},
           {"outcome", std::string("ok")},
           {"succeeded", std::int64_t{0}},
           {"found", std::int64_t{0}},
           {"value", std::string()},
           {"mod_revision", std::int64_t{0}},
           {"revision", revision},
           {"error", std::string()}});
  }
  void saved(std::int64_t ms, std::int64_t last) {
    event(ms, "w", pod_of(0) + ".backup-restore", dk::kSnapshot,
          {{"pod", pod_of(0)},
           {"snapshot", std::string("Incr")},
           {"start", last - 10},
           {"last", last},
           {"outcome", std::string("saved")}});
  }
  void volume_lost(std::int64_t ms, int ordinal) {
    event(ms, "w", pod_of(ordinal) + ".etcd", hasim::trace_kind::kCrash,
          {{"reason", std::string("disk-loss")}});
  }
  void restore(std::int64_t ms, std::int64_t revision) {
    event(ms, "w", pod_of(0) + ".backup-restore", dk::kRestore,
          {{"pod", pod_of(0)},
           {"member", std::int64_t{1}},
           {"full", std::string("Full-00000000-00000010-1")},
           {"deltas", std::int64_t{2}},
           {"revision", revision},
           {"outcome", std::string("restored")}});
  }
};

}  // namespace restore_loss_test

using restore_loss_test::pod_of;
using restore_loss_test::Trace;
using restore_loss_test::when;

TEST_CASE("no-lost-write notes a permitted restore's loss and checks the new cluster afresh",
          "[druid-properties]") {
  StoreNoLostWrite property("no-lost-write");
  Trace trace{property};
  trace.bootstrap();
  trace.put(20'000, "/k", "a", 100);
  trace.saved(25'000, 100);
  trace.put(30'000, "/k", "b", 120);
  trace.volume_lost(40'000, 1);
  trace.volume_lost(40'000, 2);
  trace.restore(90'000, 100);
  // The new cluster numbers its writes from 101: below 120, which another store acknowledged.
  trace.put(100'000, "/k", "c", 101);
  property.finish(when(120'000));
  CHECK_FALSE(property.violation().has_value());
  REQUIRE(property.notes().size() == 1);
  CHECK(property.notes()[0] ==
        "t=90.000000000s: etcd-main-0 restored from Full-00000000-00000010-1 and 2 delta(s) at "
        "revision 100: 20 acknowledged revision(s) lost (revision 120 was acknowledged to "
        "cp-1/etcd-client call 2); permitted: 2 of 3 voter(s) lost their data to faults and the "
        "restore reached the last backup (revision 100)");
}

TEST_CASE("no-lost-write fails a restore while a quorum kept its data", "[druid-properties]") {
  StoreNoLostWrite property("no-lost-write");
  Trace trace{property};
  trace.bootstrap();
  trace.saved(25'000, 100);
  trace.put(30'000, "/k", "b", 120);
  trace.volume_lost(40'000, 1);  // one of three: the other two keep a quorum's data
  trace.event(60'000, "", "", hasim::workloads::trace_kind::kClaimDeleted,
              {{"pod", pod_of(0)}, {"zone", std::string("a")}, {"disk", std::string("pv")}});
  trace.restore(90'000, 100);
  property.finish(when(120'000));
  REQUIRE(property.violation().has_value());
  CHECK(property.violation()->at == when(90'000));
  CHECK_THAT(property.violation()->detail,
             Contains("20 acknowledged revision(s) lost") &&
                 Contains("not permitted: only 1 of 3 voter(s) lost their data to faults"));
}

TEST_CASE("no-lost-write fails a restore that stops short of the last backup",
          "[druid-properties]") {
  StoreNoLostWrite property("no-lost-write");
  Trace trace{property};
  trace.bootstrap();
  trace.saved(25'000, 100);
  trace.saved(35'000, 110);
  trace.put(36'000, "/k", "b", 112);
  trace.volume_lost(40'000, 1);
  trace.volume_lost(40'000, 2);
  trace.restore(90'000, 100);
  property.finish(when(120'000));
  REQUIRE(property.violation().has_value());
  CHECK_THAT(property.violation()->detail,
             Contains("12 acknowledged revision(s) lost") &&
                 Contains("the store held a backup up to revision 110, which the restore did "
                          "not reach"));
}

TEST_CASE("no-lost-write notes a restore that lost nothing", "[druid-properties]") {
  StoreNoLostWrite property("no-lost-write");
  Trace trace{property};
  trace.bootstrap();
  trace.put(20'000, "/k", "a", 100);
  trace.saved(25'000, 100);
  trace.restore(90'000, 100);  // unneeded, but nothing acknowledged is gone
  property.finish(when(120'000));
  CHECK_FALSE(property.violation().has_value());
  REQUIRE(property.notes().size() == 1);
  CHECK_THAT(property.notes()[0], Contains("0 acknowledged revision(s) lost; not permitted"));
}
