#pragma once
// Retry policies of the sidecar's etcd membership calls, as pure functions. Upstream:
// pkg/member/member_control.go (AddLearnerWithRetry, AddMemberAsLearner, RemoveMember,
// PromoteMember, IsMemberInCluster), pkg/initializer/initializer.go (restoreInMultiNode,
// addLearnerAttempts), pkg/miscellaneous/miscellaneous.go (CreateBackoff, DoPromoteMember)
// and the Backoff / OnError semantics of k8s.io/apimachinery wait and client-go retry.
#include <cstdint>
#include <string_view>

#include "sim/time.hpp"

namespace hasim::druid::sidecar {

// member_control.go constants.
inline constexpr Duration kMemberRetryPeriod = seconds(2);  // RetryPeriod
inline constexpr int kMemberRetrySteps = 4;                 // RetrySteps
inline constexpr Duration kEtcdTimeout = seconds(5);        // EtcdTimeout (and the wait on
                                                            // ErrTooManyLearners)
inline constexpr int kAddLearnerAttempts = 6;               // initializer.go

// wait.Backoff with an integer factor (upstream only uses 2 and 5). Jitter is left to the
// caller: each sleep upstream is the duration plus up to `jitter_percent`% of it, drawn at
// random (wait.Jitter); sleeps here are the un-jittered durations.
struct Backoff {
  Duration duration{};
  std::int64_t factor = 1;
  int jitter_percent = 0;
  int steps = 0;
  Duration cap{};  // zero: no cap
  bool operator==(const Backoff&) const = default;
};

// miscellaneous.CreateBackoff: factor 2, cap 120 s, client-go's default jitter (10%).
Backoff create_backoff(Duration retry_period, int steps);
// client-go retry.DefaultBackoff: 4 steps from 10 ms, factor 5, jitter 10%.
Backoff default_backoff();
// AddLearnerWithRetry's: 6 attempts from 2 s (sleeps 2, 4, 8, 16, 32 s).
Backoff add_learner_backoff();
// IsMemberInCluster's probe and its MemberList read, each: 4 attempts (sleeps 2, 4, 8 s).
Backoff member_presence_backoff();

// After a failed attempt, retry.OnError (wait.ExponentialBackoff) either sleeps and retries,
// or gives up. It gives up at once when this was the last step, but when the next duration
// would pass the cap it sleeps the current duration first and *then* gives up without
// another attempt; `sleep` is then non-zero with `retry` false.
struct BackoffStep {
  bool retry = false;
  Duration sleep{};
  Backoff next{};
};
BackoffStep after_failed_attempt(const Backoff& backoff);

// MemberAddAsLearner outcomes as AddMemberAsLearner classifies them.
enum class AddLearnerOutcome { Added, MemberExists, PeerURLExists, TooManyLearners, OtherError };
std::string_view name(AddLearnerOutcome outcome);

enum class RetryVerdict { Done, Retry, GiveUp };
std::string_view name(RetryVerdict verdict);

// What to do after one add-learner attempt. Each attempt first deletes the data dir.
// ErrTooManyLearners (etcd allows one learner) first waits EtcdTimeout (5 s) inside the
// attempt, then takes the normal backoff sleep: `wait` is the sum. GiveUp in
// AddLearnerWithRetry is logger.Fatalf in Initialize (the sidecar exits and restarts).
struct AddLearnerStep {
  RetryVerdict verdict = RetryVerdict::Done;
  Duration wait{};
  Backoff next{};
};
AddLearnerStep add_learner_step(const Backoff& backoff, AddLearnerOutcome outcome);

// restoreInMultiNode's add: same classification but client-go's DefaultBackoff and no extra
// wait on ErrTooManyLearners (that error is just retried).
AddLearnerStep repair_add_learner_step(const Backoff& backoff, AddLearnerOutcome outcome);

// RemoveMember: the member not being listed counts as removed (nil error).
enum class RemoveOutcome { Removed, NotListed, ListError, RemoveError };
// restoreInMultiNode retries MemberRemove with DefaultBackoff (sleeps 10, 50, 250 ms); giving
// up makes Initialize return an error.
AddLearnerStep remove_member_step(const Backoff& backoff, RemoveOutcome outcome);

// PromoteMember / DoPromoteMember. Success and ErrMemberNotLearner are done; anything else
// (ErrLearnerNotReady, ErrMissingMember when its name is not listed yet, list errors) is
// logged, and the next leading poll promotes again while the member is still a learner.
enum class PromoteOutcome {
  Promoted,
  MemberNotLearner,
  LearnerNotReady,
  MissingMember,
  OtherError
};
RetryVerdict promote_verdict(PromoteOutcome outcome);
// rpctypes / member package error names (Promoted: "" for a nil error).
std::string_view name(PromoteOutcome outcome);

}  // namespace hasim::druid::sidecar
