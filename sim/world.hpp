#pragma once
// The simulator's driver (hasim's equivalent of raft's node.go or TigerBeetle's cluster):
// nodes with local clocks, processes (sans-IO models) placed on nodes, the network, the
// event loop and the faults. Models never see the World; they see only their Env.
//
// Event order: (true time, scheduling sequence). Processes start at time 0 in the order
// they were added. Fault actions scheduled with at() run in (time, order scheduled), before
// any later-scheduled event at the same instant.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/assert.hpp"
#include "sim/clock.hpp"
#include "sim/disk.hpp"
#include "sim/id_table.hpp"
#include "sim/env.hpp"
#include "sim/network.hpp"
#include "sim/scheduler.hpp"
#include "sim/trace.hpp"

namespace hasim {

using ProcessFactory = std::function<std::unique_ptr<Process>()>;
using VolumeId = std::uint32_t;
// When a process starts: with its node (at time 0 and at each node_up), or only when
// restart() asks: a pod's container, which the kubelet starts once the pod is bound to a
// node, and which whoever runs the pods starts again after a reboot.
enum class StartPolicy : std::uint8_t { with_node, on_demand };
// The node of a network disk: none (it belongs to a zone and follows its volume's owner).
inline constexpr NodeId kNoNode = ~NodeId{0};
// Why a process stopped, as its supervisor (the node's kubelet) sees it.
enum class StopReason { exit, crash, terminated };
// Told when a process exits on its own (with its code), is killed by a crash fault, or stops
// after terminate(); not for node-down or disk-loss, which take the supervisor down too.
// Called outside any model callback.
using StopHandler = std::function<void(ProcessId process, StopReason reason, int code)>;

struct NodeSetup {
  std::string name;
  std::string zone;
  LocalClock clock;
  // The name the node's random streams are forked by ("net/A->B", "proc/A/p#1"); empty: its
  // name. A renamed node keeps its old stream name so every seed draws what it drew before
  // the rename (the ideal store's node, "etcd" until issue 11 part 5, now "store").
  std::string stream_name{};
  // false: the node starts powered off and its processes start at its first node_up (a
  // machine that does not exist yet: Cluster API's replacement of a control-plane node).
  bool up = true;
};

struct WorldOptions {
  std::uint64_t seed = 1;
  LinkParams remote;
  LinkParams loopback{DurationDistribution::constant(microseconds(100)), 0.0, 0.0};
  // Bounds (TIGER_STYLE): a run that exceeds them stops and reports why instead of hanging.
  std::uint64_t max_events = 4'000'000'000ULL;
  std::uint64_t max_events_per_instant = 1'000'000;
  std::size_t max_held_inputs = 1'000'000;  // per paused process
};

enum class RunStatus { completed, event_limit, livelock };

struct RunStats {
  RunStatus status = RunStatus::completed;
  TrueTime end{};
  std::uint64_t events = 0;
  std::string problem;  // why the run stopped early, if it did
};

enum class ProcessState { stopped, running, paused };

class World {
 public:
  World(std::vector<NodeSetup> nodes, WorldOptions options);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // Setup (before run_until).
  ProcessId add_process(NodeId node, std::string name, ProcessFactory factory,
                        StartPolicy policy = StartPolicy::with_node);
  // Disks (sim/disk.hpp; sim/world_disks.cpp). A node has the disks added here; a volume is
  // mounted into its owner (a pod's container) and any process it is shared with (the pod's
  // other containers), which name it in Env::append etc.
  void add_disk(NodeId node, std::string name, DiskParams params);
  // A network block device in a zone (a cloud PersistentVolume: EBS, a PD): it holds one
  // volume, attaches to whichever node of its zone the volume's owner runs on, survives that
  // node's failure and disk loss, and loses only its page cache with the node's power. May be
  // added during the run (a provisioner's); so may a volume of a stopped process.
  void add_network_disk(std::string zone, std::string name, DiskParams params);
  VolumeId add_volume(ProcessId owner, std::string name, std::string_view disk, VolumeKind kind);
  // Mounts `volume` into `process` too: another container of its owner's pod (etcd-druid's
  // backup-restore sidecar beside etcd), on the owner's node, mounting no other volume of that
  // name. Both then name it in Env::append etc. and see the same files; each operation's
  // completion goes to the process that issued it.
  void share_volume(VolumeId volume, ProcessId process);
  // Places a stopped process on another node (a pod re-created on another node). Its
  // volumes follow: a network disk re-attaches (same zone only), an emptyDir starts empty
  // on the new node's disk of the same name; a local persistent volume cannot move.
  // A pod is moved by moving each of its containers, stopped, to the same node: the owner's
  // move carries the volumes (its sharers must be stopped), a sharer's move changes nothing
  // of them, and a container may use a volume only while on the node it is attached to.
  void move_process(ProcessId process, NodeId to);
  void at(TrueTime when, std::function<void()> action);
  Network& network() { return network_; }
  TraceWriter& trace() { return trace_; }
  // Keeps `object` alive as long as the world: what a builder wires in and its scheduled
  // actions or trace observers refer to (a role resolver's view of who leads).
  void keep_alive(std::shared_ptr<const void> object) { kept_alive_.push_back(std::move(object)); }

