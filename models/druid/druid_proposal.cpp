// etcd-druid in mode `proposal` (seed 004, "Decision table for etcd-druid based on the
// status"): the status step observes the member Leases, the pods and the StatefulSet, and
// applies the decision table's cases (models/druid/proposal_druid_table.hpp) to status.members,
// the conditions and the cluster, one case after another while a case only edits the status
// (the seed's reconcile re-runs on its own status change), stopping at the first case that
// acts on pods, the StatefulSet or Leases. Beyond the table, as the seed describes:
//  - an entry is added when a member's Lease first shows a holder: the seed's sidecar "adds
//    self to Etcd status"; hasim keeps druid the only writer of the status, and the sidecar's
//    heartbeat (holderIdentity memberID:clusterID:role) is how it announces itself;
//  - status.clusterSize follows cluster_size_update; the PDB's minAvailable follows
//    pdb_min_available (seed "PodDisruptionBudget");
//  - a spec change that rolls the pods (a new image) waits until may_roll_out_spec_change;
//    scaling is the table's (cases 11, 12), without a roll ("the rest of the StatefulSet spec
//    need not be updated");
//  - hibernation (spec.replicas 0) is outside the table: druid scales the set to 0 and keeps
//    the status as it was, so the members rejoin from it (init case 6) on wake.
#include <algorithm>
#include <string>

#include "models/druid/druid_controller.hpp"
#include "models/druid/holder_identity.hpp"
#include "models/druid/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim::druid {

namespace {

namespace P = proposal;

// The table's cases, applied one after another in one status step, are at most all 13 once.
constexpr int kMaxCasesPerStep = static_cast<int>(P::kDruidPriority.size());

P::Tri tri(const std::vector<Condition>& conditions, ConditionType type) {
  for (const Condition& c : conditions) {
    if (c.type != type) continue;
    if (c.status == ConditionStatus::kTrue) return P::Tri::True;
    if (c.status == ConditionStatus::kFalse) return P::Tri::False;
  }
  return P::Tri::Unknown;
}

// SetCondition with the reasons upstream's checks write for the same statuses.
void set_condition(std::vector<Condition>& conditions, const P::SetCondition& set, LocalTime now) {
  const bool ready = set.type == P::ConditionType::Ready;
  HASIM_ASSERT(ready || set.type == P::ConditionType::AllMembersReady);
  HASIM_ASSERT(set.value != P::Tri::Unknown);
  const bool value = set.value == P::Tri::True;
  Condition next;
  next.type = ready ? ConditionType::kReady : ConditionType::kAllMembersReady;
  next.status = value ? ConditionStatus::kTrue : ConditionStatus::kFalse;
  next.reason =
      ready ? (value ? ConditionReason::kQuorate : ConditionReason::kQuorumLost)
            : (value ? ConditionReason::kAllMembersReady : ConditionReason::kNotAllMembersReady);
  next.last_transition_time = now;
  next.last_update_time = now;
  for (Condition& c : conditions) {
    if (c.type != next.type) continue;
    if (c.status == next.status) next.last_transition_time = c.last_transition_time;
    c = next;
    return;
  }
  conditions.push_back(next);
  std::sort(conditions.begin(), conditions.end(),
            [](const Condition& a, const Condition& b) { return a.type < b.type; });
}

bool status_only(const P::DruidStep& step) {
  return std::holds_alternative<P::Nothing>(step) || std::holds_alternative<P::MarkMembers>(step) ||
         std::holds_alternative<P::SetCondition>(step) ||
         std::holds_alternative<P::RemoveStatusEntries>(step) ||
         std::holds_alternative<P::ClearStatusMembers>(step) ||
         std::holds_alternative<P::SetClusterSize>(step);
}

std::string join(const std::vector<int>& ordinals) {
  std::string out;
  for (const int o : ordinals) out += (out.empty() ? "" : ",") + std::to_string(o);
  return out;
}

// One step as the trace shows it: "scale-statefulset 1", "mark unknown-past-grace NotReady".
std::string describe(const P::DruidStep& step) {
  if (const auto* m = std::get_if<P::MarkMembers>(&step)) {
    return "mark " + std::string(P::name(m->which)) + " " + std::string(P::name(m->status));
  }
  if (const auto* c = std::get_if<P::SetCondition>(&step)) {
    return "set " + std::string(P::name(c->type)) + " " + std::string(P::name(c->value));
  }
  if (const auto* d = std::get_if<P::DeletePods>(&step)) {
    return "delete-pods " + std::string(P::name(d->which));
  }
  if (const auto* s = std::get_if<P::ScaleStatefulSet>(&step)) {
    return "scale-statefulset " + std::to_string(s->replicas);
  }
  if (const auto* l = std::get_if<P::CreateLeases>(&step))
    return "create-leases " + join(l->ordinals);
  if (const auto* l = std::get_if<P::DeleteLeases>(&step))
    return "delete-leases " + join(l->ordinals);
  if (const auto* r = std::get_if<P::RemoveStatusEntries>(&step)) {
    return "remove-entries from " + std::to_string(r->min_ordinal);
  }
  if (std::holds_alternative<P::ClearStatusMembers>(step)) return "clear-members";
  if (const auto* z = std::get_if<P::SetClusterSize>(&step)) {
    return "cluster-size " + std::to_string(z->size);
  }
  if (const auto* w = std::get_if<P::WaitForReadyMembers>(&step)) {
    return "wait-ready " + std::to_string(w->count);
  }
  return "nothing";
}

std::string describe(const std::vector<P::DruidStep>& steps) {
  std::string out;
  for (const P::DruidStep& s : steps) out += (out.empty() ? "" : "; ") + describe(s);
  return out;
}

// A member Lease renewed within the Unknown threshold (upstream's 1 min: check_ready.go) by a
// holder: the seed's "lease has not expired".
bool lease_active(const MemberLeaseObservation& lease, LocalTime now,
                  const MemberThresholds& thresholds) {
  return lease.read == ObjectRead::kFound && lease.holder_identity.has_value() &&
         lease.renew_time.has_value() && now - *lease.renew_time <= thresholds.unknown_threshold;
}

}  // namespace

