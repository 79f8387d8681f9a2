// The Maintenance service's Defragment on the KV server (kv_server.hpp): etcd's
// maintenanceServer.Defragment (server/etcdserver/api/v3rpc/maintenance.go) calls
// backend.Defrag (server/storage/backend/backend.go defrag), which takes the batchTx lock,
// b.mu and the readTx lock, copies every bucket's keys into a temporary bbolt file
// (defragdb), renames it over the old one and reopens it, then answers. A second Defragment
// waits for the batchTx lock, then copies the already compact file again.
#include "models/etcd/kv_server.hpp"
#include "sim/assert.hpp"

namespace hasim::etcd {

Duration defrag_duration(std::int64_t db_size_in_use, std::int64_t bytes_per_second) {
  HASIM_ASSERT(db_size_in_use >= 0 && bytes_per_second > 0);
  // Integer nanoseconds, exact without 128 bits: whole seconds, then the remainder's
  // milli-, micro- and nanoseconds (each step's remainder * 1000 stays below 2^50).
  const std::int64_t seconds_part = db_size_in_use / bytes_per_second;
  HASIM_ASSERT(seconds_part < 9'000'000'000);  // fits in int64 nanoseconds
  std::int64_t ns = seconds_part * 1'000'000'000;
  std::int64_t rest = db_size_in_use % bytes_per_second;
  for (std::int64_t unit = 1'000'000; unit >= 1; unit /= 1'000) {
    rest *= 1'000;
    ns += rest / bytes_per_second * unit;
    rest %= bytes_per_second;
  }
  const Duration took{kDefragFixedCost.ns + ns};
  HASIM_ASSERT(took >= kDefragFixedCost);
  return took;
}

void KvServer::defragment(ProcessId from, const KvRequest& request, KvOutbox& out) {
  HASIM_ASSERT(request.op == KvOp::defragment);
  if (defrags_.size() >= kMaxDefrags) {  // a bound of the model, not etcd's
    refuse(out, from, request, kv_error::kTooManyRequests);
    return;
  }
  defrags_.push_back(Defrag{from, request.client_id});
  if (defrags_.size() == 1) start_defrag(out);
}

void KvServer::start_defrag(KvOutbox& out) {
  HASIM_ASSERT(defragmenting());
  defragTook_ = defrag_duration(store_.db_size_in_use(), config_.defrag_bytes_per_second);
  ++defragSeq_;
  out.timers.emplace_back(defragTook_, (kDefragDone << kTimerKindShift) | defragSeq_);
  out.defrags.push_back(
      DefragEvent{false, store_.db_size(), store_.db_size_in_use(), defragTook_});
}

void KvServer::finish_defrag(KvOutbox& out) {
  HASIM_ASSERT(defragmenting());
  store_.defrag();  // the new file holds what was in use
  HASIM_ASSERT(store_.db_size() == store_.db_size_in_use());
  out.defrags.push_back(
      DefragEvent{true, store_.db_size(), store_.db_size_in_use(), defragTook_});
  const Defrag done = defrags_.front();
  defrags_.pop_front();
  reply(out, done.client, response(done.client_id, KvOp::defragment));
  if (defragmenting()) {  // the next caller had been waiting for the batchTx lock
    start_defrag(out);
    return;
  }
  // The locks are released: the reads that waited run, the watch loops go on.
  std::vector<Read> stalled = std::move(stalledReads_);
  stalledReads_.clear();
  for (const Read& r : stalled) serve(r, out);
  HASIM_ASSERT(stalledReads_.empty());
  std::vector<std::pair<ProcessId, std::uint64_t>> statuses = std::move(stalledStatus_);
  stalledStatus_.clear();
  for (const auto& [client, client_id] : statuses) {
    KvStatusRequest request;
    request.client_id = client_id;
    on_status(client, request, out);
  }
  std::vector<std::pair<ProcessId, std::uint64_t>> snapshots = std::move(stalledSnapshots_);
  stalledSnapshots_.clear();
  for (const auto& [client, client_id] : snapshots) {
    KvRequest request;
    request.op = KvOp::snapshot;
    request.client_id = client_id;
    snapshot(client, request, out);
  }
  arm_watch_timers(out);
}

// Maintenance Snapshot (v3rpc/maintenance.go Snapshot): backend.Snapshot() commits the
// batchTx under its lock (so it waits behind a defragmentation) and streams the bbolt file
// of this member, whatever its role: etcdctl snapshot save asks one endpoint. The stream's
// transfer time is not modelled (the reply is one message).
void KvServer::snapshot(ProcessId from, const KvRequest& request, KvOutbox& out) {
  HASIM_ASSERT(request.op == KvOp::snapshot);
  if (defragmenting()) {
    if (stalledSnapshots_.size() < kMaxWaits) stalledSnapshots_.emplace_back(from, request.client_id);
    return;
  }
  auto r = response(request.client_id, KvOp::snapshot);
  r->snapshot = snapshot_data();
  r->snapshot_size = store_.db_size();
  HASIM_ASSERT(!r->snapshot.empty() && r->snapshot_size > 0);
  reply(out, from, std::move(r));
}

}  // namespace hasim::etcd
