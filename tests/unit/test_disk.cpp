// Durable disks (sim/disk.hpp, sim/world_disks.cpp): the device queue, capacity and ENOSPC,
// volume lifetimes, and the property every model that persists stands on: after any crash,
// what it reads back is a prefix of what it wrote that holds every fsynced write.
#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/disk.hpp"
#include "sim/trace_kinds.hpp"
#include "test_models.hpp"

using namespace hasim;
using namespace hasim::testing;
using namespace hasim::literals;

namespace {

DiskParams fixed(Duration write, Duration fsync, std::uint64_t capacity = 1 << 20) {
  return DiskParams{DurationDistribution::constant(write), DurationDistribution::constant(fsync),
                    capacity};
}

TrueTime at_ms(std::int64_t ms) { return TrueTime{ms * 1'000'000}; }

}  // namespace

TEST_CASE("the disk serves operations one at a time in issue order", "[disk]") {
  Disk disk("ssd", fixed(1_ms, 10_ms), Rng(1));
  const VolumeIndex v = disk.add_volume("data", VolumeKind::persistent);
  CHECK(disk.schedule(at_ms(0), v, IoOp::append) == at_ms(1));
  CHECK(disk.schedule(at_ms(0), v, IoOp::fsync) == at_ms(11));   // behind the append
  CHECK(disk.schedule(at_ms(5), v, IoOp::append) == at_ms(12));  // behind the fsync
  CHECK(disk.schedule(at_ms(20), v, IoOp::append) == at_ms(21));  // idle again
  disk.set_slow_factor(50);
  CHECK(disk.schedule(at_ms(30), v, IoOp::fsync) == at_ms(530));
}

TEST_CASE("a power loss keeps the synced records and drops the rest", "[disk]") {
  Disk disk("ssd", fixed(1_ms, 1_ms), Rng(1));
  const VolumeIndex data = disk.add_volume("data", VolumeKind::persistent);
  const VolumeIndex tmp = disk.add_volume("tmp", VolumeKind::memory);
  for (const char* r : {"a", "b"}) CHECK(disk.complete_append(data, "wal", r) == IoStatus::ok);
  disk.complete_fsync(data, "wal");
  CHECK(disk.complete_append(data, "wal", "c") == IoStatus::ok);
  CHECK(disk.complete_append(tmp, "scratch", "x") == IoStatus::ok);
  disk.complete_fsync(tmp, "scratch");  // a tmpfs fsync keeps nothing over a power loss
  const auto lost = disk.power_loss(at_ms(3));
  CHECK(lost == std::map<VolumeIndex, std::uint64_t>{{data, 1}, {tmp, 1}});
  CHECK(disk.volume(data).files.at("wal").records == std::vector<std::string>{"a", "b"});
  CHECK(disk.volume(tmp).files.at("scratch").records.empty());
  CHECK(disk.used_bytes() == 2);
}

TEST_CASE("an append that does not fit, or any append on a full disk, fails with ENOSPC",
          "[disk]") {
  Disk disk("ssd", fixed(1_ms, 1_ms, 10), Rng(1));
  const VolumeIndex v = disk.add_volume("data", VolumeKind::persistent);
  const VolumeIndex ram = disk.add_volume("ram", VolumeKind::memory);
  CHECK(disk.complete_append(v, "f", "12345678") == IoStatus::ok);
  CHECK(disk.complete_append(v, "f", "123") == IoStatus::no_space);  // 11 > 10
  CHECK(disk.complete_append(ram, "f", "12345678") == IoStatus::ok);  // RAM is not the disk
  disk.remove(v, "f");
  CHECK(disk.used_bytes() == 0);
  disk.set_full(true);
  CHECK(disk.complete_append(v, "f", "1") == IoStatus::no_space);
  disk.set_full(false);
  CHECK(disk.complete_append(v, "f", "1") == IoStatus::ok);
  CHECK(disk.volume(v).files.at("f").records == std::vector<std::string>{"1"});
}