P::DruidObservation DruidController::observe(const StatusReads& reads, const EtcdStatus& status,
                                             LocalTime now) const {
  P::DruidObservation o;
  o.desired_cluster_size = config_.etcd->replicas;
  o.current_cluster_size = status.cluster_size;
  const StatefulSetView set = config_.statefulSet();
  o.sts_desired_replicas = set.replicas;
  // Pods of a scale-down still terminating may be Ready; the table compares with spec.
  o.sts_ready_replicas = std::min(set.readyReplicas, set.replicas);
  for (const EtcdMemberStatus& m : status.members) {
    ++o.members_total;
    const Duration in_status = now - m.last_transition_time;
    o.members_ready += m.status == MemberStatus::kReady ? 1 : 0;
    o.members_not_ready_past_grace +=
        m.status == MemberStatus::kNotReady && in_status > config_.proposal.notReadyGracePeriod;
    o.members_unknown_past_grace +=
        m.status == MemberStatus::kUnknown && in_status > config_.proposal.unknownGracePeriod;
    const int ordinal = member_ordinal(m.name);
    const bool active = ordinal < static_cast<int>(reads.members.size()) &&
                        lease_active(reads.members[ordinal], now, config_.thresholds);
    o.members_expired_lease += active ? 0 : 1;
  }
  o.ready = tri(status.conditions, ConditionType::kReady);
  o.all_members_ready = tri(status.conditions, ConditionType::kAllMembersReady);
  o.backup_ready = tri(status.conditions, ConditionType::kBackupReady);
  HASIM_ASSERT(P::consistent(o));
  return o;
}

