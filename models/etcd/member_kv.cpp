// The etcd member's adapter for its KV server (models/etcd/kv_server.hpp): the server is
// pure; this turns the member's events into its calls and its outbox into sends and timers,
// as etcd's raftNode hands the server read states (readStateC) and leader changes
// (etcdserver/raft.go start: rd.SoftState, rd.ReadStates).
#include "models/etcd/member.hpp"
#include "sim/assert.hpp"

namespace hasim::etcd {

void EtcdMember::on_kv_request(Env& env, ProcessId from, const KvRequest& request) {
  HASIM_ASSERT(node_ != nullptr);
  kv_.on_request(env.monotonic_now(), from, request, kvOut_);
}

bool EtcdMember::on_kv_message(ProcessId from, const MessageBody& message) {
  HASIM_ASSERT(node_ != nullptr);
  if (const auto* watch = message_as<KvWatch>(message)) {
    kv_.on_watch(from, *watch, kvOut_);
    return true;
  }
  if (const auto* status = message_as<KvStatusRequest>(message)) {
    kv_.on_status(from, *status, kvOut_);
    return true;
  }
  // A client's (or a peer's: rafthttp redials, raft needs nothing) connection closed.
  if (message_as<ConnectionClosed>(message) != nullptr) {
    kv_.on_client_gone(from);
    return false;
  }
  return false;
}

void EtcdMember::on_kv_timer(Env&, std::uint64_t tag) {
  kv_.on_timer(kvTimers_.local(tag), kvOut_);
}

void EtcdMember::kv_ready(Env& env, const raft::Ready& rd) {
  // The leader first: a read state and a leader change in one Ready are seen in that order
  // by etcd's loops only by chance; raft gives read states only under a known leader.
  if (rd.softState) kv_.on_leader(env.monotonic_now(), rd.softState->lead, kvOut_);
  if (!rd.readStates.empty()) kv_.on_read_states(rd.readStates, kvOut_);
}

void EtcdMember::flush_kv(Env& env) {
  // Bounded by what one event can produce: the server's own queue bounds.
  for (auto& [to, response] : kvOut_.replies) env.send(to, std::move(response));
  for (auto& [to, response] : kvOut_.events) env.send(to, std::move(response));
  for (const auto& [after, local] : kvOut_.timers) env.set_timer(after, kvTimers_.tag(local));
  kvOut_.replies.clear();
  kvOut_.events.clear();
  kvOut_.timers.clear();
}

}  // namespace hasim::etcd
