// partition-respected (properties/kernel/partition_respected.hpp): the cut each partition
// shape defines, healing one cut or all, and a run of the World in which it holds.
#include <catch2/catch.hpp>

#include "properties/kernel/partition_respected.hpp"
#include "sim/trace_kinds.hpp"

using namespace hasim;
namespace tk = hasim::trace_kind;

namespace {

TrueTime at(std::int64_t s) { return TrueTime{s * 1'000'000'000}; }

struct Feed {
  PartitionRespected property{"partition-respected"};
  void partition(std::int64_t s, std::int64_t cut, std::vector<TraceField> shape) {
    shape.insert(shape.begin(), TraceField{"cut", cut});
    property.on_event(StoredTraceEvent{at(s), "", "", tk::kPartition, std::move(shape)});
  }
  void heal(std::int64_t s, TraceValue cut) {
    property.on_event(StoredTraceEvent{at(s), "", "", tk::kHeal, {{"cut", std::move(cut)}}});
  }
  void recv(std::int64_t s, std::string_view from, std::string_view to_node) {
    property.on_event(StoredTraceEvent{at(s), to_node, "heartbeat", tk::kRecv,
                                 {{"from", std::string(from)}, {"msg", std::string("Ping")}}});
  }
  bool violated() const { return property.violation().has_value(); }
};

}  // namespace

TEST_CASE("partition-respected: an isolated node neither sends nor receives", "[kernel]") {
  for (const bool inbound : {false, true}) {
    Feed f;
    f.partition(10, 1, {{"edges", std::string("n1->n2")}, {"isolate", std::string("n1")}});
    f.recv(11, "n2/heartbeat", "n3");  // not cut
    CHECK_FALSE(f.violated());
    inbound ? f.recv(12, "n2/heartbeat", "n1") : f.recv(12, "n1/heartbeat", "n2");
    REQUIRE(f.violated());
    CHECK(f.property.violation()->at == at(12));
    CHECK_THAT(f.property.violation()->detail, Catch::Contains("across partition 1"));
    CHECK(f.property.violation()->causes.size() == 2);
  }
}

TEST_CASE("partition-respected: groups, one way and edge lists cut what they define",
          "[kernel]") {
  const PartitionRespected::Cut groups = PartitionRespected::cut_of(
      StoredTraceEvent{at(0), "", "", tk::kPartition, {{"groups", std::string("a,b|c")}}});
  CHECK(groups.severs("a", "c"));
  CHECK(groups.severs("c", "b"));
  CHECK_FALSE(groups.severs("a", "b"));
  CHECK_FALSE(groups.severs("a", "d"));  // in no group: keeps its links
  const PartitionRespected::Cut oneway = PartitionRespected::cut_of(StoredTraceEvent{
      at(0), "", "", tk::kPartition, {{"from", std::string("a")}, {"to", std::string("b,c")}}});
  CHECK(oneway.severs("a", "c"));
  CHECK_FALSE(oneway.severs("c", "a"));
  const PartitionRespected::Cut edges = PartitionRespected::cut_of(
      StoredTraceEvent{at(0), "", "", tk::kPartition, {{"edges", std::string("a->b c->a")}}});
  CHECK(edges.severs("a", "b"));
  CHECK(edges.severs("c", "a"));
  CHECK_FALSE(edges.severs("b", "a"));
}

TEST_CASE("partition-respected: healing one cut leaves an overlapping one in force", "[kernel]") {
  Feed f;
  f.partition(10, 1, {{"isolate", std::string("n3")}});
  f.partition(20, 2, {{"from", std::string("n1")}, {"to", std::string("n2")}});
  f.heal(30, std::int64_t{2});
  f.recv(31, "n1/heartbeat", "n2");  // cut 2 healed
  CHECK_FALSE(f.violated());
  f.recv(32, "n1/heartbeat", "n3");  // cut 1 still holds
  REQUIRE(f.violated());
  CHECK_THAT(f.property.violation()->detail, Catch::Contains("partition 1"));
}

TEST_CASE("partition-respected: a heal of everything ends every cut", "[kernel]") {
  Feed f;
  f.partition(10, 1, {{"isolate", std::string("n3")}});
  f.partition(20, 2, {{"groups", std::string("n1|n2")}});
  f.heal(30, std::string("all"));
  f.recv(31, "n3/heartbeat", "n1");
  f.recv(31, "n2/heartbeat", "n1");
  CHECK_FALSE(f.violated());
}
