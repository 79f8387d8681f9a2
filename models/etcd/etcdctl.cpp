#include "models/etcd/etcdctl.hpp"

#include <cstdio>

#include "models/etcd/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim::etcd {
namespace {

// A call's client_id: the job above, the call's sequence number below.
constexpr int kJobShift = 32;
// Timer values: a deadline is the call's client_id * 2, a fill's pause job * 2 + 1.
std::uint64_t deadline_timer(std::uint64_t call) { return call << 1; }
std::uint64_t pause_timer(std::uint64_t job) { return (job << 1) | 1; }

std::string fill_key(const std::string& prefix, std::int64_t n) {
  char digits[24];
  std::snprintf(digits, sizeof digits, "%08lld", static_cast<long long>(n));
  return prefix + digits;
}

}  // namespace

std::string_view etcdctl_op_name(EtcdctlOp op) {
  switch (op) {
    case EtcdctlOp::fill:
      return "fill";
    case EtcdctlOp::compact:
      return "compact";
    case EtcdctlOp::defrag:
      return "defrag";
    case EtcdctlOp::alarm_disarm:
      return "alarm-disarm";
    case EtcdctlOp::snapshot_save:
      return "snapshot-save";
  }
  return "?";
}

void Etcdctl::on_start(Env& env) { timers_ = env.tag_space("etcdctl"); }

void Etcdctl::on_message(Env& env, ProcessId from, const Message& message) {
  if (const auto* command = message_as<EtcdctlCommand>(*message)) {
    start(env, *command);
    return;
  }
  if (message_as<ConnectionClosed>(*message) != nullptr) {
    std::vector<std::uint64_t> ended;
    for (const auto& [id, job] : jobs_) {
      if (job.endpoint == from && job.call != 0) ended.push_back(id);
    }
    for (const std::uint64_t id : ended) {
      const Job& job = jobs_.at(id);
      trace(env, job, job.call_op, kConnectionClosed);
      finish(env, id, kConnectionClosed);
    }
    return;
  }
  std::uint64_t call = 0;
  const KvResponse* kv = message_as<KvResponse>(*message);
  const KvStatusResponse* status = message_as<KvStatusResponse>(*message);
  if (kv != nullptr) call = kv->client_id;
  if (status != nullptr) call = status->client_id;
  const auto it = jobs_.find(call >> kJobShift);
  if (call == 0 || it == jobs_.end() || it->second.call != call) return;  // late: ignored
  answered(env, it->first, kv != nullptr ? kv->error : std::string(), *message);
}

void Etcdctl::on_timer(Env& env, TimerId, std::uint64_t tag) {
  const std::uint64_t local = timers_.local(tag);
  if ((local & 1) == 1) {  // a fill's pause is over
    if (jobs_.count(local >> 1) > 0) next_put(env, local >> 1);
    return;
  }
  const std::uint64_t call = local >> 1;
  const auto it = jobs_.find(call >> kJobShift);
  if (it == jobs_.end() || it->second.call != call) return;  // answered in time
  Job& job = it->second;
  job.call = 0;
  trace(env, job, job.call_op, kDeadlineExceeded);
  if (job.command.op != EtcdctlOp::fill) {
    finish(env, it->first, kDeadlineExceeded);
    return;
  }
  ++job.failed;
  next(env, it->first);
}

void Etcdctl::start(Env& env, const EtcdctlCommand& command) {
  if (jobs_.size() >= kMaxJobs) return;  // a bound of the model
  HASIM_ASSERT(command.timeout.ns > 0);
  const std::uint64_t id = ++nextJob_;
  Job& job = jobs_[id];
  job.command = command;
  job.endpoint = env.process(command.endpoint);
  switch (command.op) {
    case EtcdctlOp::fill:
      HASIM_ASSERT(command.value_size > 0 && command.bytes > 0);
      next_put(env, id);
      break;
    case EtcdctlOp::compact: {
      auto r = std::make_shared<KvStatusRequest>();
      r->client_id = (id << kJobShift) | ++nextCall_;
      send(env, id, "status", std::move(r));
      break;
    }
    case EtcdctlOp::defrag:
      send(env, id, "defrag", request(id, KvOp::defragment));
      break;
    case EtcdctlOp::alarm_disarm: {
      auto r = request(id, KvOp::alarm);
      r->alarm.action = mvcc::AlarmAction::get;
      send(env, id, "alarm-list", std::move(r));
      break;
    }
    case EtcdctlOp::snapshot_save:
      HASIM_ASSERT(command.store != nullptr && !command.name.empty());
      send(env, id, "snapshot", request(id, KvOp::snapshot));
      break;
  }
}

