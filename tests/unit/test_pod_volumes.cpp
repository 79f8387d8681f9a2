// The containers of one pod share its volumes (World::share_volume): etcd-druid's etcd and
// its backup-restore sidecar both mount the data volume; the sidecar validates, wipes and
// restores the data directory while etcd is not running. Each container is a process of its
// own; these tests check that they see the same files, that each gets its own completions,
// and that moves, pod deletion and disk loss treat the pod as a whole.
#include <catch2/catch.hpp>

#include <functional>
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

using Records = std::vector<std::string>;
using Names = std::vector<std::string>;

DiskParams fixed(Duration write, Duration fsync) {
  return DiskParams{DurationDistribution::constant(write), DurationDistribution::constant(fsync),
                    1 << 20};
}

TrueTime at_ms(std::int64_t ms) { return TrueTime{ms * 1'000'000}; }

// A command a test hands a container: run inside its callback, where its Env is valid.
struct Do final : MessageBody {
  explicit Do(std::function<void(Env&)> fn_) : fn(std::move(fn_)) {}
  std::string_view type() const override { return "Do"; }
  std::function<void(Env&)> fn;
};

// A container that does what it is told and keeps the completions it gets.
class Container final : public Process {
 public:
  explicit Container(std::shared_ptr<std::vector<IoCompletion>> done) : done_(std::move(done)) {}
  void on_start(Env&) override {}
  void on_message(Env& env, ProcessId, const Message& message) override {
    if (const Do* command = message_as<Do>(*message)) command->fn(env);
  }
  void on_timer(Env&, TimerId, std::uint64_t) override {}
  void on_io(Env&, const IoCompletion& io) override { done_->push_back(io); }

 private:
  std::shared_ptr<std::vector<IoCompletion>> done_;
};

// Two nodes of one zone, each with a local disk "ssd", and a network disk "pv-0" in the zone;
// a pod of two containers on n1 (the sidecar added first, so it has the lower id) whose owner
// mounts "data" and shares it with the sidecar; a bystander on n1 that mounts nothing.
struct Pod {
  explicit Pod(std::string_view disk, VolumeKind kind)
      : world(plain_nodes(2), constant_latency(1_ms)) {
    world.trace().add_observer(&trace);
    world.add_disk(0, "ssd", fixed(1_ms, 5_ms));
    world.add_disk(1, "ssd", fixed(1_ms, 5_ms));
    world.add_network_disk("", "pv-0", fixed(1_ms, 5_ms));
    sidecar = add("sidecar", sidecar_done);
    owner = add("etcd", owner_done);
    bystander = add("bystander", std::make_shared<std::vector<IoCompletion>>());
    data = world.add_volume(owner, "data", disk, kind);
    world.share_volume(data, sidecar);
  }
  ProcessId add(std::string name, std::shared_ptr<std::vector<IoCompletion>> done) {
    return world.add_process(0, std::move(name),
                             [done] { return std::make_unique<Container>(done); });
  }
  // Runs `fn` in `process`'s next callback at `ms`.
  void act(std::int64_t ms, ProcessId process, std::function<void(Env&)> fn) {
    world.at(at_ms(ms), [this, process, fn] { world.post(process, std::make_shared<Do>(fn)); });
  }
  // What `process` reads of `file` at `ms`, once the run has passed it.
  std::shared_ptr<Records> read_at(std::int64_t ms, ProcessId process, std::string file) {
    auto out = std::make_shared<Records>();
    act(ms, process, [out, file](Env& env) { *out = env.read("data", file); });
    return out;
  }
  std::shared_ptr<Names> files_at(std::int64_t ms, ProcessId process) {
    auto out = std::make_shared<Names>();
    act(ms, process, [out](Env& env) { *out = env.files("data"); });
    return out;
  }
  World world;
  Collector trace;
  std::shared_ptr<std::vector<IoCompletion>> owner_done =
      std::make_shared<std::vector<IoCompletion>>();
  std::shared_ptr<std::vector<IoCompletion>> sidecar_done =
      std::make_shared<std::vector<IoCompletion>>();
  ProcessId sidecar = 0;
  ProcessId owner = 0;
  ProcessId bystander = 0;
  VolumeId data = 0;
};

