#pragma once
// client-go's LeaderElector (tools/leaderelection/leaderelection.go), step by step, as a
// sans-IO state machine. Go's blocking loops become timers and callbacks with the same
// timing:
//   acquire  wait.JitterUntil(sliding): try at once, then RP + rand[0,1)*1.2*RP after the
//            end of each failed try;
//   renew    wait.Until(RP, sliding) around PollUntilContextTimeout(RP, RD, immediate): try at
//            once, then on an RP ticker started with the poll (a tick missed during a slow
//            try is taken at once after it), until a try succeeds or RD passes; the RD
//            deadline cancels the request in flight;
//   release  (ReleaseOnCancel) Get, then write an empty holder with LDS 1, retrying on 409,
//            within its own RD timeout.
// RenewRequests::unbounded replaces the renew poll with the one of client-go up to 1.11 (see
// LeaderElectionConfig::renewRequests).
// Decisions use this process's monotonic clock only (observedTime); record timestamps are
// written from the wall clock and never read.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>

#include "models/election/resource_lock.hpp"

namespace hasim::election {

// How far a leader-election try may outlast the renew loop's RenewDeadline.
//   bounded    today's client-go (the default): the poll's context reaches the request, so
//              RD cancels it in flight (since 1.18), and the component's HTTP client times out
//              after max(1s, RD/2) (NewFromKubeconfig, 1.20; used by KCM and the scheduler
//              since 1.21; see cluster::ComponentConfig).
//   unbounded  client-go up to 1.11 (kubernetes#44887, 2017): tryAcquireOrRenew took no
//              context and KCM and the scheduler built their leader-election client without a
//              timeout. renew() was wait.Until(period 0) around wait.Poll(RP, RD, cond): the
//              first try one RP after the poll starts, ticks that come while a try runs are
//              dropped (apimachinery's poller hands ticks over without buffering), and RD only
//              closes the tick channel, which the blocked condition does not see. WaitFor then
//              runs the condition once more after the channel closes, and only that try's
//              failure ends the loop. So a hung renewal keeps the leader leading until the
//              request returns (the apiserver's 504 at its request timeout), plus one more try.
//              The 1.12 fix (kubernetes#65094, client-go 57f617c0b) gave KCM's leader-election
//              client a timeout of RD and made renew() abandon a try still running at RD; 1.18
//              (kubernetes#87899, client-go d6bfb32c1) passed the context into
//              tryAcquireOrRenew instead. Only the bounding of tries is old here: the decision
//              logic is today's tryAcquireOrRenew (fast path, raw-record rule), and cancel()
//              (the Run context, which 1.11 did not have) still cancels a try in flight.
enum class RenewRequests : std::uint8_t { bounded, unbounded };

struct LeaderElectionConfig {
  Duration leaseDuration = seconds(15);
  Duration renewDeadline = seconds(10);
  Duration retryPeriod = seconds(2);
  bool releaseOnCancel = false;
  std::string name;          // the lock's name in logs and healthz
  bool coordinated = false;  // KEP-4355: renew with tryCoordinatedRenew, never create
  // Not upstream: the KEP's "fall back to direct leasing" proposal. A coordinated elector
  // that has not led for this long since Run also tries tryAcquireOrRenew.
  std::optional<Duration> coordinatedFallbackAfter;
  RenewRequests renewRequests = RenewRequests::bounded;
};

inline constexpr double kJitterFactor = 1.2;
// time.Duration(JitterFactor * float64(retryPeriod)): Go truncates; a product beyond the range
// of a Duration saturates here (no valid renewDeadline is that long).
Duration jittered(Duration retryPeriod);

// NewLeaderElector's checks, in its order; the message is upstream's.
std::optional<std::string> validate(const LeaderElectionConfig& config,
                                    const std::string& identity);

struct LeaderCallbacks {
  std::function<void(Env&)> onStartedLeading;  // the leader's work starts (its context opens)
  // The OnStartedLeading context is done: the leader's work must stop now. Go code observes
  // ctx.Done(); here it is a callback.
  std::function<void(Env&)> onLeadingContextDone;
  std::function<void(Env&)> onStoppedLeading;  // deferred in Run: called on every exit
  std::function<void(Env&, const std::string&)> onNewLeader;  // optional
};

class LeaderElector {
 public:
  // `timer_tags`: the space for this elector's timers.
  LeaderElector(LeaderElectionConfig config, ResourceLock& lock, api::ApiTransport& transport,
                LeaderCallbacks callbacks, TagSpace timer_tags);

