#pragma once
// kube-apiserver, as the control-plane components see it: Get / List / Create / Update /
// Delete / Watch against a Store, optimistic concurrency on resourceVersion (409 Conflict),
// a server-side request timeout (--request-timeout, 60s by default) and a watch cache that
// forwards store events to watchers after a per-instance lag. Faults that make it slow, hang
// requests or refuse them (503) live in ApiServerConditions, which the scenario builder
// toggles; they survive a restart of the process, as a sick host or etcd would.
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/apiserver/messages.hpp"
#include "models/apiserver/store.hpp"
#include "sim/env.hpp"

namespace hasim::api {

struct ApiServerConditions {
  Duration extra_latency{};   // "apiserver-slow": added before each request is executed
  bool unavailable = false;   // "apiserver-unavailable": every request gets 503 at once
  bool hang = false;          // "apiserver-hang": matching requests get no answer ...
  std::set<Verb> hang_verbs;  // ... (all verbs if empty) until the request timeout: 504
  bool hangs(Verb verb) const { return hang && (hang_verbs.empty() || hang_verbs.contains(verb)); }
};

// A controller kube-apiserver runs in-process from a post-start hook (the Coordinated Leader
// Election controller), talking to its own apiserver through a loopback client. The apiserver
// hands it the answers and watch events addressed to this process, and the timers of the tag
// spaces it allocated (every space the apiserver did not).
class ApiServerHook {
 public:
  virtual ~ApiServerHook() = default;
  virtual void on_start(Env& env) = 0;
  virtual void on_message(Env& env, const Message& message) = 0;
  virtual void on_timer(Env& env, std::uint64_t tag) = 0;
  // SIGTERM: stop (e.g. release a lease), then call `stopped`.
  virtual void on_terminate(Env& env, std::function<void(Env&)> stopped) = 0;
};

struct ApiServerConfig {
  std::shared_ptr<Store> store;  // shared by every apiserver (the ideal store), or make_store
  std::shared_ptr<const ApiServerConditions> conditions;
  Duration request_timeout = seconds(60);
  // Sampled per request / per batch of watch events from the process's random stream.
  std::function<Duration(Rng&)> processing_latency;
  std::function<Duration(Rng&)> watch_lag;
  std::string version;    // binary version, traced at start
  std::string emulation;  // --emulated-version (the binary version if not set)
  std::function<std::unique_ptr<ApiServerHook>()> hook;  // optional
  // A store made for each process incarnation, inside it (a client of etcd members:
  // raft_store.hpp); when set, `store` is ignored.
  std::function<std::shared_ptr<Store>()> make_store;
};

class ApiServer final : public Process {
 public:
  explicit ApiServer(ApiServerConfig config);
  void on_start(Env& env) override;
  void on_message(Env& env, ProcessId from, const Message& message) override;
  void on_timer(Env& env, TimerId timer, std::uint64_t tag) override;
  void on_terminate(Env& env) override;

 private:
  struct Pending {
    ProcessId client = 0;
    std::shared_ptr<const Request> request;
    std::optional<TimerId> timeout;  // unset while the request is being executed at once
  };
  struct Watcher {
    ProcessId client = 0;
    std::uint64_t watch = 0;  // the client's watch request id
    Kind kind = Kind::lease;
    std::string namespace_;
    std::string name;         // empty: every object of the kind
    std::uint64_t after = 0;  // last revision sent
    std::string user;         // the client's identity, for traces
  };
  struct Outgoing {
    LocalTime due;  // local monotonic time the watch cache releases it
    StoreEvent event;
  };

  void receive(Env& env, ProcessId client, std::shared_ptr<const Request> request);
  void execute_at_once(Env& env, Pending pending, std::uint64_t key);
  void execute(Env& env, std::uint64_t key);  // a request pending_ holds
  // The server-side timeout filter's timer for pending request `key`.
  void arm_timeout(Env& env, Pending& pending, std::uint64_t key);
  // The store operation for `request` (any verb but watch).
  void dispatch(Env& env, const Request& request, Store::Done done);
  // Removes a request from pending_, cancelling its timeout.
  Pending take(Env& env, std::map<std::uint64_t, Pending>::iterator it);
  // Answers a request (no longer in pending_) with the store's result.
  void respond(Env& env, const Pending& pending, const StoreResult& result);
  void reply(Env& env, ProcessId client, std::uint64_t id, Status status, ObjectPtr object = {},
             std::vector<ObjectPtr> items = {}, std::uint64_t revision = 0);
  void watch(Env& env, const Pending& pending);  // a request no longer in pending_
  void pull_events(Env& env);
  void store_moved(Env& env);
  void forward_due(Env& env);
  // Sends `event` on `watcher` if it matches and is newer than what it has seen.
  void send_event(Env& env, Watcher& watcher, const StoreEvent& event);

  ApiServerConfig config_;
  std::uint64_t next_key_ = 1;
  std::map<std::uint64_t, Pending> pending_;  // by local key
  std::vector<Watcher> watchers_;
  bool subscribed_ = false;
  std::uint64_t seen_revision_ = 0;
  std::deque<Outgoing> outgoing_;
  // pull_events' buffer, kept between calls for its capacity: every store commit wakes every
  // apiserver to pull.
  std::vector<StoreEvent> pulled_;
  std::optional<TimerId> forward_timer_;
  std::unique_ptr<ApiServerHook> hook_;
  // Timer tag spaces: a pending request's execution and timeout (by its local key), and the
  // watch cache's forwarding.
  TagSpace execute_tags_;
  TagSpace timeout_tags_;
  TagSpace forward_tags_;
};

}  // namespace hasim::api
