#pragma once
// kube-apiserver's etcd calls as a client history (properties/linearizability/history.hpp):
// reads the two trace events its etcd client emits per gRPC call on one key (etcd-call,
// etcd-call-end: models/apiserver/trace_kinds.hpp) and the kernel's process events, and
// hands each call to a sink as an Operation when it is invoked and again when it ends. One
// converter serves `no-lost-write` (which feeds a LiveFeed), quorum-recovery (which counts
// acknowledged writes) and `hasim run --history` (which keeps them all), so the operation
// ids and history process numbers in a verdict are those of the exported file.
//
// Calls are keyed by (client, incarnation, call): call ids restart with each incarnation of
// the client's process (a "start" event). A crash or exit of the client's process, or its
// node going down, ends each of its calls still open with an unknown outcome: the request
// may already have been proposed and may still commit (Jepsen's :info; etcd's robustness
// tests treat a killed client's requests the same way, tests/robustness/model).
//
// History process numbers (Porcupine's ClientId, Jepsen's :process). Jepsen requires that a
// process has at most one operation open at a time and that a process whose operation
// ended :info never invokes again (jepsen.generator: a crashed worker gets a fresh process
// id). An apiserver has many calls open at once, so each of its calls takes a number of its
// own: the lowest number that client used before whose last operation ended ok or fail, or
// else the next number never used. A number whose operation ended unknown is retired for
// good. Numbers are therefore never shared between clients, never open twice at once, and
// deterministic (the events' order decides them). Memory: the open calls, and per client
// the numbers idle now (at most its peak of calls open at once).
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "properties/linearizability/history.hpp"
#include "sim/trace.hpp"

namespace hasim {

// Who made an operation, for verdicts: "cp-1/kube-apiserver call 17 (incarnation 2)".
struct CallOrigin {
  std::string client;
  std::int64_t incarnation = 1;
  std::int64_t call = 0;
};
std::string describe_origin(const CallOrigin& origin);

class EtcdCallSink {
 public:
  virtual ~EtcdCallSink() = default;
  // A call was invoked: `op` has its id, process, key, kind, value, expected_mod_revision and
  // invoke_ns (outcome unknown, never returned, until it ends).
  virtual void invoked(const linearizability::Operation& op, const CallOrigin& origin) = 0;
  // It ended: `op` complete (outcome, output when ok, return_ns unless unknown). `error` is
  // etcd's error text when it was not ok; `why` says what ended it when the client did not
  // ("cp-1/kube-apiserver crashed (node-down)"), else empty.
  virtual void ended(const linearizability::Operation& op, const CallOrigin& origin,
                     std::string_view error, std::string_view why) = 0;
};

class EtcdCalls {
 public:
  // The kinds observe() reads (for TraceObserver::wants).
  static bool reads(std::string_view kind);
  void observe(const TraceEvent& event, EtcdCallSink& sink);
  // The run is over: calls still open never returned (unknown).
  void finish(EtcdCallSink& sink);

  std::size_t open() const { return open_.size(); }
  // Trace events that broke the client's contract (an end without its call, a call id used
  // twice in one incarnation, an unknown op or outcome), described; at most kMaxProblems.
  const std::vector<std::string>& problems() const { return problems_; }
  static constexpr std::size_t kMaxProblems = 16;

 private:
  struct Open {
    linearizability::Operation op;
    CallOrigin origin;
  };
  struct Client {
    std::int64_t incarnation = 1;
    std::set<std::uint32_t> idle;  // history process numbers free for reuse
  };
  using CallKey = std::pair<std::string, std::int64_t>;  // client, call (this incarnation)

  void on_call(const TraceEvent& event, EtcdCallSink& sink);
  void on_end(const TraceEvent& event, EtcdCallSink& sink);
  // Ends every open call of one client process, or of every client on a node (`node`).
  void abandon(std::string_view client_or_node, bool node, TrueTime at, std::string_view why,
               EtcdCallSink& sink);
  void close(std::map<CallKey, Open>::iterator it, std::string_view error, std::string_view why,
             EtcdCallSink& sink);
  void problem(const TraceEvent& event, std::string text);

  std::map<CallKey, Open> open_;
  std::map<std::string, Client, std::less<>> clients_;
  std::uint32_t next_process_ = 0;
  linearizability::OperationId next_id_ = 0;
  std::vector<std::string> problems_;
};

}  // namespace hasim