namespace {

// A writer for the World tests: appends one record per `every`, fsyncs after each `batch`
// appends, and reports what it read at start and every completion to a shared log.
struct WriterLog {
  struct Start {
    std::vector<std::string> read;
  };
  std::vector<Start> starts;
  std::vector<std::string> issued;     // this incarnation's belief: read + appends issued
  std::vector<std::string> acked;      // appends completed OK (in order)
  std::size_t synced = 0;              // records of `issued` a completed fsync covers
  std::vector<IoCompletion> completions;
  bool violated = false;
  std::string why;
};

class Writer final : public Process {
 public:
  Writer(std::shared_ptr<WriterLog> log, Duration every, int batch, std::string volume)
      : log_(std::move(log)), every_(every), batch_(batch), volume_(std::move(volume)) {}
  void on_start(Env& env) override {
    const std::vector<std::string>& read = env.read(volume_, "wal");
    check_recovery(read);
    log_->starts.push_back({read});
    log_->issued = read;  // what is synced stays synced: `synced` carries over
    env.set_timer(every_, 0);
  }
  void on_message(Env&, ProcessId, const Message&) override {}
  void on_timer(Env& env, TimerId, std::uint64_t) override {
    const std::string record =
        std::to_string(log_->starts.size()) + "." + std::to_string(next_++);
    env.append(volume_, "wal", record, 0);
    log_->issued.push_back(record);
    if (next_ % batch_ == 0) env.fsync(volume_, "wal", log_->issued.size());
    env.set_timer(every_, 0);
  }
  void on_io(Env&, const IoCompletion& io) override {
    log_->completions.push_back(io);
    if (io.op == IoOp::fsync) log_->synced = std::max<std::size_t>(log_->synced, io.tag);
    if (io.op == IoOp::append && io.status != IoStatus::ok) log_->violated = true;
  }

 private:
  // What survived must be a prefix of what the last incarnation believed it wrote, holding
  // every record a completed fsync covered.
  void check_recovery(const std::vector<std::string>& read) {
    if (log_->starts.empty()) return;
    const std::vector<std::string>& before = log_->issued;
    const bool prefix =
        read.size() <= before.size() && std::equal(read.begin(), read.end(), before.begin());
    if (!prefix) log_->why = "read back is not a prefix of what was written";
    if (read.size() < log_->synced) log_->why = "a synced record was lost";
    log_->violated = log_->violated || !log_->why.empty();
  }
  std::shared_ptr<WriterLog> log_;
  Duration every_;
  int batch_;
  std::string volume_;
  int next_ = 0;
};

struct DiskFixture {
  explicit DiskFixture(VolumeKind kind, DiskParams params = fixed(1_ms, 5_ms))
      : world(plain_nodes(2), constant_latency(1_ms)) {
    world.trace().add_observer(&trace);
    world.add_disk(0, "ssd", params);
    auto log_ptr = log;
    writer = world.add_process(0, "writer", [log_ptr] {
      return std::make_unique<Writer>(log_ptr, 10_ms, 3, "data");
    });
    world.add_volume(writer, "data", "ssd", kind);
  }
  World world;
  Collector trace;
  std::shared_ptr<WriterLog> log = std::make_shared<WriterLog>();
  ProcessId writer = 0;
};

}  // namespace

TEST_CASE("a process crash keeps the page cache; a power loss keeps only what was synced",
          "[disk][world]") {
  DiskFixture f(VolumeKind::persistent);
  // Appends at 10, 20, 30 ms (done 1 ms later), an fsync after the third (done at 36 ms).
  f.world.at(at_ms(45), [&] { f.world.crash(f.writer); });  // the 40 ms append completed
  f.world.at(at_ms(46), [&] { f.world.restart(f.writer); });
  f.world.at(at_ms(69), [&] { f.world.node_down(0); });  // 56, 66 ms unsynced
  f.world.at(at_ms(70), [&] { f.world.node_up(0); });
  f.world.run_until(at_ms(75));
  REQUIRE(f.log->starts.size() == 3);
  CHECK(f.log->starts[1].read == std::vector<std::string>{"1.0", "1.1", "1.2", "1.3"});
  CHECK(f.log->starts[2].read == std::vector<std::string>{"1.0", "1.1", "1.2"});
  const auto lost = f.trace.of_kind(trace_kind::kUnsyncedLost);
  REQUIRE(lost.size() == 1);
  CHECK(lost[0].int_field("records") == 3);
  CHECK_FALSE(f.log->violated);
}

