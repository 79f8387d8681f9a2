#pragma once
// Hand-built traces of kube-apiserver's etcd calls (models/apiserver/trace_kinds.hpp:
// etcd-call, etcd-call-end) and the kernel's process events, fed to any trace observer, for
// the no-lost-write, quorum-recovery and --history tests. Clients are "cpN/kube-apiserver".
#include <deque>
#include <string>
#include <vector>

#include "models/apiserver/trace_kinds.hpp"
#include "properties/property.hpp"
#include "sim/trace.hpp"

namespace hasim::etcd_rig {

inline TrueTime at_ms(std::int64_t ms) { return TrueTime{ms * 1'000'000}; }

class CallTrace {
 public:
  explicit CallTrace(std::vector<TraceObserver*> observers) : observers_(std::move(observers)) {}

  // Invocations. `value` is what put and cas-put write; `expected` the compare's revision.
  void call(std::int64_t ms, int client, std::int64_t id, std::string op, std::string key,
            std::string value = "", std::int64_t expected = 0) {
    feed(ms, node(client), "kube-apiserver", api::trace_kind::kEtcdCall,
         {{"client", client_name(client)},
          {"call", id},
          {"op", std::move(op)},
          {"key", std::move(key)},
          {"value", std::move(value)},
          {"expected", expected}});
  }
  // Ends. `found`/`succeeded` as 0/1, as the client writes them.
  void end(std::int64_t ms, int client, std::int64_t id, std::string outcome,
           std::int64_t revision = 0, bool succeeded = false, bool found = false,
           std::string value = "", std::int64_t mod_revision = 0, std::string error = "") {
    feed(ms, node(client), "kube-apiserver", api::trace_kind::kEtcdCallEnd,
         {{"client", client_name(client)},
          {"call", id},
          {"outcome", std::move(outcome)},
          {"succeeded", std::int64_t{succeeded ? 1 : 0}},
          {"found", std::int64_t{found ? 1 : 0}},
          {"value", std::move(value)},
          {"mod_revision", mod_revision},
          {"revision", revision},
          {"error", std::move(error)}});
  }
  // Shorthands for one whole call.
  void put(std::int64_t t0, std::int64_t t1, int client, std::int64_t id, const std::string& key,
           const std::string& value, std::int64_t revision) {
    call(t0, client, id, "put", key, value);
    end(t1, client, id, "ok", revision, true);
  }
  void get(std::int64_t t0, std::int64_t t1, int client, std::int64_t id, const std::string& key,
           const std::string& value, std::int64_t mod_revision, std::int64_t revision) {
    call(t0, client, id, "get", key);
    end(t1, client, id, "ok", revision, false, !value.empty(), value, mod_revision);
  }
  // Kernel events of a process on node cpN ("start" carries its incarnation).
  void process(std::int64_t ms, int on_node, std::string_view proc, std::string_view kind,
               std::vector<TraceField> fields = {}) {
    feed(ms, node(on_node), proc, kind, std::move(fields));
  }
  void node_event(std::int64_t ms, int on_node, std::string_view kind,
                  std::vector<TraceField> fields = {}) {
    feed(ms, node(on_node), "", kind, std::move(fields));
  }
  void finish(std::int64_t ms) {
    for (TraceObserver* o : observers_) {
      if (auto* p = dynamic_cast<Property*>(o)) p->finish(at_ms(ms));
    }
  }
  static std::string client_name(int client) { return node(client) + "/kube-apiserver"; }
  static std::string node(int i) { return "cp-" + std::to_string(i); }

  void feed(std::int64_t ms, std::string node_name, std::string_view proc, std::string_view kind,
            std::vector<TraceField> fields) {
    names_.push_back(std::move(node_name));
    events_.push_back(StoredTraceEvent{at_ms(ms), names_.back(), proc, kind, std::move(fields)});
    for (TraceObserver* o : observers_) {
      if (o->wants(kind)) o->on_event(events_.back());
    }
  }

 private:
  std::vector<TraceObserver*> observers_;
  std::deque<std::string> names_;  // the events' node names live here
  std::deque<StoredTraceEvent> events_;
};

}  // namespace hasim::etcd_rig
