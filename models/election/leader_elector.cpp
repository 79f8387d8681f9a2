#include "models/election/leader_elector.hpp"

#include "models/election/trace_kinds.hpp"
#include "sim/assert.hpp"

#include <algorithm>
#include <limits>

namespace hasim::election {
namespace {
enum TimerKind : std::uint64_t {
  kAcquireWait = 1,      // JitterUntil's wait between acquire tries
  kRenewWait = 2,        // Until's RetryPeriod between successful renew rounds
  kPollTick = 3,         // PollUntilContextTimeout's ticker
  kPollDeadline = 4,     // PollUntilContextTimeout's RenewDeadline
  kReleaseDeadline = 5,  // release()'s RenewDeadline timeout
};
}  // namespace

Duration jittered(Duration retryPeriod) {
  const double product = kJitterFactor * static_cast<double>(retryPeriod.ns);
  if (product >= 9223372036854775807.0) return Duration{std::numeric_limits<std::int64_t>::max()};
  if (product <= -9223372036854775808.0) return Duration{std::numeric_limits<std::int64_t>::min()};
  return Duration{static_cast<std::int64_t>(product)};
}

std::optional<std::string> validate(const LeaderElectionConfig& c, const std::string& identity) {
  if (c.leaseDuration <= c.renewDeadline) return "leaseDuration must be greater than renewDeadline";
  if (c.renewDeadline <= jittered(c.retryPeriod)) {
    return "renewDeadline must be greater than retryPeriod*JitterFactor";
  }
  if (c.leaseDuration.ns < 1) return "leaseDuration must be greater than zero";
  if (c.renewDeadline.ns < 1) return "renewDeadline must be greater than zero";
  if (c.retryPeriod.ns < 1) return "retryPeriod must be greater than zero";
  if (identity.empty()) return "Lock identity is empty";
  return std::nullopt;
}

LeaderElector::LeaderElector(LeaderElectionConfig config, ResourceLock& lock,
                             api::ApiTransport& transport, LeaderCallbacks callbacks,
                             TagSpace timer_tags)
    : config_(std::move(config)),
      lock_(lock),
      transport_(transport),
      callbacks_(std::move(callbacks)),
      timer_tags_(timer_tags) {
  HASIM_ASSERT(timer_tags_.valid());
  HASIM_ASSERT(callbacks_.onStartedLeading && callbacks_.onStoppedLeading);
  HASIM_ASSERT(callbacks_.onLeadingContextDone);
}

// --- observed state -------------------------------------------------------------------------

void LeaderElector::set_observed_record(Env& env, const LeaderElectionRecord& record) {
  observed_record_ = record;
  observed_time_ = env.monotonic_now();  // observedRawRecord is deliberately left alone
}

std::string LeaderElector::observed_raw_record() const {
  const auto* record = std::get_if<LeaderElectionRecord>(&observed_raw_);
  return record != nullptr ? marshal(*record) : std::get<std::string>(observed_raw_);
}

bool LeaderElector::take_raw_record(const LockGetResult& got) {
  HASIM_ASSERT(got.status == Status::ok);
  const auto* seen_record = std::get_if<LeaderElectionRecord>(&observed_raw_);
  const auto* seen_bytes = std::get_if<std::string>(&observed_raw_);
  // Text is written only where one side has nothing but text.
  const bool same =
      got.raw_is_marshal
          ? (seen_record != nullptr ? marshal_equal(*seen_record, got.record)
                                    : *seen_bytes == marshal(got.record))
          : (seen_bytes != nullptr ? *seen_bytes == got.raw : marshal(*seen_record) == got.raw);
  if (same) return false;
  if (got.raw_is_marshal) {
    observed_raw_ = got.record;
  } else {
    observed_raw_ = got.raw;
  }
  return true;
}

bool LeaderElector::is_lease_valid(LocalTime now) const {
  return observed_time_ + seconds(observed_record_.leaseDurationSeconds) > now;
}

LeaderElectionRecord LeaderElector::candidate(Env& env) const {
  LeaderElectionRecord record;
  record.holderIdentity = lock_.identity();
  // int(LeaseDuration / time.Second): truncation, so 1.9s is stored as 1.
  record.leaseDurationSeconds = static_cast<int>(config_.leaseDuration.ns / 1'000'000'000);
  record.renewTime = env.now();
  record.acquireTime = record.renewTime;
  return record;
}

void LeaderElector::maybe_report_transition(Env& env) {
  if (observed_record_.holderIdentity == reported_leader_) return;
  reported_leader_ = observed_record_.holderIdentity;
  if (callbacks_.onNewLeader) callbacks_.onNewLeader(env, reported_leader_);
}

std::optional<std::string> LeaderElector::check(Env& env, Duration maxTolerableExpiredLease) const {
  if (!is_leader()) return std::nullopt;  // a hot standby is not this check's concern
  if (env.monotonic_now() - observed_time_ > config_.leaseDuration + maxTolerableExpiredLease) {
    return "failed election to renew leadership on lease " + config_.name;
  }
  return std::nullopt;
}

// --- tryAcquireOrRenew ------------------------------------------------------------------------

void LeaderElector::try_acquire_or_renew(Env& env, ContextId context, Result done) {
  const LocalTime now = env.monotonic_now();
  LeaderElectionRecord record = candidate(env);
  // 1. Fast path: the leader updates its cached object without a Get.
  if (is_leader() && is_lease_valid(now)) {
    record.acquireTime = observed_record_.acquireTime;
    record.leaderTransitions = observed_record_.leaderTransitions;
    // Each callback here runs once, so it hands its record and `done` on by move: no copy of
    // the record's strings, nor of the chain of callbacks behind `done`.
    auto updated = [this, context, now, record, done = std::move(done)](Env& e,
                                                                        Status status) mutable {
      if (api::is_success(status)) {
        set_observed_record(e, record);
        return done(e, true);
      }
      slow_path(e, context, now, std::move(record), std::move(done));  // e.g. 409: stale cache
    };
    lock_.update(env, context, record, std::move(updated));
    return;
  }
  slow_path(env, context, now, std::move(record), std::move(done));
}

ResourceLock::Done LeaderElector::on_written(LeaderElectionRecord record, Result done) {
  return [this, record = std::move(record), done = std::move(done)](Env& e, Status status) {
    if (!api::is_success(status)) return done(e, false);
    set_observed_record(e, record);
    done(e, true);
  };
}

void LeaderElector::slow_path(Env& env, ContextId context, LocalTime now,
                              LeaderElectionRecord record, Result done) {
  // 2. Get, or Create if there is nothing yet.
  auto got_record = [this, context, now, record = std::move(record), done = std::move(done)](
                        Env& e, const LockGetResult& got) mutable {
    if (got.status != Status::ok) {
      if (got.status != Status::not_found) return done(e, false);
      lock_.create(e, context, record, on_written(record, std::move(done)));
      return;
    }
    // 3. Only a change in the bytes restarts the observation clock.
    if (take_raw_record(got)) set_observed_record(e, got.record);
    if (!got.record.holderIdentity.empty() && is_lease_valid(now) && !is_leader()) {
      return done(e, false);  // held by another and not yet expired
    }
    // 4. Prepare the update: a renewal keeps acquireTime and the transition count.
    LeaderElectionRecord update = std::move(record);
    if (is_leader()) {
      update.acquireTime = got.record.acquireTime;
      update.leaderTransitions = got.record.leaderTransitions;
    } else {
      update.leaderTransitions = got.record.leaderTransitions + 1;
    }
    // 5. Update (a compare-and-swap on the cached resourceVersion).
    lock_.update(e, context, update, on_written(update, std::move(done)));
  };
  lock_.get(env, context, std::move(got_record));
}

// --- tryCoordinatedRenew (KEP-4355) ---------------------------------------------------------

void LeaderElector::try_coordinated_renew(Env& env, ContextId context, Result done) {
  const LocalTime now = env.monotonic_now();
  LeaderElectionRecord record = candidate(env);
  auto got_record = [this, context, now, record = std::move(record), done = std::move(done)](
                        Env& e, const LockGetResult& got) mutable {
    // The apiserver's election controller creates the Lease; a candidate never does.
    if (got.status != Status::ok) return done(e, false);
    if (take_raw_record(got)) set_observed_record(e, got.record);
    const bool has_expired = observed_time_ + seconds(got.record.leaseDurationSeconds) < now;
    if (has_expired || !is_leader()) return done(e, false);
    // "End of term": a better candidate exists; stop renewing and let the lease run out.
    if (!got.record.preferredHolder.empty()) return done(e, false);
    LeaderElectionRecord update = std::move(record);
    update.acquireTime = got.record.acquireTime;
    update.leaderTransitions = got.record.leaderTransitions;
    update.strategy = got.record.strategy;
    lock_.update(e, context, update, on_written(update, std::move(done)));
  };
  lock_.get(env, context, std::move(got_record));
}

void LeaderElector::try_renew(Env& env, ContextId context, Result done) {
  const bool fallen_back = config_.coordinatedFallbackAfter.has_value() && !is_leader() &&
                           env.monotonic_now() - run_started_ >= *config_.coordinatedFallbackAfter;
  if (config_.coordinated && !fallen_back) {
    return try_coordinated_renew(env, context, std::move(done));
  }
  try_acquire_or_renew(env, context, std::move(done));
}

// --- Run: acquire ---------------------------------------------------------------------------

void LeaderElector::run(Env& env) {
  HASIM_ASSERT(phase_ == Phase::idle);
  phase_ = Phase::acquiring;
  run_started_ = env.monotonic_now();
  context_ = transport_.new_context();
  acquire_attempt(env);
}

void LeaderElector::acquire_attempt(Env& env) {
  HASIM_ASSERT(phase_ == Phase::acquiring && !attempt_in_flight_);
  attempt_in_flight_ = true;
  try_renew(env, context_, [this](Env& e, bool succeeded) {
    attempt_in_flight_ = false;
    maybe_report_transition(e);
    if (parent_canceled_) return;  // cancel() ends the loop
    if (!succeeded) {
      // wait.Jitter(RP, 1.2), measured from the end of this try (sliding).
      const double jitter =
          e.rng().unit() * kJitterFactor * static_cast<double>(config_.retryPeriod.ns);
      wait_timer_ =
          timer(e, config_.retryPeriod + Duration{static_cast<std::int64_t>(jitter)}, kAcquireWait);
      return;
    }
    acquired(e);
  });
}

void LeaderElector::acquired(Env& env) {
  lock_.record_event(env, "became leader");
  phase_ = Phase::leading;
  leading_context_open_ = true;
  callbacks_.onStartedLeading(env);  // `go OnStartedLeading(ctx)`
  renew_round(env);                  // wait.Until runs its first round at once
}

// --- Run: renew -----------------------------------------------------------------------------

void LeaderElector::renew_round(Env& env) {
  HASIM_ASSERT(phase_ == Phase::leading);
  context_ = transport_.new_context();
  poll_started_ = env.monotonic_now();
  deadline_timer_ = timer(env, config_.renewDeadline, kPollDeadline);
  if (config_.renewRequests == RenewRequests::unbounded) {
    // wait.Poll (not PollImmediate): the first try comes with the first tick. The deadline
    // timer was set first, so at a tie with a tick it fires first (Go picks either).
    poll_closed_ = false;
    last_try_ = false;
    wait_timer_ = timer(env, config_.retryPeriod, kPollTick);
    return;
  }
  poll_attempt(env);
}

void LeaderElector::poll_attempt(Env& env) {
  attempt_started_ = env.monotonic_now();
  attempt_in_flight_ = true;
  last_try_ = poll_closed_;
  const ContextId context = context_;
  try_renew(env, context, [this, context](Env& e, bool renewed) {
    if (context != context_) return;  // the poll already ended (deadline or cancel)
    attempt_in_flight_ = false;
    if (renewed) return poll_finished(e, true);
    if (config_.renewRequests == RenewRequests::unbounded) return legacy_poll_failed(e);
    // The ticker started with the poll; a tick that came during this try is taken at once.
    const std::int64_t period = config_.retryPeriod.ns;
    const std::int64_t ticks_before = (attempt_started_ - poll_started_).ns / period;
    const LocalTime next_tick = poll_started_ + Duration{(ticks_before + 1) * period};
    const LocalTime now = e.monotonic_now();
    if (next_tick <= now) return poll_attempt(e);
    wait_timer_ = timer(e, next_tick - now, kPollTick);
  });
}

void LeaderElector::poll_finished(Env& env, bool renewed) {
  stop_timer(env, deadline_timer_);
  stop_timer(env, wait_timer_);
  const ContextId context = context_;
  context_ = 0;
  if (attempt_in_flight_) {
    attempt_in_flight_ = false;
    transport_.cancel(env, context);  // the try in flight sees "context deadline exceeded"
  }
  maybe_report_transition(env);
  if (renewed && !parent_canceled_) {
    // wait.Until's period: RP today; 0 up to 1.11, whose next poll waits RP for its first tick.
    if (config_.renewRequests == RenewRequests::unbounded) return renew_round(env);
    wait_timer_ = timer(env, config_.retryPeriod, kRenewWait);
    return;
  }
  env.trace(trace_kind::kLeaseLost,
            {{"lock", lock_.describe()},
             {"reason", std::string(parent_canceled_ ? "canceled" : "renewDeadline")}});
  renew_loop_exited(env);
}

// RenewRequests::unbounded: apimachinery's WaitFor/poller up to 1.11. A tick is handed to the
// condition only if it is waiting for one, so ticks during a try are lost; the try after the
// tick channel closes (RD) is the last.
void LeaderElector::legacy_poll_failed(Env& env) {
  if (last_try_) return poll_finished(env, false);
  if (poll_closed_) return poll_attempt(env);  // WaitFor: once more after the channel closed
  const std::int64_t period = config_.retryPeriod.ns;
  // The first tick after the one that started this try, and not before now.
  std::int64_t ticks = (attempt_started_ - poll_started_).ns / period + 1;
  const std::int64_t since_start = (env.monotonic_now() - poll_started_).ns;
  ticks = std::max(ticks, (since_start + period - 1) / period);
  const LocalTime next_tick = poll_started_ + Duration{ticks * period};
  if (next_tick <= env.monotonic_now()) return poll_attempt(env);
  wait_timer_ = timer(env, next_tick - env.monotonic_now(), kPollTick);
}

void LeaderElector::legacy_poll_deadline(Env& env) {
  // The timer closes the tick channel; it cancels nothing, so a try in flight runs on.
  poll_closed_ = true;
  if (attempt_in_flight_) return;
  stop_timer(env, wait_timer_);
  poll_attempt(env);
}

void LeaderElector::renew_loop_exited(Env& env) {
  if (!config_.releaseOnCancel) {
    lock_.record_event(env, "stopped leading");
    return finish(env);
  }
  phase_ = Phase::releasing;
  release(env, [this](Env& e, bool released) {
    e.trace(trace_kind::kLeaseRelease, {{"lock", lock_.describe()}, {"released", released}});
    lock_.record_event(e, "stopped leading");
    finish(e);
  });
}

void LeaderElector::finish(Env& env) {
  phase_ = Phase::stopped;
  if (leading_context_open_) {
    leading_context_open_ = false;
    callbacks_.onLeadingContextDone(env);  // Run's deferred cancel()
  }
  callbacks_.onStoppedLeading(env);  // Run's deferred OnStoppedLeading
}

// --- release --------------------------------------------------------------------------------

void LeaderElector::release(Env& env, Result done) {
  // A fresh context.Background() with an RD timeout: the parent may already be cancelled.
  const ContextId context = transport_.new_context();
  context_ = context;
  deadline_timer_ = timer(env, config_.renewDeadline, kReleaseDeadline);
  try_release(env, context, [this, done](Env& e, bool released) {
    stop_timer(e, deadline_timer_);
    context_ = 0;
    done(e, released);
  });
}

void LeaderElector::try_release(Env& env, ContextId context, Result done) {
  lock_.get(env, context, [this, context, done](Env& e, const LockGetResult& got) {
    if (got.status != Status::ok) return done(e, false);
    if (!is_leader()) return done(e, true);
    LeaderElectionRecord released;
    released.leaderTransitions = got.record.leaderTransitions;
    released.leaseDurationSeconds = 1;  // for clients older than 1.14 (interface.go)
    released.renewTime = e.now();
    released.acquireTime = released.renewTime;
    lock_.update(e, context, released, [this, context, released, done](Env& e2, Status status) {
      // An in-flight renewal may have bumped resourceVersion: try again (client-go 500bfe00c).
      if (status == Status::conflict) return try_release(e2, context, done);
      if (!api::is_success(status)) return done(e2, false);
      set_observed_record(e2, released);
      done(e2, true);
    });
  });
}

// --- cancellation and timers ----------------------------------------------------------------

void LeaderElector::cancel(Env& env) {
  if (parent_canceled_) return;
  parent_canceled_ = true;
  switch (phase_) {
    case Phase::idle:
      phase_ = Phase::stopped;
      return;
    case Phase::acquiring: {
      stop_timer(env, wait_timer_);
      const ContextId context = context_;
      context_ = 0;
      if (attempt_in_flight_) transport_.cancel(env, context);
      return finish(env);  // acquire returned false: Run returns, OnStoppedLeading runs
    }
    case Phase::leading:
      // The leading context is a child of Run's: the leader's work stops at once.
      leading_context_open_ = false;
      callbacks_.onLeadingContextDone(env);
      stop_timer(env, wait_timer_);
      if (context_ != 0) return poll_finished(env, false);
      env.trace(trace_kind::kLeaseLost,
                {{"lock", lock_.describe()}, {"reason", std::string("canceled")}});
      return renew_loop_exited(env);
    case Phase::releasing:
      if (leading_context_open_) {
        leading_context_open_ = false;
        callbacks_.onLeadingContextDone(env);
      }
      return;  // release runs on its own context
    case Phase::stopped:
      return;
  }
}

bool LeaderElector::on_timer(Env& env, std::uint64_t tag) {
  if (!timer_tags_.owns(tag)) return false;
  switch (timer_tags_.local(tag)) {
    case kAcquireWait:
      wait_timer_.reset();
      acquire_attempt(env);
      break;
    case kRenewWait:
      wait_timer_.reset();
      renew_round(env);
      break;
    case kPollTick:
      wait_timer_.reset();
      poll_attempt(env);
      break;
    case kPollDeadline:
      deadline_timer_.reset();
      if (config_.renewRequests == RenewRequests::unbounded) {
        legacy_poll_deadline(env);
      } else {
        poll_finished(env, false);
      }
      break;
    case kReleaseDeadline: {
      deadline_timer_.reset();
      transport_.cancel(env, context_);  // the release try fails: "context deadline exceeded"
      break;
    }
    default:
      HASIM_ASSERT(false && "unknown elector timer");
  }
  return true;
}

TimerId LeaderElector::timer(Env& env, Duration after, std::uint64_t kind) {
  return env.set_timer(after, timer_tags_.tag(kind));
}

void LeaderElector::stop_timer(Env& env, std::optional<TimerId>& timer) {
  if (timer.has_value()) env.cancel_timer(*timer);
  timer.reset();
}

}  // namespace hasim::election