TEST_CASE("an operation whose issuer stopped before it completed is never applied",
          "[disk][world]") {
  DiskFixture f(VolumeKind::persistent, fixed(8_ms, 5_ms));
  f.world.at(at_ms(12), [&] { f.world.crash(f.writer); });  // the 10 ms append is in flight
  f.world.at(at_ms(13), [&] { f.world.restart(f.writer); });
  f.world.run_until(at_ms(14));
  REQUIRE(f.log->starts.size() == 2);
  CHECK(f.log->starts[1].read.empty());
  f.world.run_until(at_ms(30));  // the new incarnation's first append completes at 31 ms
  CHECK(f.world.volume(*f.world.find_volume(f.writer, "data")).files.empty());
}

TEST_CASE("a paused process learns of its completed operations when it resumes",
          "[disk][world]") {
  DiskFixture f(VolumeKind::persistent);
  // Paused after the 10 ms append was issued, before it completed at 11 ms.
  f.world.at(TrueTime{10'500'000}, [&] { f.world.pause(f.writer); });
  f.world.at(at_ms(50), [&] { f.world.resume(f.writer); });
  f.world.run_until(at_ms(20));
  CHECK(f.log->completions.empty());
  f.world.run_until(at_ms(50));  // the held completion, then the held timer's new append
  REQUIRE(f.log->completions.size() == 1);
  CHECK(f.log->issued.size() == 2);
}

TEST_CASE("deleting a pod wipes its ephemeral volumes; a persistent one outlives it",
          "[disk][world]") {
  for (const VolumeKind kind : {VolumeKind::ephemeral, VolumeKind::memory,
                                VolumeKind::persistent}) {
    DiskFixture f(kind);
    f.world.at(at_ms(45), [&] { f.world.delete_pod(f.writer); });
    f.world.at(at_ms(50), [&] { f.world.restart(f.writer); });
    f.world.run_until(at_ms(51));
    REQUIRE(f.log->starts.size() == 2);
    CHECK(f.log->starts[1].read.size() == (kind == VolumeKind::persistent ? 4U : 0U));
    CHECK(f.trace.of_kind(trace_kind::kPodDelete).size() == 1);
  }
}

TEST_CASE("losing one disk kills the processes that mount it and wipes its volumes",
          "[disk][world]") {
  DiskFixture f(VolumeKind::persistent);
  f.world.add_disk(0, "other", fixed(1_ms, 1_ms));
  const ProcessId bystander = f.world.add_process(0, "bystander", scripted({{1_s, nothing()}}));
  f.world.at(at_ms(45), [&] { f.world.disk_loss(0, "ssd"); });
  f.world.run_until(at_ms(46));
  CHECK(f.world.process_state(f.writer) == ProcessState::stopped);
  CHECK(f.world.process_state(bystander) == ProcessState::running);
  const Volume& data = f.world.volume(*f.world.find_volume(f.writer, "data"));
  CHECK(data.files.empty());
  CHECK(data.wipes == 1);
}

TEST_CASE("a full disk fails appends with ENOSPC until it is freed", "[disk][world]") {
  DiskFixture f(VolumeKind::persistent);
  f.world.at(at_ms(15), [&] { f.world.disk_full(0, "ssd", true); });
  f.world.at(at_ms(25), [&] { f.world.disk_full(0, "ssd", false); });
  f.world.run_until(at_ms(32));
  REQUIRE(f.log->completions.size() == 3);
  CHECK(f.log->completions[0].status == IoStatus::ok);
  CHECK(f.log->completions[1].status == IoStatus::no_space);
  CHECK(f.log->completions[2].status == IoStatus::ok);
  const auto errors = f.trace.of_kind(trace_kind::kDiskError);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].string_field("error") == "ENOSPC");
}