std::shared_ptr<KvRequest> Etcdctl::request(std::uint64_t job, KvOp op) {
  auto r = std::make_shared<KvRequest>();
  r->client_id = (job << kJobShift) | ++nextCall_;
  r->op = op;
  return r;
}

void Etcdctl::send(Env& env, std::uint64_t id, std::string op,
                   std::shared_ptr<MessageBody> request) {
  Job& job = jobs_.at(id);
  HASIM_ASSERT(job.call == 0);
  const auto* kv = dynamic_cast<const KvRequest*>(request.get());
  const auto* status = dynamic_cast<const KvStatusRequest*>(request.get());
  job.call = kv != nullptr ? kv->client_id : status->client_id;
  HASIM_ASSERT(job.call >> kJobShift == id);
  job.call_op = std::move(op);
  job.sent = env.monotonic_now();
  env.set_timer(job.command.timeout, timers_.tag(deadline_timer(job.call)));
  env.send(job.endpoint, std::move(request));
}

void Etcdctl::answered(Env& env, std::uint64_t id, const std::string& error,
                       const MessageBody& reply) {
  Job& job = jobs_.at(id);
  job.call = 0;
  const auto* kv = dynamic_cast<const KvResponse*>(&reply);
  const auto* status = dynamic_cast<const KvStatusResponse*>(&reply);
  const std::int64_t revision = kv != nullptr ? kv->header.revision : status->header.revision;
  const std::string_view result = error.empty() ? std::string_view("ok") : error;
  if (job.command.op == EtcdctlOp::snapshot_save && kv != nullptr) {
    saved(env, id, *kv);
    return;
  }
  if (job.command.op == EtcdctlOp::fill) {
    trace(env, job, "put", result, revision);
    if (error.empty()) job.written += job.command.value_size;
    else ++job.failed;
    // The shell loop's `|| break`: nothing more can be written once the space is gone.
    if (error == mvcc::grpc_error_text(mvcc::ServerError::no_space)) {
      finish(env, id, error);
      return;
    }
    next(env, id);
    return;
  }
  if (job.command.op == EtcdctlOp::compact && status != nullptr) {
    trace(env, job, "status", result, revision);
    const std::int64_t target = revision - job.command.keep;
    if (target < 1) {
      finish(env, id, "nothing to compact");
      return;
    }
    auto r = request(id, KvOp::compact);
    r->compaction.revision = target;
    job.target = target;
    send(env, id, "compact", std::move(r));
    return;
  }
  if (job.command.op == EtcdctlOp::alarm_disarm && kv != nullptr && kv->error.empty() &&
      job.call_op == "alarm-list") {
    trace(env, job, "alarm-list", result, revision);
    for (const auto& [member, type] : kv->alarms) job.to_disarm.push_back(member);
  } else {
    const std::int64_t member =
        job.call_op == "alarm-disarm" && kv != nullptr && !kv->alarms.empty()
            ? static_cast<std::int64_t>(kv->alarms.begin()->first)
            : 0;
    trace(env, job, job.call_op, result, job.call_op == "compact" ? job.target : revision,
          member);
  }
  if (!error.empty() || job.to_disarm.empty()) {
    finish(env, id, result);
    return;
  }
  // AlarmDisarm: the listed alarms, one DEACTIVATE each, in member order.
  auto r = request(id, KvOp::alarm);
  r->alarm.action = mvcc::AlarmAction::deactivate;
  r->alarm.member_id = job.to_disarm.front();
  r->alarm.alarm = mvcc::AlarmType::nospace;
  job.to_disarm.erase(job.to_disarm.begin());
  send(env, id, "alarm-disarm", std::move(r));
}

