#include "models/druid/sidecar_member_ops.hpp"

#include "sim/assert.hpp"

namespace hasim::druid::sidecar {

Backoff create_backoff(Duration retry_period, int steps) {
  HASIM_ASSERT(retry_period.ns > 0 && steps >= 1);
  return Backoff{retry_period, 2, 10, steps, seconds(120)};
}

Backoff default_backoff() { return Backoff{milliseconds(10), 5, 10, 4, Duration{}}; }

Backoff add_learner_backoff() { return create_backoff(kMemberRetryPeriod, kAddLearnerAttempts); }

Backoff member_presence_backoff() { return create_backoff(kMemberRetryPeriod, kMemberRetrySteps); }

BackoffStep after_failed_attempt(const Backoff& backoff) {
  // An attempt is only made while steps remain (ExponentialBackoff's loop condition).
  HASIM_ASSERT(backoff.steps >= 1 && backoff.duration.ns > 0 && backoff.factor >= 1);
  BackoffStep step{false, Duration{}, backoff};
  if (backoff.steps == 1) return step;  // the last attempt: no sleep, give up
  step.sleep = backoff.duration;
  step.next.steps = backoff.steps - 1;
  Duration grown = backoff.duration * backoff.factor;
  if (backoff.cap.ns > 0 && grown > backoff.cap) {
    // wait's delay(): hitting the cap zeroes the remaining steps, so the loop ends after
    // this sleep.
    grown = backoff.cap;
    step.next.steps = 0;
  }
  step.next.duration = grown;
  step.retry = step.next.steps > 0;
  HASIM_ASSERT(step.sleep.ns > 0 && step.next.steps < backoff.steps);
  return step;
}

std::string_view name(AddLearnerOutcome outcome) {
  switch (outcome) {
    case AddLearnerOutcome::Added:
      return "Added";
    case AddLearnerOutcome::MemberExists:
      return "ErrMemberExist";
    case AddLearnerOutcome::PeerURLExists:
      return "ErrPeerURLExist";
    case AddLearnerOutcome::TooManyLearners:
      return "ErrTooManyLearners";
    case AddLearnerOutcome::OtherError:
      return "OtherError";
  }
  HASIM_ASSERT(false);
}

std::string_view name(RetryVerdict verdict) {
  switch (verdict) {
    case RetryVerdict::Done:
      return "Done";
    case RetryVerdict::Retry:
      return "Retry";
    case RetryVerdict::GiveUp:
      return "GiveUp";
  }
  HASIM_ASSERT(false);
}

namespace {

bool add_succeeded(AddLearnerOutcome outcome) {
  // A member (or its peer URL) already in the cluster is this member's own earlier add.
  return outcome == AddLearnerOutcome::Added || outcome == AddLearnerOutcome::MemberExists ||
         outcome == AddLearnerOutcome::PeerURLExists;
}

AddLearnerStep from_backoff(const Backoff& backoff, Duration extra_wait) {
  const BackoffStep b = after_failed_attempt(backoff);
  return AddLearnerStep{b.retry ? RetryVerdict::Retry : RetryVerdict::GiveUp, extra_wait + b.sleep,
                        b.next};
}

}  // namespace

AddLearnerStep add_learner_step(const Backoff& backoff, AddLearnerOutcome outcome) {
  HASIM_ASSERT(backoff.steps >= 1);
  if (add_succeeded(outcome)) return AddLearnerStep{RetryVerdict::Done, Duration{}, backoff};
  // SleepWithContext(EtcdTimeout) runs inside the attempt, before OnError's own sleep; it
  // happens even when this was the last attempt.
  const Duration extra = outcome == AddLearnerOutcome::TooManyLearners ? kEtcdTimeout : Duration{};
  return from_backoff(backoff, extra);
}

AddLearnerStep repair_add_learner_step(const Backoff& backoff, AddLearnerOutcome outcome) {
  HASIM_ASSERT(backoff.steps >= 1);
  if (add_succeeded(outcome)) return AddLearnerStep{RetryVerdict::Done, Duration{}, backoff};
  return from_backoff(backoff, Duration{});
}

AddLearnerStep remove_member_step(const Backoff& backoff, RemoveOutcome outcome) {
  HASIM_ASSERT(backoff.steps >= 1);
  if (outcome == RemoveOutcome::Removed || outcome == RemoveOutcome::NotListed) {
    return AddLearnerStep{RetryVerdict::Done, Duration{}, backoff};
  }
  return from_backoff(backoff, Duration{});
}

RetryVerdict promote_verdict(PromoteOutcome outcome) {
  if (outcome == PromoteOutcome::Promoted || outcome == PromoteOutcome::MemberNotLearner) {
    return RetryVerdict::Done;
  }
  return RetryVerdict::Retry;  // on the next leading poll, not by a backoff of its own
}

std::string_view name(PromoteOutcome outcome) {
  switch (outcome) {
    case PromoteOutcome::Promoted:
      return "";
    case PromoteOutcome::MemberNotLearner:
      return "ErrMemberNotLearner";
    case PromoteOutcome::LearnerNotReady:
      return "ErrLearnerNotReady";
    case PromoteOutcome::MissingMember:
      return "ErrMissingMember";
    case PromoteOutcome::OtherError:
      return "OtherError";
  }
  HASIM_ASSERT(false);
}

}  // namespace hasim::druid::sidecar
