#include "sim/world.hpp"

#include "sim/assert.hpp"
#include "sim/trace_kinds.hpp"

namespace hasim {
namespace {
// The names the nodes' random streams are forked by (NodeSetup::stream_name).
std::string stream_name_of(const NodeSetup& node) {
  return node.stream_name.empty() ? node.name : node.stream_name;
}
std::vector<std::string> stream_names_of(const std::vector<NodeSetup>& nodes) {
  std::vector<std::string> names;
  for (const NodeSetup& node : nodes) names.push_back(stream_name_of(node));
  return names;
}
}  // namespace

// The Env handed to one process. Valid only while that process's callback runs.
class World::ProcessEnv final : public Env {
 public:
  ProcessEnv(World& world, ProcessId id) : world_(world), id_(id) {}
  ProcessId self() const override { return id_; }
  ProcessId process(std::string_view qualified_name) const override {
    const auto found = world_.find_process(qualified_name);
    HASIM_ASSERT(found.has_value());
    return *found;
  }
  LocalTime now() const override {
    check_active();
    return world_.nodes_[slot().node].clock.wall(world_.now());
  }
  LocalTime monotonic_now() const override {
    check_active();
    return world_.nodes_[slot().node].clock.monotonic(world_.now());
  }
  Rng& rng() override {
    check_active();
    return *world_.processes_[id_].rng;
  }
  void send(ProcessId to, Message message, Transport transport) override {
    check_active();
    world_.send(id_, to, std::move(message), transport);
  }
  TagSpace tag_space(std::string_view name) override {
    check_active();
    return world_.processes_[id_].tags.allocate(name);
  }
  TimerId set_timer(Duration after, std::uint64_t tag) override {
    check_active();
    return world_.set_timer(id_, after, tag);
  }
  bool cancel_timer(TimerId timer) override {
    check_active();
    return world_.cancel_timer(id_, timer);
  }
  DurableStore& durable() override { return world_.processes_[id_].durable; }
  IoId append(std::string_view volume, std::string_view file, std::string record,
              std::uint64_t tag) override {
    check_active();
    return world_.issue_io(id_, volume, IoOp::append, std::string(file), std::move(record), tag);
  }
  IoId fsync(std::string_view volume, std::string_view file, std::uint64_t tag) override {
    check_active();
    return world_.issue_io(id_, volume, IoOp::fsync, std::string(file), {}, tag);
  }
  const std::vector<std::string>& read(std::string_view volume,
                                       std::string_view file) const override {
    check_active();
    static const std::vector<std::string> none;
    const Volume& v = world_.volume(world_.mounted(id_, volume));
    const auto it = v.files.find(file);
    return it == v.files.end() ? none : it->second.records;
  }
  void remove(std::string_view volume, std::string_view file) override {
    check_active();
    const VolumeSlot& v = world_.volumes_[world_.mounted(id_, volume)];
    world_.disks_[v.disk].disk.remove(v.index, file);
  }
  std::vector<std::string> files(std::string_view volume) const override {
    check_active();
    std::vector<std::string> names;
    // The map is in name order; an empty file is one read() cannot tell from none.
    for (const auto& [name, file] : world_.volume(world_.mounted(id_, volume)).files) {
      if (!file.records.empty()) names.push_back(name);
    }
    return names;
  }
  void trace(std::string_view kind, std::initializer_list<TraceField> fields) override {
    check_active();
    world_.trace_process(id_, kind, fields);
  }
  bool tracing(std::string_view kind) const override { return world_.trace_.wants(kind); }
  void exit(int code) override {
    check_active();
    auto& slot = world_.processes_[id_];
    if (!slot.exit_code.has_value()) slot.exit_code = code;
  }

