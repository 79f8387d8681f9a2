#pragma once
// The client half of client-go's REST client, embedded in a component process: it sends
// requests to one kube-apiserver (the node's own, or one chosen by a load balancer), applies
// the http.Client timeout (NewFromKubeconfig sets max(1s, renewDeadline/2) for leader
// election), and cancels requests whose context ends. The owning process routes its
// messages and timers here.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/apiserver/load_balancer.hpp"
#include "models/apiserver/messages.hpp"
#include "sim/env.hpp"
#include "sim/id_table.hpp"

namespace hasim::api {

struct ApiClientConfig {
  std::vector<std::string> apiservers;  // "node/kube-apiserver" names
  // false: always the first apiserver (the node-local one). true: a load balancer picks one
  // at random per connection and keeps it until a request fails or times out, as an HTTP/2
  // connection stays on one backend (kubernetes#125530).
  bool load_balanced = false;
  Duration timeout{};   // http.Client.Timeout; zero means none
  std::string user;     // identity for traces
  TagSpace timer_tags;  // for the timeouts: tag(request id)
  // The balancer's view of its backends (load_balancer.hpp): a new connection goes to one
  // that is up (to any when none is). Null: every backend is taken as up.
  std::shared_ptr<const LoadBalancerHealth> health;
};

using ContextId = std::uint64_t;

// What a lock or controller needs from a REST client; tests implement it with scripted
// reactors, as client-go's tests use a fake clientset.
class ApiTransport {
 public:
  using Callback = std::function<void(Env&, const Response&)>;
  virtual ~ApiTransport() = default;
  // A context that cancel() can end (context.Context); requests belong to one.
  virtual ContextId new_context() = 0;
  virtual void request(Env& env, ContextId context, Verb verb, ObjectKey key, ObjectPtr object,
                       Callback done) = 0;
  // Every pending request of `context` completes now with Status::context_canceled.
  virtual void cancel(Env& env, ContextId context) = 0;
};

class ApiClient final : public ApiTransport {
 public:
  using WatchHandler = std::function<void(Env&, const WatchEvent&)>;

  explicit ApiClient(ApiClientConfig config);

  ContextId new_context() override { return next_context_++; }
  void request(Env& env, ContextId context, Verb verb, ObjectKey key, ObjectPtr object,
               Callback done) override;
  void cancel(Env& env, ContextId context) override;
  // Opens a watch on key.kind in key.namespace_ (empty: all), restricted to key.name if set
  // (a metadata.name field selector); `done` gets the initial answer, `events` every event
  // after it.
  void watch(Env& env, ContextId context, ObjectKey key, std::uint64_t resourceVersion,
             Callback done, WatchHandler events);

  // Routing from the owner: true if the input was this client's.
  bool on_message(Env& env, const Message& message);
  // The connection to `peer` closed (ConnectionClosed): if it is this client's apiserver,
  // requests in flight fail with connection_reset and every watch ends with an error event.
  void on_connection_closed(Env& env, ProcessId peer);
  bool on_timer(Env& env, std::uint64_t tag);

 private:
  struct Pending {
    ContextId context = 0;
    std::optional<TimerId> timeout;
    Callback done;
  };
  ProcessId endpoint(Env& env);
  std::size_t balance(Env& env) const;
  void complete(Env& env, std::uint64_t id, const Response& response);
  // A 410 Gone for watch `id`: it ends; once established, with an error event.
  void end_watch(Env& env, std::uint64_t id);
  // Completes every pending request (of `context`, or all) with `status`.
  void fail_pending(Env& env, std::optional<ContextId> context, Status status);
  void send(Env& env, ContextId context, std::shared_ptr<Request> request, Callback done);

  ApiClientConfig config_;
  std::uint64_t next_id_ = 1;
  ContextId next_context_ = 1;
  std::optional<std::size_t> chosen_;  // index into apiservers
  ProcessId chosen_process_ = 0;       // its process id, while chosen_ is set
  IdTable<Pending> pending_;           // by request id (next_id_ only grows: appends)
  // Open watches by request id, with the context that opened them: cancelling the context
  // ends the watch (client-go closes ResultChan), so no event reaches a handler whose owner
  // may be gone, even after the watch's first response has completed its request.
  struct Watch {
    ContextId context = 0;
    WatchHandler handler;
  };
  std::map<std::uint64_t, Watch> watches_;
};

}  // namespace hasim::api
