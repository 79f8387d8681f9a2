// The sidecar's etcd calls (clientv3 through a new client per attempt): one request, its
// answer or EtcdTimeout, and the retry.OnError loops around them (sidecar_member_ops.hpp).
#include <utility>

#include "models/druid/backup_restore.hpp"
#include "models/etcd/kv_api.hpp"
#include "sim/assert.hpp"

namespace hasim::druid {

std::shared_ptr<MessageBody> status_request(std::uint64_t id) {
  auto request = std::make_shared<etcd::KvStatusRequest>();
  request->client_id = id;
  return request;
}

std::uint64_t local_tag(std::uint64_t kind, std::uint64_t seq) {
  HASIM_ASSERT(seq < (std::uint64_t{1} << kTagKindShift));
  return (kind << kTagKindShift) | seq;
}

namespace {

// wait.Jitter: the duration plus up to jitter_percent of it, drawn uniformly.
Duration jittered(Env& env, Duration d, int jitter_percent) {
  if (jitter_percent <= 0 || d.ns <= 0) return d;
  const auto extra = static_cast<std::int64_t>(env.rng().unit() * static_cast<double>(d.ns) *
                                               jitter_percent / 100.0);
  return Duration{d.ns + extra};
}

}  // namespace

void BackupRestore::call(Env& env, const MakeRequest& make, std::optional<ProcessId> to, Done done,
                         Duration timeout) {
  HASIM_ASSERT(make != nullptr && done != nullptr);
  const std::uint64_t id = nextCall_++;
  if (!to.has_value()) {
    // No ready endpoint behind the Service: the dial fails at once.
    Answer failed;
    failed.error = "connection refused";
    return done(env, failed);
  }
  const TimerId timer = env.set_timer(timeout, tags_.tag(local_tag(kCallTimeout, id)));
  calls_.emplace(id, Pending{std::move(done), timer});
  env.send(*to, make(id));
}

void BackupRestore::answer(Env& env, std::uint64_t id, const Answer& result) {
  const auto it = calls_.find(id);
  if (it == calls_.end()) return;  // timed out already
  Done done = std::move(it->second.done);
  env.cancel_timer(it->second.timeout);
  calls_.erase(it);
  done(env, result);
}

void BackupRestore::call_with_retry(Env& env, MakeRequest request, bool local,
                                    sidecar::Backoff backoff, Done done) {
  const std::optional<ProcessId> to =
      local ? std::optional<ProcessId>(config_.pod->etcd) : pick_endpoint(env);
  auto retry = [this, request, local, backoff, done](Env& e, const Answer& result) {
    if (result.ok) return done(e, result);
    const sidecar::BackoffStep step = sidecar::after_failed_attempt(backoff);
    if (!step.retry && step.sleep.ns == 0) return done(e, result);
    const Duration sleep = jittered(e, step.sleep, backoff.jitter_percent);
    if (step.retry) {
      return sleep_then(e, sleep, [this, request, local, next = step.next, done](Env& e2) {
        call_with_retry(e2, request, local, next, done);
      });
    }
    sleep_then(e, sleep, [done, result](Env& e2) { done(e2, result); });
  };
  call(env, request, to, std::move(retry));
}

// The client Service: kube-proxy picks one ready endpoint for each new connection.
std::optional<ProcessId> BackupRestore::pick_endpoint(Env& env) const {
  const std::vector<ProcessId> endpoints = config_.serviceEndpoints();
  if (endpoints.empty()) return std::nullopt;
  return endpoints[env.rng().below(endpoints.size())];
}

void BackupRestore::sleep_then(Env& env, Duration sleep, std::function<void(Env&)> then) {
  HASIM_ASSERT(sleep.ns >= 0 && then != nullptr);
  const std::uint64_t seq = nextSleep_++;
  sleeps_.emplace(seq, std::move(then));
  env.set_timer(sleep, tags_.tag(local_tag(kRetry, seq)));
}

}  // namespace hasim::druid
