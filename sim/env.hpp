#pragma once
// The only header a model includes from sim/. A model is a sans-IO state machine
// (DESIGN.md "The one rule"): it never reads a real clock, sleeps, does I/O or owns a
// thread. It reacts to inputs (start, message, timer) through the Process interface and acts
// only through the Env it is handed: its node's local clock, its random stream, send, timers,
// durable storage and trace. The same model runs under a hand-written test driver, the
// simulator (sim/world.hpp) or, in principle, a real-time driver.
//
// Crash semantics: a crash destroys the Process object (all volatile state is lost, its
// timers are cancelled and undelivered input is dropped); a restart constructs a fresh one
// from its factory, which sees only what it stored in its DurableStore.
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <type_traits>
#include <typeinfo>
#include <string>
#include <string_view>

#include <vector>

#include "sim/assert.hpp"
#include "sim/disk.hpp"
#include "sim/rng.hpp"
#include "sim/tag_space.hpp"
#include "sim/time.hpp"
#include "sim/trace.hpp"

namespace hasim {

using ProcessId = std::uint32_t;
using NodeId = std::uint32_t;
using TimerId = std::uint64_t;
using IoId = std::uint64_t;

// What a process is told when one of its disk operations completes (sim/disk.hpp).
struct IoCompletion {
  IoId id = 0;
  IoOp op = IoOp::append;
  IoStatus status = IoStatus::ok;
  std::uint64_t tag = 0;  // as given when issued
};

// A message body. Models derive their own message types; `type()` names it in traces.
struct MessageBody {
  virtual ~MessageBody() = default;
  virtual std::string_view type() const = 0;
};
// Shared and immutable, so the network can duplicate a datagram without copying it.
using Message = std::shared_ptr<const MessageBody>;

// The body as T if it is one, else nullptr. Message types are final, so the type_info
// decides (a dynamic_cast walks the type's bases: 4% of a control-plane trial, where every
// process tells its message kinds apart on each delivery). Its address, not typeid's ==:
// hasim_core is a static library, so each message type has one type_info in an executable,
// while == also compares the mangled names with strcmp whenever the types differ, the usual
// answer when a process asks for its kinds in turn (1% of a coordinated trial, stop 42).
// Messages are made in one translation unit and told apart in another all over the tests.
template <typename T>
const T* message_as(const MessageBody& body) {
  static_assert(std::is_final_v<T> && std::is_base_of_v<MessageBody, T>);
  return &typeid(body) == &typeid(T) ? static_cast<const T*>(&body) : nullptr;
}

// What a process receives from the peer of a stream connection whose process stopped on a
// live node: its OS closes the sockets (FIN/RST), one link latency later. A node going down or
// a partition sends nothing; the peer notices only through its own timeouts.
struct ConnectionClosed final : MessageBody {
  std::string_view type() const override { return "connection-closed"; }
};

// How a message travels. Stream: FIFO per (sender, receiver) connection, never lost or
// duplicated alone, but everything in flight is lost when the connection drops (crash,
// partition, drop-connections), as with TCP. Datagram: independent latency, loss and
// duplication, as with UDP.
enum class Transport : std::uint8_t { stream, datagram };

// Storage that survives a crash; a disk-loss fault wipes it. Ordered map so iteration is
// deterministic.
struct DurableStore {
  std::map<std::string, std::string> entries;
  std::uint64_t wipes = 0;  // how many disk losses this store has seen
};

class Env {
 public:
  virtual ~Env() = default;
  virtual ProcessId self() const = 0;
  // Look up a process by "node/name"; HASIM_ASSERTs that it exists (wiring is static).
  virtual ProcessId process(std::string_view qualified_name) const = 0;
  // Local wall clock (affected by offset, rate and steps).
  virtual LocalTime now() const = 0;
  // Local monotonic clock (affected by rate only), as Go's time.Since uses.
  virtual LocalTime monotonic_now() const = 0;
  // This process's random stream ("node/process"), forked from the run's root seed.
  virtual Rng& rng() = 0;
  virtual void send(ProcessId to, Message message, Transport transport = Transport::stream) = 0;
  // A fresh space of timer tags for one timer owner in this process (see sim/tag_space.hpp),
  // named for what it serves; once per name and incarnation.
  virtual TagSpace tag_space(std::string_view name) = 0;
  // Fires after `after` of local monotonic time; `tag` is returned to on_timer.
  virtual TimerId set_timer(Duration after, std::uint64_t tag) = 0;
  // True if the timer was pending.
  virtual bool cancel_timer(TimerId timer) = 0;
  virtual DurableStore& durable() = 0;
  // The volumes mounted into this process (World::add_volume, World::share_volume), by name;
  // sim/disk.hpp gives the semantics. append and fsync complete later, through on_io, with
  // `tag`; they HASIM_ASSERT that the volume is mounted. read gives what the page cache holds
  // now (after a restart: what survived); remove deletes a file at once. An Env that mounts
  // nothing (a unit test's) keeps these defaults.
  virtual IoId append(std::string_view volume, std::string_view file, std::string record,
                      std::uint64_t tag) {
    (void)volume, (void)file, (void)record, (void)tag;
    HASIM_ASSERT(false && "this Env mounts no volumes");
    return 0;
  }
  virtual IoId fsync(std::string_view volume, std::string_view file, std::uint64_t tag) {
    (void)volume, (void)file, (void)tag;
    HASIM_ASSERT(false && "this Env mounts no volumes");
    return 0;
  }
  virtual const std::vector<std::string>& read(std::string_view volume,
                                               std::string_view file) const {
    (void)volume, (void)file;
    HASIM_ASSERT(false && "this Env mounts no volumes");
    static const std::vector<std::string> none;
    return none;
  }
  virtual void remove(std::string_view volume, std::string_view file) {
    (void)volume, (void)file;
    HASIM_ASSERT(false && "this Env mounts no volumes");
  }
  // The names of the files the volume holds now, in name order: what read() sees (the page
  // cache), so a file whose every record a power loss took is not listed. A sidecar wipes a
  // data directory by removing each, and tells an empty one from a populated one.
  virtual std::vector<std::string> files(std::string_view volume) const {
    (void)volume;
    HASIM_ASSERT(false && "this Env mounts no volumes");
    return {};
  }
  virtual void trace(std::string_view kind, std::initializer_list<TraceField> fields) = 0;
  // Whether an event of `kind` is read by anything (TraceWriter::wants): a model may skip
  // building a costly one that nothing reads. Never decides anything but the building.
  virtual bool tracing(std::string_view kind) const {
    (void)kind;
    return true;
  }
  // The process ends itself (os.Exit): once the current callback returns its volatile state
  // is destroyed exactly as by a crash, and whoever supervises it (a kubelet) is told.
  virtual void exit(int code) = 0;
};

class Process {
 public:
  virtual ~Process() = default;
  virtual void on_start(Env& env) = 0;
  virtual void on_message(Env& env, ProcessId from, const Message& message) = 0;
  virtual void on_timer(Env& env, TimerId timer, std::uint64_t tag) = 0;
  // SIGTERM: a graceful stop was requested. The default exits at once; a model that shuts
  // down gracefully (cancels its context, releases a lease) overrides it and exits later.
  virtual void on_terminate(Env& env) { env.exit(0); }
  // A disk operation this process issued completed. Only a process that issues them gets
  // one; an operation whose issuer stopped before it completed is dropped, never applied.
  virtual void on_io(Env& env, const IoCompletion& io) {
    (void)env, (void)io;
    HASIM_ASSERT(false && "a process that issues disk operations must handle on_io");
  }
};

}  // namespace hasim