  // Lowers the event bound (WorldOptions::max_events) before the run: `hasim check` caps each
  // of its runs so that one schedule that drives a model into a message storm cannot stall the
  // whole check.
  void limit_events(std::uint64_t max_events) {
    HASIM_ASSERT(max_events > 0);
    options_.max_events = std::min(options_.max_events, max_events);
  }

  RunStats run_until(TrueTime end);

  // Faults, applied at now(). Each is traced.
  void crash(ProcessId process, std::string_view reason = "fault");
  void restart(ProcessId process);
  void pause(ProcessId process);
  void resume(ProcessId process);
  void node_down(NodeId node);
  void node_up(NodeId node);
  void clock_step(NodeId node, Duration delta);
  void clock_rate(NodeId node, std::int64_t rate_ppb);
  // `shape` states the partition as its fault defines it ("isolate", "groups", or "from" and
  // "to"), traced after the cut's edges for properties/kernel/partition_respected.hpp.
  std::uint64_t partition(std::vector<DirectedEdge> cut, std::vector<TraceField> shape = {});
  void heal(std::uint64_t cut_id);
  void heal_all();
  void disk_loss(NodeId node);  // every disk of the node, and its processes' DurableStores
  // One disk: the processes mounting it are killed, their supervisors told only with
  // `tell_supervisors` (a pod's kubelet restarts its containers on the empty volume; the
  // kernel's disk-loss fault leaves them down until its "for" ends).
  void disk_loss(NodeId node, std::string_view disk, bool tell_supervisors = false);
  // Operations issued from now on take `factor` times as long; 1 ends the fault.
  void slow_disk(NodeId node, std::string_view disk, std::int64_t factor);
  // While full, every append fails with ENOSPC.
  void disk_full(NodeId node, std::string_view disk, bool full);
  // The process's pod is deleted: its containers (pod_containers) are killed in id order
  // (their supervisor is not told: nothing restarts a deleted pod but its controller, here a
  // later restart of each) and its ephemeral and memory volumes are wiped.
  void delete_pod(ProcessId process);
  // An operator's offline tool rewrote a volume while every process mounting it was stopped
  // (etcdutl snapshot restore): its files are now `files` (name -> records), all synced.
  // Untraced: the caller traces what it did.
  void replace_volume_files(VolumeId volume,
                            const std::map<std::string, std::vector<std::string>>& files);
  void drop_connections(NodeId node);
  // SIGTERM: the model's on_terminate runs; if it is still running after `grace`, it is
  // killed (SIGKILL, traced as a crash with reason "grace-period").
  void terminate(ProcessId process, Duration grace);
  void set_stop_handler(StopHandler handler) { stop_handler_ = std::move(handler); }
  // The supervisor of one process instead of the world's stop handler: a pod's containers
  // are restarted by their own node's kubelet, with the pod's restart policy and back-off,
  // not by the static-pod kubelet the stop handler stands for.
  void set_stop_handler(ProcessId process, StopHandler handler);
  // Delivers `message` to `to` at this instant as if sent by itself, for infrastructure the
  // builder wires outside any process (an ideal store waking its watchers). Lost if `to` is
  // not running when it arrives.
  void post(ProcessId to, Message message);
  // post() to each of `to`, in order. The posts of one call would be consecutive in the queue
  // (nothing is scheduled between them), so they go in as one event that delivers them in
  // turn: the same deliveries in the same order, counted as as many events, with one queue
  // entry instead of one each (a store's commit wakes every apiserver: a third of a coordinated
  // trial's deliveries).
  void post_each(std::span<const ProcessId> to, Message message);
  // Traces a fault that a builder applies to model-level state (e.g. a slow apiserver).
  void trace_fault(std::string_view kind, std::string_view node, std::vector<TraceField> fields) {
    trace_world(kind, node, std::move(fields));
  }

