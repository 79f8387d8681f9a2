// disk-semantics and group-commit (properties/journal/): what the journal demo sees of its
// disk, and its group commit, judged from the trace; each holds over a run of the World with
// the disk faults and is violated by the traces the bugs they target would give.
#include <catch2/catch.hpp>

#include <memory>

#include "models/journal/journal.hpp"
#include "models/journal/trace_kinds.hpp"
#include "properties/journal/disk_semantics.hpp"
#include "properties/journal/group_commit.hpp"
#include "sim/trace_kinds.hpp"
#include "test_models.hpp"

using namespace hasim;
using namespace hasim::testing;
using namespace hasim::literals;
namespace jk = hasim::journal::trace_kind;

namespace {

TrueTime at_ms(std::int64_t ms) { return TrueTime{ms * 1'000'000}; }

// Feeds one property the events of journal "n1/journal" and of the kernel.
struct Feed {
  explicit Feed(Property& p) : property(p) {}
  void journal(std::int64_t ms, std::string_view kind, std::vector<TraceField> fields) {
    property.on_event(StoredTraceEvent{at_ms(ms), "n1", "journal", kind, std::move(fields)});
  }
  void recovered(std::int64_t ms, std::string volume = "persistent") {
    journal(ms, jk::kRecovered,
            {{"records", std::int64_t{0}}, {"last", std::int64_t{0}},
             {"disk", std::string("ssd")}, {"volume", std::move(volume)}});
  }
  void full(std::int64_t ms, bool on) {
    property.on_event(StoredTraceEvent{at_ms(ms), "n1", "", trace_kind::kDiskFull,
                                 {{"disk", std::string("ssd")}, {"full", on}}});
  }
  bool violated() const { return property.violation().has_value(); }
  Property& property;
};

// Write 1 and its fsync at 10 ms, write 2 at 12 ms, the fsync's completion at 14 ms.
void fsync_done_with_a_write_waiting(Feed& f) {
  f.recovered(0);
  f.journal(10, jk::kWrite, {{"seq", std::int64_t{1}}});
  f.journal(10, jk::kFsync, {{"covers", std::int64_t{1}}});
  f.journal(12, jk::kWrite, {{"seq", std::int64_t{2}}});
  f.journal(14, jk::kSynced, {{"covers", std::int64_t{1}}, {"written", std::int64_t{2}}});
}

}  // namespace

TEST_CASE("disk-semantics and group-commit hold for the journal through disk faults",
          "[journal]") {
  for (const JournalAck ack : {JournalAck::after_fsync, JournalAck::after_write}) {
    World world(plain_nodes(1), constant_latency(1_ms));
    DiskSemantics disk("disk-semantics");
    GroupCommit group("group-commit");
    world.trace().add_observer(&disk);
    world.trace().add_observer(&group);
    // Writes slower than fsyncs and an fsync slower than the interval: FIFO order and the
    // tail of each group both matter.
    world.add_disk(0, "ssd",
                   DiskParams{DurationDistribution::uniform(1_ms, 9_ms),
                              DurationDistribution::uniform(1_ms, 25_ms), 1 << 20});
    const JournalConfig config{10_ms, ack, "ssd", VolumeKind::persistent};
    const ProcessId journal =
        world.add_process(0, "journal", [config] { return std::make_unique<Journal>(config); });
    world.add_volume(journal, std::string(Journal::kVolume), "ssd", VolumeKind::persistent);
    world.at(at_ms(300), [&] { world.disk_full(0, "ssd", true); });
    world.at(at_ms(500), [&] { world.disk_full(0, "ssd", false); });
    world.at(at_ms(700), [&] { world.slow_disk(0, "ssd", 20); });
    world.at(at_ms(900), [&] { world.node_down(0); });
    world.at(at_ms(950), [&] { world.node_up(0); });
    world.at(at_ms(1200), [&] { world.slow_disk(0, "ssd", 1); });
    world.at(at_ms(1300), [&] { world.pause(journal); });
    world.at(at_ms(1400), [&] { world.resume(journal); });
    world.run_until(at_ms(2000));
    CHECK_FALSE(disk.violation().has_value());
    CHECK_FALSE(group.violation().has_value());
  }
}

TEST_CASE("disk-semantics: an fsync that completes ahead of an earlier append", "[journal]") {
  DiskSemantics property("disk-semantics");
  Feed f(property);
  f.recovered(0);
  f.journal(10, jk::kWrite, {{"seq", std::int64_t{1}}});
  f.journal(12, jk::kSynced, {{"covers", std::int64_t{1}}, {"written", std::int64_t{1}}});
  CHECK_FALSE(f.violated());
  f.journal(20, jk::kWrite, {{"seq", std::int64_t{2}}});
  f.journal(21, jk::kSynced, {{"covers", std::int64_t{2}}, {"written", std::int64_t{1}}});
  REQUIRE(f.violated());
  CHECK_THAT(property.violation()->detail, Catch::Contains("append of write 2"));
}

TEST_CASE("disk-semantics: a write accepted while its disk is full", "[journal]") {
  for (const std::string volume : {"persistent", "memory"}) {
    DiskSemantics property("disk-semantics");
    Feed f(property);
    f.recovered(0, volume);
    f.journal(10, jk::kWrite, {{"seq", std::int64_t{1}}});
    f.full(11, true);  // after the write arrived: its append may have completed before
    f.journal(15, jk::kAck, {{"seq", std::int64_t{1}}});
    CHECK_FALSE(f.violated());
    f.journal(20, jk::kWrite, {{"seq", std::int64_t{2}}});
    f.journal(25, jk::kAck, {{"seq", std::int64_t{2}}});
    CHECK(f.violated() == (volume == "persistent"));  // tmpfs takes no disk space
  }
}

TEST_CASE("disk-semantics: a full disk that was freed in between judges nothing", "[journal]") {
  DiskSemantics property("disk-semantics");
  Feed f(property);
  f.recovered(0);
  f.full(5, true);
  f.journal(10, jk::kWrite, {{"seq", std::int64_t{1}}});
  f.full(11, false);
  f.full(12, true);
  f.journal(15, jk::kAck, {{"seq", std::int64_t{1}}});
  CHECK_FALSE(f.violated());
}

TEST_CASE("group-commit: the next fsync is due when one completes with writes waiting",
          "[journal]") {
  GroupCommit property("group-commit");
  Feed f(property);
  fsync_done_with_a_write_waiting(f);
  f.journal(14, jk::kAck, {{"seq", std::int64_t{1}}});  // not judged
  f.journal(14, jk::kFsync, {{"covers", std::int64_t{2}}});
  f.journal(16, jk::kWrite, {{"seq", std::int64_t{3}}});
  f.journal(18, jk::kSynced, {{"covers", std::int64_t{2}}, {"written", std::int64_t{3}}});
  CHECK_FALSE(f.violated());
  f.journal(20, jk::kWrite, {{"seq", std::int64_t{4}}});  // waited for the next write
  REQUIRE(f.violated());
  CHECK(property.violation()->at == at_ms(18));
  CHECK_THAT(property.violation()->detail, Catch::Contains("while write 3 waited"));
}

TEST_CASE("group-commit: a journal that crashes owes nothing", "[journal]") {
  GroupCommit property("group-commit");
  Feed f(property);
  fsync_done_with_a_write_waiting(f);
  f.journal(14, trace_kind::kCrash, {{"reason", std::string("node-down")}});
  f.recovered(20);
  f.journal(30, jk::kWrite, {{"seq", std::int64_t{1}}});
  CHECK_FALSE(f.violated());
}