 private:
  const ProcessSlot& slot() const { return world_.processes_[id_]; }
  // A model may act only from inside its own callbacks (sans-IO discipline).
  void check_active() const { HASIM_ASSERT(world_.active_ == id_); }
  World& world_;
  ProcessId id_;
};

World::World(std::vector<NodeSetup> nodes, WorldOptions options)
    : options_(options),
      root_rng_(options.seed),
      network_(stream_names_of(nodes), options.remote, options.loopback, root_rng_.fork("net")) {
  HASIM_ASSERT(!nodes.empty());
  for (NodeSetup& node : nodes) {
    std::string stream_name = stream_name_of(node);
    nodes_.push_back(NodeSlot{std::move(node.name),
                              std::move(node.zone),
                              node.clock,
                              node.up,
                              {},
                              std::move(stream_name)});
  }
}

World::~World() = default;

ProcessId World::add_process(NodeId node, std::string name, ProcessFactory factory,
                             StartPolicy policy) {
  HASIM_ASSERT(!started_);
  HASIM_ASSERT(node < nodes_.size());
  const auto id = static_cast<ProcessId>(processes_.size());
  ProcessSlot slot;
  slot.qualified = nodes_[node].name + "/" + name;
  HASIM_ASSERT(!find_process(slot.qualified).has_value());
  slot.name = std::move(name);
  slot.node = node;
  slot.factory = std::move(factory);
  slot.start_policy = policy;
  slot.env = std::make_unique<ProcessEnv>(*this, id);
  processes_.push_back(std::move(slot));
  nodes_[node].processes.push_back(id);
  return id;
}

void World::at(TrueTime when, std::function<void()> action) {
  actions_.push_back(std::move(action));
  scheduler_.schedule(when, kAction, 0, actions_.size() - 1);
}

std::optional<NodeId> World::find_node(std::string_view name) const {
  for (NodeId i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].name == name) return i;
  }
  return std::nullopt;
}

std::optional<ProcessId> World::find_process(std::string_view qualified_name) const {
  for (ProcessId i = 0; i < processes_.size(); ++i) {
    if (processes_[i].qualified == qualified_name) return i;
  }
  return std::nullopt;
}

template <typename Callback>
void World::invoke(ProcessId process, Callback&& callback) {
  HASIM_ASSERT(!active_.has_value());
  ProcessSlot& slot = processes_[process];
  HASIM_ASSERT(slot.state == ProcessState::running);
  HASIM_ASSERT(slot.model != nullptr);
  active_ = process;
  callback(*slot.model, *slot.env);
  active_.reset();
  if (slot.exit_code.has_value()) finish_exit(process);
}

void World::terminate(ProcessId process, Duration grace) {
  ProcessSlot& slot = processes_.at(process);
  if (slot.state == ProcessState::stopped) return;
  if (slot.terminating) return;  // a second SIGTERM changes nothing
  slot.terminating = true;
  trace_process(process, trace_kind::kTerminate, {{"grace_ns", grace.ns}});
  const std::uint64_t incarnation = slot.incarnation;
  at(now() + grace, [this, process, incarnation] {
    const ProcessSlot& current = processes_[process];
    if (current.incarnation == incarnation && current.state != ProcessState::stopped) {
      crash(process, "grace-period");
    }
  });
  // A paused process cannot run its handler; the grace period still kills it.
  if (slot.state != ProcessState::running) return;
  invoke(process, [](Process& model, Env& env) { model.on_terminate(env); });
}

void World::finish_exit(ProcessId process) {
  ProcessSlot& slot = processes_[process];
  const int code = *slot.exit_code;
  const bool terminated = slot.terminating;
  stop(process);
  trace_process(process, trace_kind::kExit, {{"code", static_cast<std::int64_t>(code)}});
  const StopHandler& handler = stop_handler_of(process);
  if (handler) handler(process, terminated ? StopReason::terminated : StopReason::exit, code);
}