std::function<void(Env&)> append(std::string file, std::string record, std::uint64_t tag = 0) {
  return [file, record, tag](Env& env) { env.append("data", file, record, tag); };
}

}  // namespace

TEST_CASE("the containers of a pod mount the same volume and see each other's appends",
          "[disk][pod-volumes]") {
  Pod pod("ssd", VolumeKind::persistent);
  CHECK(pod.world.find_volume(pod.sidecar, "data") == pod.data);
  CHECK(pod.world.find_volume(pod.owner, "data") == pod.data);
  CHECK_FALSE(pod.world.find_volume(pod.bystander, "data").has_value());
  CHECK(pod.world.mounts_volume(pod.sidecar));
  CHECK_FALSE(pod.world.mounts_volume(pod.bystander));
  CHECK(pod.world.pod_containers(pod.owner) == std::vector<ProcessId>{pod.sidecar, pod.owner});
  CHECK(pod.world.pod_containers(pod.bystander) == std::vector<ProcessId>{pod.bystander});
  pod.act(1, pod.owner, append("wal", "a"));    // done at 2 ms
  pod.act(5, pod.sidecar, append("wal", "b"));  // done at 6 ms
  const auto sidecar_read = pod.read_at(4, pod.sidecar, "wal");
  const auto owner_read = pod.read_at(10, pod.owner, "wal");
  pod.world.run_until(at_ms(11));
  CHECK(*sidecar_read == Records{"a"});
  CHECK(*owner_read == Records{"a", "b"});
}

TEST_CASE("a sidecar's fsync makes the owner's records durable across a power loss",
          "[disk][pod-volumes]") {
  for (const bool sidecar_syncs : {true, false}) {
    Pod pod("ssd", VolumeKind::persistent);
    pod.act(1, pod.owner, append("wal", "a"));
    pod.act(1, pod.owner, append("wal", "b"));  // both done by 3 ms
    if (sidecar_syncs) pod.act(4, pod.sidecar, [](Env& env) { env.fsync("data", "wal", 0); });
    pod.act(12, pod.owner, append("wal", "c"));  // after the fsync (done at 9 ms): unsynced
    pod.world.at(at_ms(20), [&] { pod.world.node_down(0); });
    pod.world.run_until(at_ms(21));
    const Volume& data = pod.world.volume(pod.data);
    CHECK(data.files.at("wal").records == (sidecar_syncs ? Records{"a", "b"} : Records{}));
  }
}

TEST_CASE("a sidecar wipes a data directory by removing every file it lists",
          "[disk][pod-volumes]") {
  Pod pod("ssd", VolumeKind::persistent);
  pod.act(1, pod.owner, append("member/wal/0.wal", "entry"));
  pod.act(1, pod.owner, append("member/snap/db", "snapshot"));
  const auto before = pod.files_at(5, pod.sidecar);
  pod.act(6, pod.sidecar, [](Env& env) {
    for (const std::string& file : env.files("data")) env.remove("data", file);
  });
  const auto after = pod.files_at(7, pod.owner);
  const auto wal = pod.read_at(7, pod.owner, "member/wal/0.wal");
  pod.world.run_until(at_ms(8));
  CHECK(*before == Names{"member/snap/db", "member/wal/0.wal"});
  CHECK(after->empty());
  CHECK(wal->empty());
  CHECK(pod.world.volume(pod.data).bytes == 0);
}