// The status-only steps, on the status this step builds; false for any other step.
bool DruidController::apply_status_step(const P::DruidStep& step, const StatusReads& reads,
                                        EtcdStatus& status, LocalTime now) const {
  if (!status_only(step)) return false;
  if (const auto* c = std::get_if<P::SetCondition>(&step))
    set_condition(status.conditions, *c, now);
  if (const auto* z = std::get_if<P::SetClusterSize>(&step)) status.cluster_size = z->size;
  if (std::holds_alternative<P::ClearStatusMembers>(step)) status.members.clear();
  if (const auto* r = std::get_if<P::RemoveStatusEntries>(&step)) {
    std::erase_if(status.members, [&](const EtcdMemberStatus& m) {
      return member_ordinal(m.name) >= r->min_ordinal;
    });
  }
  const auto* mark = std::get_if<P::MarkMembers>(&step);
  if (mark == nullptr) return true;
  for (EtcdMemberStatus& m : status.members) {
    const int ordinal = member_ordinal(m.name);
    const MemberLeaseObservation* lease =
        ordinal < static_cast<int>(reads.members.size()) ? &reads.members[ordinal] : nullptr;
    const bool active = lease != nullptr && lease_active(*lease, now, config_.thresholds);
    const Duration in_status = now - m.last_transition_time;
    bool selected = false;
    switch (mark->which) {
      case P::MemberSelector::ActiveLease:
        selected = active;
        break;
      case P::MemberSelector::ExpiredLease:
        selected = !active && m.status != MemberStatus::kNotReady;
        break;
      case P::MemberSelector::UnknownPastGrace:
        selected =
            m.status == MemberStatus::kUnknown && in_status > config_.proposal.unknownGracePeriod;
        break;
      case P::MemberSelector::PodNotReady:
        selected = config_.podContainersReady(ordinal) != PodContainersReady::kTrue;
        break;
      case P::MemberSelector::NotReadyPastGrace:
      case P::MemberSelector::All:
        HASIM_ASSERT(false && "a selector of pods, not of status entries");
    }
    if (!selected) continue;
    const MemberStatus next = mark->status == P::MemberStatus::Ready      ? MemberStatus::kReady
                              : mark->status == P::MemberStatus::NotReady ? MemberStatus::kNotReady
                                                                          : MemberStatus::kUnknown;
    if (m.status != next) m.last_transition_time = now;
    m.status = next;
    m.reason = mark->reason == P::MemberReason::LeaseSucceeded ? MemberReason::kLeaseSucceeded
               : mark->reason == P::MemberReason::LeaseExpired ? MemberReason::kLeaseExpired
               : mark->reason == P::MemberReason::UnknownGracePeriodExceeded
                   ? MemberReason::kUnknownGracePeriodExceeded
                   : MemberReason::kContainersNotReady;
    if (!mark->id_from_holder_identity || lease == nullptr || !lease->holder_identity) continue;
    if (const auto holder = parse_holder_identity(*lease->holder_identity)) {
      m.id = holder->member_id;
      m.role = holder->role;
    }
  }
  return true;
}

// The seed's sidecar adds itself to status.members once it is a member; hasim's sidecar says
// so with its first heartbeat: an entry for each Lease of an ordinal the set runs that shows a
// holder and has no entry yet, judged by the seed's member rule ("Ready if the pod is ready and
// the lease has not expired", else Unknown until case 2 or 8 judges it). Entering Unknown
// regardless would deadlock a bootstrap whose last pod starts late: case 2 waits for every pod
// to be Ready, and that pod's init case 2 for every entry to be Ready. An entry added Unknown
// is judged so again at each step until its pod is Ready.
void DruidController::add_joined_members(Env& env, const StatusReads& reads,
                                         EtcdStatus& status) const {
  const int set_replicas = config_.statefulSet().replicas;
  const int ordinals = std::min(set_replicas, static_cast<int>(reads.members.size()));
  for (int ordinal = 0; ordinal < ordinals; ++ordinal) {
    const MemberLeaseObservation& lease = reads.members[ordinal];
    if (!lease_active(lease, env.now(), config_.thresholds)) continue;
    const auto holder = parse_holder_identity(*lease.holder_identity);
    if (!holder.has_value()) continue;
    const std::string name = member_name(ordinal);
    const bool ready = config_.podContainersReady(ordinal) == PodContainersReady::kTrue;
    const EtcdMemberStatus judged{holder->member_id,
                                  name,
                                  holder->role,
                                  ready ? MemberStatus::kReady : MemberStatus::kUnknown,
                                  MemberReason::kLeaseSucceeded,
                                  env.now()};
    const auto listed = std::find_if(status.members.begin(), status.members.end(),
                                     [&](const EtcdMemberStatus& m) { return m.name == name; });
    if (listed == status.members.end()) {
      status.members.push_back(judged);
      continue;
    }
    // Still as added (Unknown with LeaseSucceeded, which no case writes): judged again.
    const bool added =
        listed->status == MemberStatus::kUnknown && listed->reason == MemberReason::kLeaseSucceeded;
    if (added && ready) *listed = judged;
  }
  std::sort(status.members.begin(), status.members.end(),
            [](const EtcdMemberStatus& a, const EtcdMemberStatus& b) { return a.name < b.name; });
}