RunStats World::run_until(TrueTime end) {
  HASIM_ASSERT(end >= now());
  if (!started_) {
    started_ = true;
    // A node configured with a clock rate says so, as a later clock-rate fault does: a
    // property that judges a process's own clock (lease-protocol) reads rates from the trace.
    for (const NodeSlot& node : nodes_) {
      if (node.clock.rate_ppb() == kRatePerfect) continue;
      trace_world(trace_kind::kClockRate, node.name, {{"rate_ppb", node.clock.rate_ppb()}});
    }
    for (ProcessId id = 0; id < processes_.size(); ++id) {
      if (processes_[id].start_policy == StartPolicy::with_node) start(id);
    }
  }
  RunStats stats;
  std::uint64_t same_instant = 0;
  TrueTime instant = now();
  Event event;
  // A batch's remaining members come before anything in the queue: they are what its posts'
  // entries would be, the next ones at this instant (also after a run stopped inside one).
  while (batch_left_ > 0 || scheduler_.next_time() <= end) {
    if (events_run() >= options_.max_events) {
      stats.status = RunStatus::event_limit;
      stats.problem = "stopped after " + std::to_string(options_.max_events) + " events";
      break;
    }
    if (batch_left_ > 0) {
      event = Event{now(), 0, kDeliverEach, 0, 0};  // payload 0: the batch under way goes on
      ++batched_events_;
    } else {
      HASIM_ASSERT(scheduler_.pop(event));
    }
    same_instant = event.at == instant ? same_instant + 1 : 0;
    instant = event.at;
    if (same_instant > options_.max_events_per_instant) {
      stats.status = RunStatus::livelock;
      stats.problem = "more than " + std::to_string(options_.max_events_per_instant) +
                      " events at t=" + format_seconds(instant.ns) +
                      "s without time advancing (a model keeps rescheduling itself at once)";
      break;
    }
    switch (event.kind) {
      case kTimer:
        fire_timer(event.target, event.payload);
        break;
      case kDeliver:
        deliver(event.payload);
        break;
      case kDeliverEach:
        if (event.payload > 0) {  // from the queue: a batch of `payload` posts begins
          HASIM_ASSERT(batch_left_ == 0);
          batch_left_ = event.payload;
        }
        deliver_posted();
        break;
      case kAction:
        actions_[event.payload]();
        break;
      case kIo:
        complete_io(event.payload);
        break;
      default:
        HASIM_ASSERT(false && "unknown event kind");
    }
  }
  stats.end = stats.status == RunStatus::completed ? end : now();
  stats.events = events_run();
  return stats;
}

void World::start(ProcessId process) {
  ProcessSlot& slot = processes_[process];
  if (slot.state != ProcessState::stopped || !nodes_[slot.node].up) return;
  HASIM_ASSERT(slot.timers.empty() && slot.held.empty());
  ++slot.incarnation;
  // "proc/NODE/NAME#N" with the node's stream name, which is its name unless it was renamed.
  slot.rng.emplace(root_rng_.fork("proc/" + nodes_[slot.node].stream_name + "/" + slot.name + "#" +
                                  std::to_string(slot.incarnation)));
  slot.tags = TagAllocator{};
  slot.model = slot.factory();
  HASIM_ASSERT(slot.model != nullptr);
  slot.state = ProcessState::running;
  trace_process(process, trace_kind::kStart,
                {{"incarnation", static_cast<std::int64_t>(slot.incarnation)}});
  invoke(process, [](Process& model, Env& env) { model.on_start(env); });
}

TimerId World::set_timer(ProcessId process, Duration after, std::uint64_t tag) {
  HASIM_ASSERT(after.ns >= 0);
  ProcessSlot& slot = processes_[process];
  const LocalClock& clock = nodes_[slot.node].clock;
  const LocalTime deadline = clock.monotonic(now()) + after;
  TrueTime at = clock.true_time_of_monotonic(deadline);
  if (at < now()) at = now();
  const TimerId id = next_timer_id_++;
  const EventId event = scheduler_.schedule(at, kTimer, process, id);
  slot.timers.emplace(id, Timer{deadline, tag, event});
  return id;
}