  // Read-only views (properties, builders, tests).
  TrueTime now() const { return scheduler_.now(); }
  std::size_t node_count() const { return nodes_.size(); }
  std::size_t process_count() const { return processes_.size(); }
  const std::string& node_name(NodeId node) const { return nodes_.at(node).name; }
  const std::string& node_zone(NodeId node) const { return nodes_.at(node).zone; }
  std::optional<NodeId> find_node(std::string_view name) const;
  std::optional<ProcessId> find_process(std::string_view qualified_name) const;
  // A random stream for scenario-level drawing (e.g. an upgrade's timings), named by purpose,
  // independent of every process's stream.
  Rng fork_rng(std::string_view name) const { return root_rng_.fork(name); }
  const std::string& process_name(ProcessId process) const {
    return processes_.at(process).qualified;
  }
  NodeId process_node(ProcessId process) const { return processes_.at(process).node; }
  ProcessState process_state(ProcessId process) const { return processes_.at(process).state; }
  const std::vector<ProcessId>& processes_on(NodeId node) const {
    return nodes_.at(node).processes;
  }
  bool reachable(NodeId from, NodeId to) const;
  bool is_up(NodeId node) const { return nodes_.at(node).up; }
  const DurableStore& durable(ProcessId process) const { return processes_.at(process).durable; }
  // The volume `process` mounts under `name`, as its owner or a sharer.
  std::optional<VolumeId> find_volume(ProcessId process, std::string_view name) const;
  bool mounts_volume(ProcessId process) const;  // as owner or sharer
  // StartPolicy::with_node: the node starts it. An on_demand process is started by a
  // controller (a kubelet running a pod's containers), which may place it on other nodes.
  bool starts_with_node(ProcessId process) const {
    return processes_.at(process).start_policy == StartPolicy::with_node;
  }
  // The containers of `process`'s pod as far as the World knows them: it and every process
  // linked to it by a shared volume, in id order.
  std::vector<ProcessId> pod_containers(ProcessId process) const;
  const Volume& volume(VolumeId volume) const;
  std::vector<std::string> disk_names(NodeId node) const;

 private:
  std::vector<std::shared_ptr<const void>> kept_alive_;
  class ProcessEnv;
  friend class ProcessEnv;

  struct Timer {
    LocalTime deadline;  // local monotonic
    std::uint64_t tag = 0;
    EventId event;  // invalid once fired while paused (held)
  };
  struct HeldInput {
    enum class Kind : std::uint8_t { message, timer, io };
    Kind kind = Kind::message;
    TimerId timer = 0;
    ProcessId from = 0;
    Message message;
    IoCompletion io;
  };
  struct ProcessSlot {
    std::string name;
    std::string qualified;
    NodeId node = 0;
    ProcessFactory factory;
    std::unique_ptr<Process> model;
    std::unique_ptr<ProcessEnv> env;
    ProcessState state = ProcessState::stopped;
    std::uint64_t incarnation = 0;
    IdTable<Timer> timers;
    std::deque<HeldInput> held;
    DurableStore durable;
    std::optional<Rng> rng;
    TagAllocator tags;             // this incarnation's timer tag spaces
    std::optional<int> exit_code;  // set by Env::exit; acted on when the callback returns
    bool terminating = false;      // terminate() was called for this incarnation
    StartPolicy start_policy = StartPolicy::with_node;
  };
  struct NodeSlot {
    std::string name;
    std::string zone;
    LocalClock clock;
    bool up = true;
    std::vector<ProcessId> processes;
    std::string stream_name{};  // NodeSetup::stream_name, or the name
  };
  struct DiskSlot {
    NodeId node = 0;  // kNoNode: a network disk
    Disk disk;
    std::string zone{};  // a network disk's zone
  };
  struct VolumeSlot {
    std::size_t disk = 0;  // into disks_
    VolumeIndex index = 0;
    ProcessId owner = 0;
    std::vector<ProcessId> sharers{};  // share_volume: the pod's other containers, in id order
  };
  struct PendingIo {
    ProcessId process = 0;
    std::uint64_t incarnation = 0;  // the issuer's; another incarnation drops it
    VolumeId volume = 0;
    IoOp op = IoOp::append;
    std::string file;
    std::string record;
    std::uint64_t tag = 0;
  };
  enum EventKind : std::uint32_t {
    kTimer = 1,
    kDeliver = 2,
    kAction = 3,
    kIo = 4,
    kDeliverEach = 5
  };

