// The etcd member's adapter for its KV server (models/etcd/kv_server.hpp): the server is
// pure; this turns the member's events into its calls and its outbox into sends and timers,
// as etcd's raftNode hands the server read states (readStateC) and leader changes
// (etcdserver/raft.go start: rd.SoftState, rd.ReadStates).
#include "models/etcd/member.hpp"
#include "models/etcd/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim::etcd {

void EtcdMember::on_kv_request(Env& env, ProcessId from, const KvRequest& request) {
  HASIM_ASSERT(node_ != nullptr);
  kv_.on_request(env.monotonic_now(), from, request, kvOut_);
  trace_kv_events(env);
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

void EtcdMember::on_kv_timer(Env& env, std::uint64_t tag) {
  kv_.on_timer(kvTimers_.local(tag), kvOut_);
  trace_kv_events(env);  // a defragmentation's end before the entries it held are applied
}

// backend.go defrag's "defragmenting" and "finished defragmenting directory" log lines, and
// the alarm list's changes (server/etcdserver/apply: "alarm raised" / "alarm disarmed").
void EtcdMember::trace_kv_events(Env& env) {
  const auto id = static_cast<std::int64_t>(id_);
  for (const DefragEvent& d : kvOut_.defrags) {
    const std::int64_t ms = d.took.ns / 1'000'000;
    if (d.finished) {
      env.trace(trace_kind::kDefragEnd, {{"member", id},
                                         {"db-size", d.db_size},
                                         {"db-size-in-use", d.db_size_in_use},
                                         {"took-ms", ms},
                                         {"held-entries", static_cast<std::int64_t>(stalledEntries_)}});
    } else {
      env.trace(trace_kind::kDefragStart, {{"member", id},
                                           {"db-size", d.db_size},
                                           {"db-size-in-use", d.db_size_in_use},
                                           {"expect-ms", ms}});
    }
  }
  for (const AlarmEvent& a : kvOut_.alarms) {
    env.trace(trace_kind::kAlarm, {{"member", id},
                                   {"action", std::string(a.activated ? "raised" : "disarmed")},
                                   {"alarm", std::string("NOSPACE")},
                                   {"alarm-member", static_cast<std::int64_t>(a.member_id)}});
  }
  kvOut_.defrags.clear();
  kvOut_.alarms.clear();
}

void EtcdMember::resume_applies(Env& env) {
  HASIM_ASSERT(phase_ == Phase::idle && !kv_.defragmenting());
  // Bounded by the entries held (kMaxStalledEntries): each pass takes one batch.
  while (!stalled_.empty()) {
    StalledApply next = std::move(stalled_.front());
    stalled_.pop_front();
    if (next.snapshot) {
      install(*next.snapshot);
      if (!published_) publish();  // as in finish_ready
    }
    HASIM_ASSERT(stalledEntries_ >= next.entries.size());
    stalledEntries_ -= next.entries.size();
    apply(env, next.entries);
  }
  HASIM_ASSERT(stalledEntries_ == 0);
}

void EtcdMember::kv_ready(Env& env, const raft::Ready& rd) {
  // The leader first: a read state and a leader change in one Ready are seen in that order
  // by etcd's loops only by chance; raft gives read states only under a known leader.
  if (rd.softState) kv_.on_leader(env.monotonic_now(), rd.softState->lead, kvOut_);
  if (!rd.readStates.empty()) kv_.on_read_states(rd.readStates, kvOut_);
}

void EtcdMember::flush_kv(Env& env) {
  if (kvOut_.empty()) return;  // as after every event of a run without KV clients
  trace_kv_events(env);
  // Bounded by what one event can produce: the server's own queue bounds.
  for (auto& [to, response] : kvOut_.replies) env.send(to, std::move(response));
  for (auto& [to, response] : kvOut_.events) env.send(to, std::move(response));
  for (const auto& [after, local] : kvOut_.timers) env.set_timer(after, kvTimers_.tag(local));
  kvOut_.replies.clear();
  kvOut_.events.clear();
  kvOut_.timers.clear();
}

}  // namespace hasim::etcd