bool World::cancel_timer(ProcessId process, TimerId timer) {
  ProcessSlot& slot = processes_[process];
  auto it = slot.timers.find(timer);
  if (it == slot.timers.end()) return false;
  // A timer that fired while paused is held; its held entry is skipped once erased here.
  if (it->second.event.valid()) HASIM_ASSERT(scheduler_.cancel(it->second.event));
  slot.timers.erase(it);
  return true;
}

void World::fire_timer(ProcessId process, TimerId timer) {
  ProcessSlot& slot = processes_[process];
  auto it = slot.timers.find(timer);
  HASIM_ASSERT(it != slot.timers.end());  // crash and cancel remove the event too
  if (slot.state == ProcessState::paused) {
    HASIM_ASSERT(slot.held.size() < options_.max_held_inputs);
    it->second.event = EventId{};
    slot.held.push_back(HeldInput{HeldInput::Kind::timer, timer, 0, nullptr, {}});
    return;
  }
  HASIM_ASSERT(slot.state == ProcessState::running);
  const std::uint64_t tag = it->second.tag;
  slot.timers.erase(it);
  invoke(process, [&](Process& model, Env& env) { model.on_timer(env, timer, tag); });
}

void World::send(ProcessId from, ProcessId to, Message message, Transport transport) {
  HASIM_ASSERT(to < processes_.size());
  HASIM_ASSERT(message != nullptr);
  const std::uint32_t connection = network_.find_connection(from, to);
  Flight flight{from,      to,         processes_[from].node,         processes_[to].node,
                transport, connection, network_.epoch_of(connection), std::move(message)};
  if (!reachable(flight.from_node, flight.to_node)) {
    // The connection cannot be made (or the datagram is black-holed).
    drop(flight, "unreachable");
    return;
  }
  const Network::Arrivals arrivals = network_.plan_delivery(now(), flight);
  if (arrivals.empty()) drop(flight, "loss");
  for (std::size_t i = 0; i < arrivals.size(); ++i) {
    if (i > 0)
      trace_world(trace_kind::kDuplicate, nodes_[flight.from_node].name, flight_fields(flight));
    // The last copy takes the flight itself: no reference count bump for the usual one.
    const bool last = i + 1 == arrivals.size();
    scheduler_.schedule(arrivals[i], kDeliver, to,
                        network_.store(last ? std::move(flight) : flight));
  }
}

std::uint64_t World::store_post(ProcessId to, Message message) {
  HASIM_ASSERT(to < processes_.size());
  const NodeId node = processes_[to].node;
  const std::uint32_t connection = network_.find_connection(to, to);
  return network_.store(Flight{to, to, node, node, Transport::stream, connection,
                               network_.epoch_of(connection), std::move(message)});
}

void World::post(ProcessId to, Message message) {
  scheduler_.schedule(now(), kDeliver, to, store_post(to, std::move(message)));
}

void World::post_each(std::span<const ProcessId> to, Message message) {
  if (to.empty()) return;
  for (const ProcessId target : to) posted_.push_back(store_post(target, message));
  scheduler_.schedule(now(), kDeliverEach, 0, to.size());
}

void World::deliver_posted() {
  HASIM_ASSERT(batch_left_ > 0 && !posted_.empty());
  const std::uint64_t flight_index = posted_.front();
  posted_.pop_front();
  --batch_left_;
  deliver(flight_index);
}