  void run(Env& env);                          // Run(ctx)
  void cancel(Env& env);                       // the ctx given to Run is cancelled (e.g. SIGTERM)
  bool on_timer(Env& env, std::uint64_t tag);  // true if the tag was this elector's

  bool is_leader() const { return observed_record_.holderIdentity == lock_.identity(); }
  const std::string& leader() const { return observed_record_.holderIdentity; }
  // Check(maxTolerableExpiredLease), the healthz adaptor's test: an error message when this
  // client believes it leads but has not renewed for LD + maxTolerableExpiredLease.
  std::optional<std::string> check(Env& env, Duration maxTolerableExpiredLease) const;
  bool running() const { return phase_ != Phase::idle && phase_ != Phase::stopped; }

  // The steps, exposed for the conformance vectors (client-go's tests call them directly).
  using Result = std::function<void(Env&, bool)>;
  void try_acquire_or_renew(Env& env, ContextId context, Result done);
  void try_coordinated_renew(Env& env, ContextId context, Result done);
  void release(Env& env, Result done);
  void maybe_report_transition(Env& env);
  const LeaderElectionRecord& observed_record() const { return observed_record_; }
  LocalTime observed_time() const { return observed_time_; }
  std::string observed_raw_record() const;
  void set_observed_for_test(LeaderElectionRecord record, std::string raw, LocalTime time) {
    observed_record_ = std::move(record);
    observed_raw_ = std::move(raw);
    observed_time_ = time;
  }
  // Go's zero time.Time: earlier than any reading of a clock.
  static constexpr LocalTime kZeroTime{-(std::int64_t{1} << 62)};

 private:
  enum class Phase : std::uint8_t { idle, acquiring, leading, releasing, stopped };

  void set_observed_record(Env& env, const LeaderElectionRecord& record);
  // Step 3's test, "only a change in the bytes restarts the observation clock": true if the
  // raw record read differs from observedRawRecord, which then becomes it.
  bool take_raw_record(const LockGetResult& got);
  bool is_lease_valid(LocalTime now) const;
  LeaderElectionRecord candidate(Env& env) const;
  // What a create or update of `record` answers: on success the record is observed.
  ResourceLock::Done on_written(LeaderElectionRecord record, Result done);
  void slow_path(Env& env, ContextId context, LocalTime now, LeaderElectionRecord record,
                 Result done);
  void try_renew(Env& env, ContextId context, Result done);  // by config_.coordinated
  // acquire()
  void acquire_attempt(Env& env);
  void acquired(Env& env);
  // renew()
  void renew_round(Env& env);
  void poll_attempt(Env& env);
  void poll_finished(Env& env, bool renewed);
  void legacy_poll_failed(Env& env);    // RenewRequests::unbounded: a try returned false
  void legacy_poll_deadline(Env& env);  // ... RD passed
  void renew_loop_exited(Env& env);
  void try_release(Env& env, ContextId context, Result done);
  // Run's epilogue: cancel the leading context, then OnStoppedLeading.
  void finish(Env& env);
  TimerId timer(Env& env, Duration after, std::uint64_t kind);
  void stop_timer(Env& env, std::optional<TimerId>& timer);

  LeaderElectionConfig config_;
  ResourceLock& lock_;
  api::ApiTransport& transport_;
  LeaderCallbacks callbacks_;
  TagSpace timer_tags_;

  // Observed state (leaderelection.go's bookkeeping).
  LeaderElectionRecord observed_record_;
  // observedRawRecord: the bytes read, or, after a Lease lock's read, the record whose
  // marshal they are (written only if asked for: observed_raw_record()).
  std::variant<std::string, LeaderElectionRecord> observed_raw_ = marshal(LeaderElectionRecord{});
  LocalTime observed_time_ = kZeroTime;
  std::string reported_leader_;

  Phase phase_ = Phase::idle;
  bool parent_canceled_ = false;
  bool leading_context_open_ = false;
  ContextId context_ = 0;  // the acquire ctx, the poll's deadline ctx, or release's ctx
  bool attempt_in_flight_ = false;
  std::optional<TimerId> wait_timer_;      // acquire jitter / renew period / poll tick
  std::optional<TimerId> deadline_timer_;  // poll's RenewDeadline / release's timeout
  // RenewRequests::unbounded: RD has closed the poll's tick channel; the try that starts
  // after that is the last one.
  bool poll_closed_ = false;
  bool last_try_ = false;
  LocalTime poll_started_{};
  LocalTime run_started_{};
  LocalTime attempt_started_{};
};

}  // namespace hasim::election
