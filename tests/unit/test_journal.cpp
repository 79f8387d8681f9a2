// The journal demo (models/journal/journal.hpp) and its property no-lost-write
// (properties/journal/no_lost_write.hpp): group commit, the two acknowledgement policies,
// refused writes, and the violations the property reports.
#include <catch2/catch.hpp>

#include <memory>

#include "models/journal/journal.hpp"
#include "models/journal/trace_kinds.hpp"
#include "properties/journal/no_lost_write.hpp"
#include "sim/trace_kinds.hpp"
#include "test_models.hpp"

using namespace hasim;
using namespace hasim::testing;
using namespace hasim::literals;

namespace {

struct JournalFixture {
  JournalFixture(JournalAck ack, Duration fsync, VolumeKind kind = VolumeKind::persistent)
      : world(plain_nodes(1), constant_latency(1_ms)), property("no-lost-write") {
    world.trace().add_observer(&trace);
    world.trace().add_observer(&property);
    world.add_disk(0, "ssd",
                   DiskParams{DurationDistribution::constant(1_ms),
                              DurationDistribution::constant(fsync), 1 << 20});
    const JournalConfig config{10_ms, ack, "ssd", kind};
    journal = world.add_process(0, "journal",
                                [config] { return std::make_unique<Journal>(config); });
    world.add_volume(journal, std::string(Journal::kVolume), "ssd", kind);
  }
  std::vector<std::int64_t> acked() const {
    std::vector<std::int64_t> out;
    for (const TraceEvent& e : trace.of_kind(journal::trace_kind::kAck)) {
      out.push_back(e.int_field("seq"));
    }
    return out;
  }
  World world;
  Collector trace;
  NoLostWrite property;
  ProcessId journal = 0;
};

TrueTime at_ms(std::int64_t ms) { return TrueTime{ms * 1'000'000}; }

}  // namespace

TEST_CASE("after-fsync acknowledges a group once the fsync that covers it completes",
          "[journal]") {
  // Writes at 10, 20, 30 ms; appends take 1 ms, an fsync 25 ms, one at a time: append 1
  // 10..11, fsync 11..36, appends 2 and 3 36..38 behind it, one fsync for both 38..63.
  JournalFixture f(JournalAck::after_fsync, 25_ms);
  f.world.run_until(at_ms(62));
  CHECK(f.acked() == std::vector<std::int64_t>{1});
  f.world.run_until(at_ms(63));
  CHECK(f.acked() == std::vector<std::int64_t>{1, 2, 3});
  const auto acks = f.trace.of_kind(journal::trace_kind::kAck);
  CHECK(acks[0].t == at_ms(36));
  CHECK(acks[1].t == at_ms(63));
  CHECK(acks[2].t == at_ms(63));
}

TEST_CASE("after-write acknowledges before the fsync, so a power loss loses acknowledged writes",
          "[journal]") {
  JournalFixture f(JournalAck::after_write, 25_ms);
  f.world.at(at_ms(45), [&] { f.world.node_down(0); });
  f.world.at(at_ms(50), [&] { f.world.node_up(0); });
  f.world.run_until(at_ms(51));
  CHECK(f.acked() == std::vector<std::int64_t>{1, 2, 3});  // each once in the page cache
  const auto recovered = f.trace.of_kind(journal::trace_kind::kRecovered);
  REQUIRE(recovered.size() == 2);
  CHECK(recovered[1].int_field("last") == 1);  // only 1 was synced by 45 ms
  REQUIRE(f.property.violation().has_value());
  CHECK_THAT(f.property.violation()->detail,
             Catch::Contains("acknowledged write 3 but recovered only up to 1"));
  CHECK(f.property.violation()->at == at_ms(50));
}

TEST_CASE("after-fsync loses nothing acknowledged to crashes and power losses", "[journal]") {
  JournalFixture f(JournalAck::after_fsync, 25_ms);
  for (std::int64_t t = 45; t < 2000; t += 97) {
    const bool power = t % 2 == 1;
    f.world.at(at_ms(t), [&, power] { power ? f.world.node_down(0) : f.world.crash(f.journal); });
    f.world.at(at_ms(t + 13), [&] {
      f.world.node_up(0);
      f.world.restart(f.journal);
    });
  }
  f.world.run_until(at_ms(2100));
  CHECK(f.trace.of_kind(journal::trace_kind::kRecovered).size() > 10);
  CHECK(f.acked().size() > 50);
  CHECK_FALSE(f.property.violation().has_value());
}

TEST_CASE("a write whose append fails is refused, never acknowledged", "[journal]") {
  JournalFixture f(JournalAck::after_fsync, 2_ms);
  f.world.at(at_ms(15), [&] { f.world.disk_full(0, "ssd", true); });
  f.world.at(at_ms(25), [&] { f.world.disk_full(0, "ssd", false); });
  f.world.run_until(at_ms(40));
  CHECK(f.acked() == std::vector<std::int64_t>{1, 3});
  const auto refused = f.trace.of_kind(journal::trace_kind::kRejected);
  REQUIRE(refused.size() == 1);
  CHECK(refused[0].int_field("seq") == 2);
  CHECK(refused[0].string_field("error") == "ENOSPC");
}

TEST_CASE("an emptyDir journal loses everything when its pod is deleted", "[journal]") {
  JournalFixture f(JournalAck::after_fsync, 2_ms, VolumeKind::ephemeral);
  f.world.at(at_ms(55), [&] { f.world.delete_pod(f.journal); });
  f.world.at(at_ms(60), [&] { f.world.restart(f.journal); });
  f.world.run_until(at_ms(61));
  REQUIRE(f.property.violation().has_value());
  CHECK_THAT(f.property.violation()->detail, Catch::Contains("recovered only up to 0"));
  const auto& causes = f.property.violation()->causes;
  REQUIRE(causes.size() == 3);
  CHECK_THAT(causes[1], Catch::Contains("pod-delete"));
}
