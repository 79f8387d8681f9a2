#pragma once
// The client history of a run, for `hasim run SCENARIO --history FILE` (issue 13 part 5):
// every etcd call the kube-apiservers made, as EtcdCalls converts them (etcd_calls.hpp), so
// the file has the operation ids and process numbers `no-lost-write`'s verdict names. Unlike
// the property it keeps every operation: the file is the whole history.
#include "properties/etcd_store/etcd_calls.hpp"
#include "properties/linearizability/history.hpp"

namespace hasim {

class HistoryRecorder final : public TraceObserver, private EtcdCallSink {
 public:
  bool wants(std::string_view kind) const override { return EtcdCalls::reads(kind); }
  void on_event(const TraceEvent& event) override;
  // The run is over: calls still open end unknown. The history, ids equal to indexes.
  linearizability::History finish();

 private:
  void invoked(const linearizability::Operation& op, const CallOrigin& origin) override;
  void ended(const linearizability::Operation& op, const CallOrigin& origin, std::string_view error,
             std::string_view why) override;

  EtcdCalls calls_;
  linearizability::History history_;
};

}  // namespace hasim
