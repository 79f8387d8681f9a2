#include "properties/etcd_store/history_recorder.hpp"

#include "sim/assert.hpp"

namespace hasim {

void HistoryRecorder::on_event(const TraceEvent& event) {
  if (EtcdCalls::reads(event.kind)) calls_.observe(event, *this);
}

linearizability::History HistoryRecorder::finish() {
  calls_.finish(*this);
  HASIM_ASSERT(calls_.open() == 0);
  return std::move(history_);
}

void HistoryRecorder::invoked(const linearizability::Operation& op, const CallOrigin&) {
  // EtcdCalls numbers operations in invocation order, from 0.
  HASIM_ASSERT(op.id == history_.operations.size());
  history_.operations.push_back(op);
}

void HistoryRecorder::ended(const linearizability::Operation& op, const CallOrigin&,
                            std::string_view, std::string_view) {
  HASIM_ASSERT(op.id < history_.operations.size());
  history_.operations[op.id] = op;
}

}  // namespace hasim