// One status step in proposal mode: the recovery under way first, then the table's cases.
void DruidController::proposal_status(Env& env, const StatusReads& reads, EtcdStatus& status) {
  const LocalTime now = env.now();
  status.members = members_;
  status.conditions = conditions_;
  status.cluster_size = clusterSize_;
  std::erase_if(status.conditions,
                [](const Condition& c) { return c.type == ConditionType::kBackupReady; });
  if (const auto backup = backup_ready(reads, now)) {
    const std::vector<ConditionResult> results{backup->result};
    for (const Condition& c : build_conditions(results, conditions_, reads.replicas, now)) {
      if (c.type == ConditionType::kBackupReady) status.conditions.push_back(c);
    }
    std::sort(status.conditions.begin(), status.conditions.end(),
              [](const Condition& a, const Condition& b) { return a.type < b.type; });
  }
  if (config_.etcd->replicas == 0) return;  // hibernated: outside the table
  add_joined_members(env, reads, status);
  if (!pendingSteps_.empty() && !waiting(status)) {
    std::vector<P::DruidStep> rest = std::move(pendingSteps_);
    pendingSteps_.clear();
    run_steps(env, reads, status, std::move(rest));
  }
  P::DruidCase previous = P::DruidCase::Unclassified;
  for (int round = 0; round < kMaxCasesPerStep; ++round) {
    P::DruidObservation obs = observe(reads, status, now);
    if (const auto size = P::cluster_size_update(obs)) {
      status.cluster_size = *size;
      obs.current_cluster_size = *size;
    }
    const P::DruidCase c = P::next_case(obs);
    const P::DruidAction action = P::action(c, obs);
    const bool quiet = c == P::DruidCase::PinkOfHealth || c == P::DruidCase::Unclassified;
    const bool edits_status = std::all_of(action.steps.begin(), action.steps.end(), status_only);
    // A recovery under way takes no other action on pods, the set or Leases; a case that
    // matches again after its own action would starve the others: both wait a step.
    // The suspend-etcd-spec-reconcile annotation (an operator at work) holds them too.
    const bool hold = !pendingSteps_.empty() || config_.etcd->suspendSpecReconcile;
    if (quiet || c == previous || (hold && !edits_status)) {
      if (quiet && c != lastQuiet_) trace_case(env, action);
      lastQuiet_ = quiet ? c : lastQuiet_;
      update_budget(env, obs);
      return roll_out_when_healthy(env, obs);
    }
    lastQuiet_ = P::DruidCase::Unclassified;
    previous = c;
    trace_case(env, action);
    if (!edits_status) return run_steps(env, reads, status, action.steps);
    for (const P::DruidStep& step : action.steps) apply_status_step(step, reads, status, now);
  }
}

void DruidController::trace_case(Env& env, const P::DruidAction& action) {
  // Case 9 matches at every step while its pod's deletion is pending (a down node): the
  // repetition, which deletes nothing more, is left out of the trace.
  const std::string steps = describe(action.steps);
  const std::string traced = std::string(P::name(action.from)) + ": " + steps;
  const bool repeat = traced == lastCaseTraced_;
  lastCaseTraced_ = traced;
  if (repeat && action.from == P::DruidCase::QuorateMinorityNotReady) return;
  env.trace(trace_kind::kDruidCase, {{"case", std::int64_t{P::seed_case_number(action.from)}},
                                     {"name", std::string(P::name(action.from))},
                                     {"steps", steps}});
}

// Steps in order; a wait keeps the rest for a later status step (pendingSteps_).
void DruidController::run_steps(Env& env, const StatusReads& reads, EtcdStatus& status,
                                std::vector<P::DruidStep> steps) {
  HASIM_ASSERT(pendingSteps_.empty() && !steps.empty());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const P::DruidStep& step = steps[i];
    if (apply_status_step(step, reads, status, env.now())) continue;
    if (const auto* wait = std::get_if<P::WaitForReadyMembers>(&step)) {
      gate_ = Gate::readyMembers;
      gateCount_ = wait->count;
    } else {
      apply_world_step(env, step, status);
      const auto* del = std::get_if<P::DeletePods>(&step);
      if (del == nullptr || del->which != P::MemberSelector::All) continue;
      gate_ = Gate::podsGone;  // "ensure that all member pods are deleted"
    }
    if (!waiting(status)) continue;
    pendingSteps_.assign(steps.begin() + static_cast<std::ptrdiff_t>(i) + 1, steps.end());
    if (pendingSteps_.empty()) gate_ = Gate::none;
    return;
  }
  gate_ = Gate::none;
}

// Whether the recovery's gate still holds the remaining steps back.
bool DruidController::waiting(const EtcdStatus& status) const {
  switch (gate_) {
    case Gate::none:
      return false;
    case Gate::podsGone:
      return config_.statefulSet().anyPod;
    case Gate::readyMembers:
      return std::count_if(status.members.begin(), status.members.end(),
                           [](const EtcdMemberStatus& m) {
                             return m.status == MemberStatus::kReady;
                           }) < gateCount_;
  }
  HASIM_ASSERT(false);
  return false;
}

// "etcd-main-3" -> 3: the pod ordinal of a member entry (named after its pod).
int DruidController::member_ordinal(const std::string& member) const {
  const std::string prefix = config_.etcdName + "-";
  HASIM_ASSERT(member.rfind(prefix, 0) == 0);
  return std::stoi(member.substr(prefix.size()));
}

}  // namespace hasim::druid
