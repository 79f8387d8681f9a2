// etcd-druid in mode `proposal`: the decision table's steps that act outside the Etcd's
// status (pods, the StatefulSet, member Leases), the PDB that follows the conditions, and the
// spec changes that wait for full health (seed 004, "Rolling updates to etcd members").
#include <string>

#include "models/druid/druid_controller.hpp"
#include "models/druid/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim::druid {

namespace P = proposal;

void DruidController::apply_world_step(Env& env, const P::DruidStep& step,
                                       const EtcdStatus& status) {
  EtcdResource& etcd = *config_.etcd;
  if (const auto* del = std::get_if<P::DeletePods>(&step)) return delete_pods(env, *del, status);
  if (const auto* scale = std::get_if<P::ScaleStatefulSet>(&step)) {
    HASIM_ASSERT(scale->replicas >= 0);
    // The ConfigMap (initial-cluster) lists the desired members; the template stays as it was
    // (the seed: "the rest of the StatefulSet spec need not be updated"), so nothing rolls.
    if (scale->replicas > 0) etcd.configMapClusterSize = etcd.replicas;
    return config_.applyStatefulSet(scale->replicas, appliedRevision_, false);
  }
  if (const auto* create = std::get_if<P::CreateLeases>(&step)) {
    for (const int ordinal : create->ordinals) {
      // Case 10 deletes and recreates: the creation waits for the deletion's answer.
      const auto deleting = leaseDeletes_.find(ordinal);
      if (deleting != leaseDeletes_.end()) {
        deleting->second = true;
      } else {
        lease_call(env, ordinal, api::Verb::create);
      }
    }
    return;
  }
  const auto* remove = std::get_if<P::DeleteLeases>(&step);
  HASIM_ASSERT(remove != nullptr);
  for (const int ordinal : remove->ordinals) {
    if (leaseDeletes_.emplace(ordinal, false).second) lease_call(env, ordinal, api::Verb::delete_);
  }
}

// A member Lease created (without a holder, as memberlease.go does) or deleted. A failed call
// is not retried: the table sees the Lease as it is at the next step.
void DruidController::lease_call(Env& env, int ordinal, api::Verb verb) {
  HASIM_ASSERT(verb == api::Verb::create || verb == api::Verb::delete_);
  auto lease = std::make_shared<api::Object>();
  lease->key = api::ObjectKey{api::Kind::lease, config_.namespace_, member_name(ordinal)};
  const api::ObjectKey key = lease->key;
  const bool create = verb == api::Verb::create;
  api_->request(env, api_->new_context(), verb, key, create ? std::move(lease) : nullptr,
                [this, ordinal, create](Env& e, const api::Response&) {
                  if (create) return;
                  const auto it = leaseDeletes_.find(ordinal);
                  HASIM_ASSERT(it != leaseDeletes_.end());
                  const bool recreate = it->second;
                  leaseDeletes_.erase(it);
                  if (recreate) lease_call(e, ordinal, api::Verb::create);
                });
}

// Case 9 deletes the pods of entries NotReady past the grace period, once per NotReady spell
// (skip_recreated); case 10 deletes every pod of the cluster.
void DruidController::delete_pods(Env& env, const P::DeletePods& del, const EtcdStatus& status) {
  (void)env;
  if (del.which == P::MemberSelector::All) {
    for (int ordinal = 0; ordinal < del.count; ++ordinal) config_.deletePod(ordinal);
    return;
  }
  HASIM_ASSERT(del.which == P::MemberSelector::NotReadyPastGrace);
  for (const EtcdMemberStatus& m : status.members) {
    const bool past = m.status == MemberStatus::kNotReady &&
                      env.now() - m.last_transition_time > config_.proposal.notReadyGracePeriod;
    if (!past) continue;
    const auto deleted = deletedInSpell_.find(m.name);
    if (del.skip_recreated && deleted != deletedInSpell_.end() &&
        deleted->second == m.last_transition_time) {
      continue;
    }
    deletedInSpell_[m.name] = m.last_transition_time;
    config_.deletePod(member_ordinal(m.name));
  }
}

// Seed "PodDisruptionBudget": minAvailable toggles with BackupReady and AllMembersReady.
void DruidController::update_budget(Env& env, const P::DruidObservation& obs) {
  const std::optional<int> next = P::pdb_min_available(obs.desired_cluster_size, obs.members_ready,
                                                       obs.all_members_ready, obs.backup_ready);
  EtcdResource& etcd = *config_.etcd;
  if (next == etcd.proposalMinAvailable) return;
  etcd.proposalMinAvailable = next;
  env.trace(trace_kind::kPdb, {{"min_available", std::int64_t{next.value_or(0)}},
                               {"exists", next.has_value() ? "true" : "false"}});
  config_.budgetChanged();
}

// A spec change that changes the pod template (a new image) waits for AllMembersReady and
// BackupReady; scaling goes through the table (cases 11, 12) without touching the template.
bool DruidController::proposal_reconcile(Env& env) {
  const EtcdResource& etcd = *config_.etcd;
  HASIM_ASSERT(proposal() && reconciled_);
  // Hibernation and waking run upstream's components: the table has no row for them.
  if (etcd.replicas == 0 || config_.statefulSet().replicas == 0) return false;
  if (etcd.image == appliedImage_) return true;
  specDeferred_ = true;
  env.trace(trace_kind::kSpecRollout, {{"generation", etcd.generation}, {"outcome", "pending"}});
  return true;
}

void DruidController::roll_out_when_healthy(Env& env, const P::DruidObservation& obs) {
  if (!specDeferred_ || !pendingSteps_.empty() || !P::may_roll_out_spec_change(obs)) return;
  EtcdResource& etcd = *config_.etcd;
  specDeferred_ = false;
  appliedRevision_ = template_revision(config_.etcdName, etcd);
  appliedImage_ = etcd.image;
  env.trace(trace_kind::kSpecRollout, {{"generation", etcd.generation}, {"outcome", "applied"}});
  config_.applyStatefulSet(config_.statefulSet().replicas, appliedRevision_,
                           etcd.unpullableImages.contains(etcd.image));
}

// What the API server now holds, for the sidecars' reads.
void DruidController::publish_status(const EtcdStatus& status) {
  EtcdStatusView view;
  view.clusterSize = status.cluster_size;
  for (const EtcdMemberStatus& m : status.members) {
    view.members.push_back({m.name, m.id, m.status == MemberStatus::kReady});
  }
  for (const Condition& c : status.conditions) {
    if (c.type != ConditionType::kReady || c.status == ConditionStatus::kUnknown) continue;
    view.ready = c.status == ConditionStatus::kTrue;
  }
  config_.etcd->status = std::move(view);
}

}  // namespace hasim::druid
