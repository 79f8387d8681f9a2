#include "models/druid/sidecar_leading.hpp"

#include "sim/assert.hpp"

namespace hasim::druid::sidecar {

std::string_view name(LeadingState state) {
  switch (state) {
    case LeadingState::Follower:
      return "Follower";
    case LeadingState::Candidate:
      return "Candidate";
    case LeadingState::Leader:
      return "Leader";
    case LeadingState::Unknown:
      return "UnknownState";
  }
  HASIM_ASSERT(false);
}

MemberStatus etcd_member_status(const StatusResponse& response) {
  if (!response.ok) return MemberStatus{true, false, false};
  // Compared before the leader-0 test, as upstream does; a member ID is never 0.
  HASIM_ASSERT(response.member_id != 0);
  if (response.member_id == response.leader) return MemberStatus{false, true, false};
  if (response.leader == 0) return MemberStatus{true, false, false};
  return MemberStatus{false, false, response.is_learner};
}

namespace {

LeadingStep transition(LeadingState current, const MemberStatus& status,
                       int original_cluster_size) {
  LeadingStep step{current, {}};
  if (status.error) {
    // Stop renewing the member Lease (once: not again while already Unknown), so druid sees
    // the member go stale; a leader also stops leading.
    step.effects.stop_lease_renewal = current != LeadingState::Unknown;
    step.effects.stopped_leading = current == LeadingState::Leader;
    step.next = LeadingState::Unknown;
    return step;
  }
  if (status.is_leader) {
    if (current == LeadingState::Leader) return step;  // no change
    step.effects.start_lease_renewal = current == LeadingState::Unknown;
    step.effects.started_leading = true;
    step.next = LeadingState::Leader;
    return step;
  }
  switch (current) {
    case LeadingState::Leader:
      step.effects.stopped_leading = true;
      step.next = LeadingState::Follower;
      return step;
    case LeadingState::Unknown:
      // Back to Follower without a promote in this poll: promotion waits for the next one.
      step.effects.start_lease_renewal = true;
      step.next = LeadingState::Follower;
      return step;
    case LeadingState::Follower:
      step.effects.promote = status.is_learner && original_cluster_size > 1;
      return step;
    case LeadingState::Candidate:
      return step;  // upstream has no branch for it
  }
  HASIM_ASSERT(false);
}

}  // namespace

LeadingStep leading_transition(LeadingState current, const MemberStatus& status,
                               int original_cluster_size) {
  HASIM_ASSERT(original_cluster_size >= 1);
  HASIM_ASSERT(!(status.error && (status.is_leader || status.is_learner)));
  HASIM_ASSERT(!(status.is_leader && status.is_learner));
  const LeadingStep step = transition(current, status, original_cluster_size);
  const LeadingEffects& e = step.effects;
  HASIM_ASSERT(!e.started_leading || (step.next == LeadingState::Leader && current != step.next));
  HASIM_ASSERT(!e.stopped_leading || current == LeadingState::Leader);
  HASIM_ASSERT(!(e.start_lease_renewal && e.stop_lease_renewal));
  HASIM_ASSERT(!e.start_lease_renewal || current == LeadingState::Unknown);
  HASIM_ASSERT(!e.promote || (current == LeadingState::Follower && step.next == current));
  HASIM_ASSERT(step.next != LeadingState::Candidate || current == LeadingState::Candidate);
  return step;
}

}  // namespace hasim::druid::sidecar
