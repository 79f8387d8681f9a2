// pdb-safe (properties/druid/pdb_safe.hpp) on hand-made traces: an eviction the budget grants
// while every voter serves holds; one granted while another member is down breaks quorum and
// is reported; a refused eviction (429), or one of a pod whose member did not serve, takes
// nothing away.
#include <catch2/catch.hpp>

#include "models/druid/trace_kinds.hpp"
#include "properties/druid/pdb_safe.hpp"
#include "scenarios/workloads/trace_kinds.hpp"
#include "sim/trace_kinds.hpp"

namespace pdb_safe_test {

hasim::TrueTime ms_at(std::int64_t ms) { return hasim::TrueTime{ms * 1'000'000}; }

struct PdbTrace {
  hasim::PdbSafe property{"pdb-safe"};

  void feed(std::int64_t ms, std::string node, std::string proc, std::string_view kind,
            std::vector<hasim::TraceField> fields) {
    property.on_event(hasim::StoredTraceEvent{ms_at(ms), node, proc, kind, std::move(fields)});
  }
  // Three members bootstrapped at 16.7s: etcd-main-N on w-(N+1), member N+1.
  void bootstrap() {
    feed(1, "", "", hasim::workloads::trace_kind::kSetScaled,
         {{"set", std::string("etcd-main")}, {"replicas", std::int64_t{3}}});
    for (int i = 0; i < 3; ++i) {
      const std::string pod = "etcd-main-" + std::to_string(i);
      feed(16'700, "w-" + std::to_string(i + 1), pod + ".etcd",
           hasim::druid::trace_kind::kEtcdStart,
           {{"pod", pod}, {"member", std::int64_t{i + 1}}, {"state", std::string("new")}});
    }
  }
  void eviction(std::int64_t ms, int ordinal, std::string outcome) {
    feed(ms, "w-" + std::to_string(ordinal + 1), "", hasim::workloads::trace_kind::kPodEviction,
         {{"pod", "etcd-main-" + std::to_string(ordinal)},
          {"outcome", std::move(outcome)},
          {"disruptions_allowed", std::int64_t{0}}});
  }
  void crash(std::int64_t ms, int ordinal) {
    feed(ms, "w-" + std::to_string(ordinal + 1), "etcd-main-" + std::to_string(ordinal) + ".etcd",
         hasim::trace_kind::kCrash, {{"reason", std::string("fault")}});
  }
};

}  // namespace pdb_safe_test

using pdb_safe_test::ms_at;
using pdb_safe_test::PdbTrace;

TEST_CASE("pdb-safe holds for an eviction while every voter serves", "[druid-properties]") {
  PdbTrace trace;
  trace.bootstrap();
  trace.eviction(60'000, 1, "deleted-within-budget");
  trace.crash(60'000, 1);                          // the eviction's deletion stops its etcd
  trace.eviction(70'000, 2, "too-many-requests");  // refused: nothing goes
  CHECK_FALSE(trace.property.violation().has_value());
}

TEST_CASE("pdb-safe fails an eviction granted while another member is down", "[druid-properties]") {
  PdbTrace trace;
  trace.bootstrap();
  trace.crash(50'000, 0);
  SECTION("a serving voter evicted: quorum broken") {
    trace.eviction(60'000, 1, "deleted-within-budget");
    REQUIRE(trace.property.violation().has_value());
    CHECK(trace.property.violation()->at == ms_at(60'000));
    CHECK(trace.property.violation()->detail ==
          "evicting etcd-main-1 (voter 2) left 1 of 3 etcd voters serving (2 before): the "
          "eviction broke quorum; the budget answered deleted-within-budget with 0 disruption(s) "
          "allowed");
  }
  SECTION("the stopped member's own pod evicted: nothing taken away") {
    trace.eviction(60'000, 0, "deleted-unhealthy");
    CHECK_FALSE(trace.property.violation().has_value());
  }
}