TEST_CASE("after any crash, a model reads back a prefix of its writes holding every synced one",
          "[disk][world][property]") {
  rc::prop("crashes, power losses, pauses and pod deletions at random times", [] {
    const auto write = Duration{*rc::gen::inRange<std::int64_t>(1, 3'000) * 1000};
    const auto fsync = Duration{*rc::gen::inRange<std::int64_t>(1, 20'000) * 1000};
    const bool persistent = *rc::gen::arbitrary<bool>();  // else an emptyDir
    const VolumeKind kind = persistent ? VolumeKind::persistent : VolumeKind::ephemeral;
    DiskFixture f(kind, DiskParams{DurationDistribution::uniform(Duration{}, write),
                                   DurationDistribution::uniform(Duration{}, fsync), 1 << 20});
    const auto faults = *rc::gen::container<std::vector<std::pair<int, int>>>(
        rc::gen::pair(rc::gen::inRange(0, 4), rc::gen::inRange(1, 2'000)));
    std::int64_t at = 0;
    for (const auto& [what, gap_ms] : faults) {
      at += gap_ms;
      World* w = &f.world;
      const ProcessId p = f.writer;
      f.world.at(at_ms(at), [w, p, what = what, log = f.log, kind] {
        if (what == 0) w->crash(p);
        if (what == 1) w->node_down(0);
        if (what == 2) w->pause(p);
        if (what != 3) return;
        w->delete_pod(p);
        // Not a crash: an emptyDir goes with its pod, and the writer starts over.
        if (kind == VolumeKind::persistent) return;
        log->issued.clear();
        log->synced = 0;
      });
      f.world.at(at_ms(at + gap_ms / 2), [w, p] {
        w->node_up(0);
        w->resume(p);
        w->restart(p);
      });
    }
    f.world.run_until(at_ms(at + 100));
    RC_ASSERT(f.log->why.empty());
    RC_ASSERT(!f.log->violated);
  });
}

TEST_CASE("a process started on demand runs only when restart() asks", "[disk][world]") {
  World world(plain_nodes(1), constant_latency(1_ms));
  world.add_disk(0, "ssd", fixed(1_ms, 5_ms));
  auto log = std::make_shared<WriterLog>();
  const ProcessId writer = world.add_process(
      0, "writer", [log] { return std::make_unique<Writer>(log, 10_ms, 3, "data"); },
      StartPolicy::on_demand);
  world.add_volume(writer, "data", "ssd", VolumeKind::persistent);
  world.at(at_ms(20), [&] { world.node_down(0); });
  world.at(at_ms(21), [&] { world.node_up(0); });  // a reboot starts it neither
  world.run_until(at_ms(40));
  CHECK(log->starts.empty());
  world.at(at_ms(50), [&] { world.restart(writer); });
  world.run_until(at_ms(51));
  CHECK(log->starts.size() == 1);
}

TEST_CASE("a pod moved within its zone takes its network volume; an emptyDir starts empty",
          "[disk][world]") {
  World world(plain_nodes(2), constant_latency(1_ms));
  Collector trace;
  world.trace().add_observer(&trace);
  world.add_network_disk("", "pv-0", fixed(1_ms, 5_ms));
  world.add_disk(0, "ssd", fixed(1_ms, 5_ms));
  world.add_disk(1, "ssd", fixed(1_ms, 5_ms));
  auto claimed = std::make_shared<WriterLog>();
  auto scratch = std::make_shared<WriterLog>();
  const ProcessId a = world.add_process(
      0, "claimed", [claimed] { return std::make_unique<Writer>(claimed, 10_ms, 3, "data"); });
  const ProcessId b = world.add_process(
      0, "scratch", [scratch] { return std::make_unique<Writer>(scratch, 10_ms, 3, "data"); });
  world.add_volume(a, "data", "pv-0", VolumeKind::persistent);
  world.add_volume(b, "data", "ssd", VolumeKind::ephemeral);
  world.at(at_ms(45), [&] {
    for (const ProcessId p : {a, b}) {
      world.delete_pod(p);
      world.move_process(p, 1);
      world.restart(p);
    }
  });
  world.at(at_ms(60), [&] { world.node_down(0); });  // the old node: nothing of theirs on it
  world.at(at_ms(99), [&] { world.node_down(1); });  // the new one: the page cache goes
  world.run_until(at_ms(100));
  REQUIRE(claimed->starts.size() == 2);
  CHECK(claimed->starts[1].read.size() == 4);  // the 10..40 ms appends, kept by the device
  REQUIRE(scratch->starts.size() == 2);
  CHECK(scratch->starts[1].read.empty());
  CHECK(world.find_process("n2/claimed") == a);
  CHECK_FALSE(world.find_process("n1/claimed").has_value());
  CHECK(trace.of_kind(trace_kind::kMove).size() == 2);
  bool networkLost = false;
  for (const auto& e : trace.of_kind(trace_kind::kUnsyncedLost)) {
    CHECK(e.node == "n2");  // node 1's power loss, not node 0's
    networkLost = networkLost || e.string_field("disk") == "pv-0";
  }
  CHECK(networkLost);
  CHECK_FALSE(claimed->violated);
}