TEST_CASE("files() lists by name, without a file a power loss emptied", "[disk][pod-volumes]") {
  Pod pod("ssd", VolumeKind::persistent);
  for (const char* file : {"zeta", "alpha", "Mid", "alpha/0"}) {
    pod.act(1, pod.owner, append(file, "x"));  // done at 2..5 ms
  }
  pod.act(6, pod.owner, [](Env& env) { env.fsync("data", "zeta", 0); });  // done at 11 ms
  const auto before = pod.files_at(12, pod.sidecar);
  pod.world.at(at_ms(13), [&] { pod.world.node_down(0); });
  pod.world.at(at_ms(14), [&] { pod.world.node_up(0); });
  const auto after = pod.files_at(15, pod.sidecar);
  pod.world.run_until(at_ms(16));
  CHECK(*before == Names{"Mid", "alpha", "alpha/0", "zeta"});  // byte order: 'M' < 'a'
  CHECK(*after == Names{"zeta"});
}

TEST_CASE("a pod moved within its zone keeps its network volume in both containers",
          "[disk][pod-volumes]") {
  Pod pod("pv-0", VolumeKind::persistent);
  pod.act(1, pod.owner, append("wal", "a"));
  pod.act(3, pod.sidecar, [](Env& env) { env.fsync("data", "wal", 0); });  // done at 8 ms
  pod.world.at(at_ms(10), [&] {
    pod.world.delete_pod(pod.owner);  // the whole pod: the sidecar stops too
    CHECK(pod.world.process_state(pod.sidecar) == ProcessState::stopped);
    // The sidecar first: it follows without touching the volume; the owner carries it.
    for (const ProcessId p : {pod.sidecar, pod.owner}) pod.world.move_process(p, 1);
    for (const ProcessId p : {pod.sidecar, pod.owner}) pod.world.restart(p);
  });
  const auto sidecar_read = pod.read_at(12, pod.sidecar, "wal");
  pod.act(13, pod.sidecar, append("wal", "b"));
  const auto owner_read = pod.read_at(20, pod.owner, "wal");
  pod.world.at(at_ms(25), [&] { pod.world.node_down(0); });  // the old node: nothing of theirs
  pod.world.run_until(at_ms(26));
  CHECK(pod.world.process_node(pod.sidecar) == 1);
  CHECK(pod.world.process_node(pod.owner) == 1);
  CHECK(*sidecar_read == Records{"a"});
  CHECK(*owner_read == Records{"a", "b"});
  CHECK(pod.world.process_state(pod.owner) == ProcessState::running);
  CHECK(pod.world.volume(pod.data).wipes == 0);
  CHECK(pod.trace.of_kind(trace_kind::kMove).size() == 2);
}

TEST_CASE("a pod moved with an emptyDir finds it empty in both containers", "[disk][pod-volumes]") {
  Pod pod("ssd", VolumeKind::ephemeral);
  pod.act(1, pod.owner, append("wal", "a"));
  // Crashed and restarted in place, the containers keep the emptyDir...
  pod.world.at(at_ms(5), [&] {
    for (const ProcessId p : {pod.sidecar, pod.owner}) pod.world.crash(p);
    for (const ProcessId p : {pod.sidecar, pod.owner}) pod.world.restart(p);
  });
  const auto kept = pod.read_at(6, pod.sidecar, "wal");
  // ...moved to another node, they find a new, empty one there.
  pod.world.at(at_ms(10), [&] {
    for (const ProcessId p : {pod.sidecar, pod.owner}) pod.world.crash(p);
    for (const ProcessId p : {pod.sidecar, pod.owner}) pod.world.move_process(p, 1);
    for (const ProcessId p : {pod.sidecar, pod.owner}) pod.world.restart(p);
  });
  const auto moved = pod.files_at(11, pod.sidecar);
  pod.act(12, pod.sidecar, append("wal", "b"));
  const auto owner_read = pod.read_at(20, pod.owner, "wal");
  pod.world.run_until(at_ms(21));
  CHECK(*kept == Records{"a"});
  CHECK(moved->empty());
  CHECK(*owner_read == Records{"b"});
  CHECK(pod.world.volume(pod.data).wipes == 0);  // a new volume on n2's disk
}