// snapshot save: the file is complete ("Snapshot saved at NAME"), or the call failed.
void Etcdctl::saved(Env& env, std::uint64_t id, const KvResponse& reply) {
  Job& job = jobs_.at(id);
  HASIM_ASSERT(job.command.op == EtcdctlOp::snapshot_save && job.command.store != nullptr);
  const std::int64_t took = (env.monotonic_now() - job.sent).ns / 1'000'000;
  if (reply.ok()) {
    HASIM_ASSERT(!reply.snapshot.empty());
    job.command.store->put(job.command.name, EtcdSnapshot{reply.snapshot, reply.header.revision,
                                                          reply.snapshot_size,
                                                          job.command.endpoint});
  }
  env.trace(trace_kind::kEtcdctl,
            {{"op", std::string("snapshot")},
             {"endpoint", job.command.endpoint},
             {"result", reply.ok() ? std::string("ok") : reply.error},
             {"took-ms", took},
             {"name", job.command.name},
             {"revision", reply.ok() ? reply.header.revision : 0},
             {"size", reply.ok() ? reply.snapshot_size : 0}});
  finish(env, id, reply.ok() ? "ok" : reply.error);
}

// A fill's next put, after its pause.
void Etcdctl::next(Env& env, std::uint64_t id) {
  const Job& job = jobs_.at(id);
  if (job.command.every.ns > 0) {
    env.set_timer(job.command.every, timers_.tag(pause_timer(id)));
  } else {
    next_put(env, id);
  }
}

void Etcdctl::next_put(Env& env, std::uint64_t id) {
  Job& job = jobs_.at(id);
  HASIM_ASSERT(job.command.op == EtcdctlOp::fill && job.call == 0);
  if (job.written >= job.command.bytes) {
    finish(env, id, "ok");
    return;
  }
  auto r = request(id, KvOp::put);
  const std::int64_t n = job.command.keys > 0 ? job.puts % job.command.keys : job.puts;
  r->put.key = fill_key(job.command.prefix, n);
  r->put.value = std::string(static_cast<std::size_t>(job.command.value_size), 'v');
  job.key = r->put.key;
  ++job.puts;
  send(env, id, "put", std::move(r));
}

void Etcdctl::finish(Env& env, std::uint64_t id, std::string_view result) {
  Job& job = jobs_.at(id);
  job.call = 0;
  if (job.command.op == EtcdctlOp::fill) {
    job.key.clear();
    trace(env, job, "fill", result);
  }
  jobs_.erase(id);
}

void Etcdctl::trace(Env& env, const Job& job, std::string_view op, std::string_view result,
                    std::int64_t revision, std::int64_t member) {
  const std::int64_t took = (env.monotonic_now() - job.sent).ns / 1'000'000;
  if (job.command.op == EtcdctlOp::snapshot_save) {  // a failed save (saved() traces the rest)
    env.trace(trace_kind::kEtcdctl, {{"op", std::string(op)},
                                     {"endpoint", job.command.endpoint},
                                     {"result", std::string(result)},
                                     {"took-ms", took},
                                     {"name", job.command.name},
                                     {"revision", revision},
                                     {"size", std::int64_t{0}}});
    return;
  }
  if (op == "fill") {  // the fill's summary
    env.trace(trace_kind::kEtcdctl, {{"op", std::string(op)},
                                     {"endpoint", job.command.endpoint},
                                     {"result", std::string(result)},
                                     {"written", job.written},
                                     {"puts", job.puts},
                                     {"failed", job.failed}});
    return;
  }
  env.trace(trace_kind::kEtcdctl, {{"op", std::string(op)},
                                   {"endpoint", job.command.endpoint},
                                   {"result", std::string(result)},
                                   {"took-ms", took},
                                   {"key", job.command.op == EtcdctlOp::fill ? job.key : ""},
                                   {"revision", revision},
                                   {"member", member}});
}

}  // namespace hasim::etcd