void World::deliver(std::uint64_t flight_index) {
  const Flight flight = network_.take(flight_index);
  ProcessSlot& target = processes_[flight.to];
  if (!reachable(flight.from_node, flight.to_node)) return drop(flight, "unreachable");
  // A sent stream message carries its connection; a posted one may find its connection opened
  // since it was posted.
  const auto epoch_now = [&] {
    return network_.epoch_of(flight.connection != kNoConnection
                                 ? flight.connection
                                 : network_.find_connection(flight.from, flight.to));
  };
  if (flight.transport == Transport::stream && epoch_now() != flight.epoch) {
    return drop(flight, "connection-lost");
  }
  if (target.state == ProcessState::stopped) {
    drop(flight, "not-running");
    return refuse(flight);
  }
  if (trace_.wants_messages()) {
    trace_process(flight.to, trace_kind::kRecv,
                  {{"from", processes_[flight.from].qualified},
                   {"msg", std::string(flight.message->type())}});
  }
  if (target.state == ProcessState::paused) {
    HASIM_ASSERT(target.held.size() < options_.max_held_inputs);
    target.held.push_back(HeldInput{HeldInput::Kind::message, 0, flight.from, flight.message, {}});
    return;
  }
  invoke(flight.to,
         [&](Process& model, Env& env) { model.on_message(env, flight.from, flight.message); });
}

// A disk operation's completion (sim/world_disks.cpp), here where invoke() is defined.
void World::notify_io(ProcessId process, const IoCompletion& done) {
  ProcessSlot& slot = processes_[process];
  if (slot.state == ProcessState::paused) {
    // The kernel finished the operation; the frozen process learns when it resumes.
    HASIM_ASSERT(slot.held.size() < options_.max_held_inputs);
    slot.held.push_back(HeldInput{HeldInput::Kind::io, 0, 0, nullptr, done});
    return;
  }
  invoke(process, [&](Process& model, Env& env) { model.on_io(env, done); });
}

void World::deliver_held(ProcessId process) {
  ProcessSlot& slot = processes_[process];
  // Bounded: inputs that arrive while delivering are not held (the process is running).
  while (!slot.held.empty() && slot.state == ProcessState::running) {
    HeldInput input = std::move(slot.held.front());
    slot.held.pop_front();
    if (input.kind == HeldInput::Kind::message) {
      invoke(process,
             [&](Process& model, Env& env) { model.on_message(env, input.from, input.message); });
      continue;
    }
    if (input.kind == HeldInput::Kind::io) {
      invoke(process, [&](Process& model, Env& env) { model.on_io(env, input.io); });
      continue;
    }
    auto it = slot.timers.find(input.timer);
    if (it == slot.timers.end()) continue;  // cancelled by an earlier held input
    const std::uint64_t tag = it->second.tag;
    slot.timers.erase(it);
    invoke(process, [&](Process& model, Env& env) { model.on_timer(env, input.timer, tag); });
  }
}

std::vector<TraceField> World::flight_fields(const Flight& flight) const {
  return {{"from", processes_[flight.from].qualified},
          {"to", processes_[flight.to].qualified},
          {"msg", std::string(flight.message->type())}};
}

// A stream to a process that is not running on a live node is refused, as TCP answers a SYN
// (or a segment of a connection the host no longer has) with RST: the sender learns at once,
// instead of waiting for a timeout it may not have (client-go up to 1.11 had none). A
// powered-off node answers nothing.
void World::refuse(const Flight& flight) {
  if (flight.transport != Transport::stream || !nodes_[flight.to_node].up) return;
  if (processes_[flight.from].state == ProcessState::stopped) return;
  if (message_as<ConnectionClosed>(*flight.message) != nullptr) return;
  send(flight.to, flight.from, std::make_shared<ConnectionClosed>(), Transport::stream);
}

void World::drop(const Flight& flight, std::string_view reason) {
  std::vector<TraceField> fields = flight_fields(flight);
  fields.push_back({"reason", std::string(reason)});
  trace_world(trace_kind::kDrop, nodes_[flight.from_node].name, std::move(fields));
}

void World::trace_process(ProcessId process, std::string_view kind,
                          std::initializer_list<TraceField> fields) {
  const ProcessSlot& slot = processes_[process];
  trace_.record(TraceEvent{now(), nodes_[slot.node].name, slot.name, kind,
                           std::span<const TraceField>(fields.begin(), fields.size())});
}

void World::trace_world(std::string_view kind, std::string_view node,
                        std::vector<TraceField> fields) {
  trace_.record(TraceEvent{now(), node, {}, kind, fields});
}

}  // namespace hasim