  // Event handlers.
  void fire_timer(ProcessId process, TimerId timer);
  void deliver(std::uint64_t flight_index);
  // A posted message's flight, from `to` to itself, stored for delivery at this instant.
  std::uint64_t store_post(ProcessId to, Message message);
  // The next flight of the post_each() batch under way (posted_'s front).
  void deliver_posted();
  // Events run so far: the queue's, and each batch member after the first.
  std::uint64_t events_run() const { return scheduler_.executed() + batched_events_; }
  void start(ProcessId process);
  void deliver_held(ProcessId process);
  void stop(ProcessId process);  // drops volatile state; shared by crash and exit
  // crash() with a choice: node-down and disk-loss take the supervisor down too.
  void kill(ProcessId process, std::string_view reason, bool tell_supervisor);
  void finish_exit(ProcessId process);
  // Env services.
  void send(ProcessId from, ProcessId to, Message message, Transport transport);
  TimerId set_timer(ProcessId process, Duration after, std::uint64_t tag);
  bool cancel_timer(ProcessId process, TimerId timer);
  void trace_process(ProcessId process, std::string_view kind,
                     std::initializer_list<TraceField> fields);
  void trace_world(std::string_view kind, std::string_view node, std::vector<TraceField> fields);
  void drop(const Flight& flight, std::string_view reason);
  void refuse(const Flight& flight);
  std::vector<TraceField> flight_fields(const Flight& flight) const;  // from, to, msg
  void drop_unreachable_connections();
  // Disks (sim/world_disks.cpp).
  // Asserts that `process` mounts `volume` and is on the node it is attached to.
  VolumeId mounted(ProcessId process, std::string_view volume) const;
  bool mounts(VolumeId volume, ProcessId process) const;   // as owner or sharer
  std::vector<ProcessId> mounters(VolumeId volume) const;  // owner and sharers, in id order
  NodeId attached_node(VolumeId volume) const;             // a network disk's: its owner's node
  IoId issue_io(ProcessId process, std::string_view volume, IoOp op, std::string file,
                std::string record, std::uint64_t tag);
  void complete_io(IoId io);
  void notify_io(ProcessId process, const IoCompletion& done);
  void power_loss(NodeId node);  // node-down: every disk of the node loses its page cache
  std::size_t disk_index(NodeId node, std::string_view disk) const;  // into disks_
  void wipe_volume(VolumeId volume);
  void rehome_volume(VolumeId volume, NodeId to);  // move_process, for each volume it mounts
  // Runs a model callback with `process` marked active (Env calls are only valid then).
  template <typename Callback>
  void invoke(ProcessId process, Callback&& callback);

  WorldOptions options_;
  Rng root_rng_;
  std::vector<NodeSlot> nodes_;
  std::vector<ProcessSlot> processes_;
  Scheduler scheduler_;
  Network network_;
  // Flights of post_each() batches, in the order posted. A post is due at the instant it is
  // made, so batches run in the order they were posted: first in, first out.
  std::deque<std::uint64_t> posted_;
  std::uint64_t batch_left_ = 0;      // members of the batch under way still to deliver
  std::uint64_t batched_events_ = 0;  // members delivered after their batch's first
  TraceWriter trace_;
  std::vector<std::function<void()>> actions_;
  std::vector<DiskSlot> disks_;
  std::vector<VolumeSlot> volumes_;
  std::map<IoId, PendingIo> ios_;  // issued, not yet completed
  IoId next_io_id_ = 1;
  TimerId next_timer_id_ = 1;
  std::optional<ProcessId> active_;
  StopHandler stop_handler_;
  std::map<ProcessId, StopHandler> process_stop_handlers_;
  // Wiped emptyDir volumes a moved pod left on a disk (disk index, volume index), reused by
  // the next volume of the same name and kind moved onto that disk.
  std::vector<std::pair<std::size_t, VolumeIndex>> left_behind_;
  // The handler that supervises `process`: its own, else the world's (may be empty).
  const StopHandler& stop_handler_of(ProcessId process) const;
  bool started_ = false;
};

// Inline: asked on every send and delivery, and by the ideal store on every call.
inline bool World::reachable(NodeId from, NodeId to) const {
  HASIM_ASSERT(from < nodes_.size() && to < nodes_.size());
  if (!nodes_[from].up || !nodes_[to].up) return false;
  // With no cut in force the graph is the full mesh: every send skips the matrix lookup.
  const Reachability& graph = network_.reachability();
  return graph.active_cuts() == 0 || graph.reachable(from, to);
}

}  // namespace hasim