TEST_CASE("losing the disk of a shared volume kills every container mounting it, by id",
          "[disk][pod-volumes]") {
  for (const bool whole_node : {false, true}) {
    Pod pod("ssd", VolumeKind::persistent);
    pod.act(1, pod.owner, append("wal", "a"));
    pod.world.at(at_ms(5),
                 [&] { whole_node ? pod.world.disk_loss(0) : pod.world.disk_loss(0, "ssd"); });
    pod.world.run_until(at_ms(6));
    CHECK(pod.world.process_state(pod.owner) == ProcessState::stopped);
    CHECK(pod.world.process_state(pod.sidecar) == ProcessState::stopped);
    CHECK(pod.world.process_state(pod.bystander) ==
          (whole_node ? ProcessState::stopped : ProcessState::running));
    CHECK(pod.world.volume(pod.data).files.empty());
    std::vector<std::string> killed;
    for (const auto& e : pod.trace.of_kind(trace_kind::kCrash)) {
      CHECK(e.string_field("reason") == "disk-loss");
      killed.emplace_back(e.proc);
    }
    // Process-id order: the sidecar (added first) before the owner.
    CHECK(killed ==
          (whole_node ? Names{"sidecar", "etcd", "bystander"} : Names{"sidecar", "etcd"}));
  }
}

TEST_CASE("a sidecar's I/O completions go to the sidecar only", "[disk][pod-volumes]") {
  Pod pod("ssd", VolumeKind::persistent);
  pod.act(1, pod.sidecar, [](Env& env) {
    env.append("data", "wal", "s", 7);
    env.fsync("data", "wal", 8);
  });
  pod.act(1, pod.owner, append("wal", "o", 9));  // queued behind the sidecar's on the disk
  pod.world.run_until(at_ms(20));
  REQUIRE(pod.sidecar_done->size() == 2);
  CHECK((*pod.sidecar_done)[0].op == IoOp::append);
  CHECK((*pod.sidecar_done)[0].tag == 7);
  CHECK((*pod.sidecar_done)[1].op == IoOp::fsync);
  CHECK((*pod.sidecar_done)[1].tag == 8);
  REQUIRE(pod.owner_done->size() == 1);
  CHECK((*pod.owner_done)[0].tag == 9);
  CHECK(pod.world.volume(pod.data).files.at("wal").records == Records{"s", "o"});
}

TEST_CASE("a sidecar's operation is dropped when it stops, whatever the owner does",
          "[disk][pod-volumes]") {
  Pod pod("ssd", VolumeKind::persistent);
  pod.act(1, pod.sidecar, append("wal", "s", 1));  // in flight until 2 ms
  pod.world.at(TrueTime{1'500'000}, [&] { pod.world.crash(pod.sidecar); });
  pod.act(3, pod.owner, append("wal", "o", 2));
  pod.world.run_until(at_ms(10));
  CHECK(pod.sidecar_done->empty());
  REQUIRE(pod.owner_done->size() == 1);
  CHECK(pod.world.volume(pod.data).files.at("wal").records == Records{"o"});
  CHECK(pod.world.process_state(pod.owner) == ProcessState::running);  // a crash is per container
}

TEST_CASE("a sidecar's move alone leaves the pod's emptyDir where it is", "[disk][pod-volumes]") {
  Pod pod("ssd", VolumeKind::ephemeral);
  pod.act(1, pod.owner, append("wal", "a"));
  pod.world.at(at_ms(5), [&] {
    pod.world.crash(pod.sidecar);
    pod.world.move_process(pod.sidecar, 1);  // it follows the owner; it carries nothing
    pod.world.move_process(pod.sidecar, 0);
    pod.world.restart(pod.sidecar);
  });
  const auto owner_read = pod.read_at(6, pod.owner, "wal");
  const auto sidecar_read = pod.read_at(6, pod.sidecar, "wal");
  pod.world.run_until(at_ms(7));
  CHECK(*owner_read == Records{"a"});
  CHECK(*sidecar_read == Records{"a"});
  CHECK(pod.world.volume(pod.data).wipes == 0);
}
