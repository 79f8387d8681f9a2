#pragma once
// The etcd interface kube-apiserver stores objects through. The apiserver never assumes
// which store is behind it: operations complete through a callback, at once for the ideal
// store, after raft replication for a raft-backed one, or never (the apiserver's own request
// timeout then answers the client), as when etcd is unreachable.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/apiserver/messages.hpp"
#include "models/apiserver/object.hpp"
#include "sim/env.hpp"

namespace hasim::api {

struct StoreResult {
  Status status = Status::ok;  // ok, not_found, conflict or already_exists
  ObjectPtr object;
  std::vector<ObjectPtr> items;
  std::uint64_t revision = 0;  // the store revision the answer reflects
};

// One committed change, in revision order (an etcd watch event).
struct StoreEvent {
  std::uint64_t revision = 0;
  WatchEventType type = WatchEventType::added;
  ObjectPtr object;  // for deletions, the last state
};

class Store {
 public:
  using Done = std::function<void(const StoreResult&)>;
  virtual ~Store() = default;
  // `caller` is the apiserver process; `done` runs inside that process's callback.
  virtual void get(ProcessId caller, const ObjectKey& key, Done done) = 0;
  virtual void list(ProcessId caller, Kind kind, const std::string& namespace_, Done done) = 0;
  // Fails with already_exists if the key exists. Assigns resourceVersion.
  virtual void create(ProcessId caller, Object object, Done done) = 0;
  // Compare-and-swap: conflict unless object.resourceVersion equals the stored one; with
  // resourceVersion 0, an unconditional update that creates a missing object.
  virtual void update(ProcessId caller, Object object, Done done) = 0;
  virtual void remove(ProcessId caller, const ObjectKey& key, Done done) = 0;
  // The apiserver's way in: create (stamped with `created`) and update from the request's
  // object, which the store copies. An Object is large, and a store that keeps objects shared
  // copies it once, straight into place, or not at all when the write fails at once.
  virtual void create_from(ProcessId caller, const Object& object, LocalTime created, Done done) {
    Object copy = object;
    copy.creationTimestamp = created;
    create(caller, std::move(copy), std::move(done));
  }
  virtual void update_from(ProcessId caller, const Object& object, Done done) {
    update(caller, object, std::move(done));
  }

  // Watch support. The store tells each subscriber (through Env-independent plumbing the
  // builder provides) that events exist after what it has seen; the subscriber then reads
  // them. False if `after` is older than the history kept (the watcher must re-list).
  virtual void subscribe(ProcessId subscriber) = 0;
  virtual bool events_after(std::uint64_t after, std::vector<StoreEvent>& out) const = 0;
  virtual std::uint64_t revision() const = 0;

  // A store that talks to etcd from inside the apiserver process (raft_store.hpp) is bound
  // to that process's Env when it starts and handed the messages and timers that are its
  // own (true: taken). The ideal store, outside every process, needs none of it.
  virtual void start(Env& env) { (void)env; }
  virtual bool on_message(Env& env, ProcessId from, const Message& message) {
    (void)env, (void)from, (void)message;
    return false;
  }
  virtual bool on_timer(Env& env, std::uint64_t tag) {
    (void)env, (void)tag;
    return false;
  }
  // True if every operation either calls `done` before it returns or never does, and schedules
  // nothing (no message, no timer) when it does not: then the apiserver need not arm a
  // request's timeout before executing it at once (ApiServer::receive).
  virtual bool answers_at_once() const { return false; }
  // /readyz's etcd check: why the apiserver is not ready, or nullopt.
  virtual std::optional<std::string> not_ready() const { return std::nullopt; }
};

}  // namespace hasim::api
