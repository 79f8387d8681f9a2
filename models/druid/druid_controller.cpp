#include "models/druid/druid_controller.hpp"

#include <algorithm>
#include <memory>
#include <utility>

#include "models/druid/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim::druid {

namespace {

// A failed reconcile is requeued (controller-runtime's rate limiter starts at 5 ms and
// doubles; druid's component errors requeue the Etcd): hasim retries every 5 s.
constexpr Duration kReconcileRetry = seconds(5);

}  // namespace

DruidController::DruidController(DruidControllerConfig config) : config_(std::move(config)) {
  HASIM_ASSERT(config_.etcd != nullptr && config_.etcd->replicas >= 0 && !config_.etcdName.empty());
  HASIM_ASSERT(config_.applyStatefulSet != nullptr && config_.podContainersReady != nullptr);
}

DruidController::~DruidController() = default;

std::string DruidController::member_name(int ordinal) const {
  return config_.etcdName + "-" + std::to_string(ordinal);
}

void DruidController::on_start(Env& env) {
  tags_ = env.tag_space("etcd-druid");
  config_.apiserver.timer_tags = env.tag_space("api-client");
  api_ = std::make_unique<api::ApiClient>(config_.apiserver);
  reconcile(env);
  env.set_timer(config_.statusSyncPeriod, tags_.tag(kStatus));
}

// The components in druid's order (reconcile_spec.go getOrderedOperatorsForSync): the member
// Leases come before the ConfigMap and the StatefulSet, so a sidecar never renews a Lease
// that does not exist. memberlease.go's Sync creates or patches one Lease per ordinal below
// spec.replicas and deletes none: a hibernated Etcd keeps its Leases and their holders.
void DruidController::reconcile(Env& env) {
  const EtcdResource& etcd = *config_.etcd;
  auto round = std::make_shared<Round>(Round{etcd.replicas, false, etcd.replicas, etcd.generation});
  if (etcd.replicas == 0) return sync_config_and_set(*round);
  for (int ordinal = 0; ordinal < etcd.replicas; ++ordinal) create_lease(env, ordinal, round);
}

// configmap.go Sync (initial-cluster: one entry per replica), then statefulset.go Sync
// (createOrPatch with spec.replicas).
void DruidController::sync_config_and_set(const Round& round) {
  HASIM_ASSERT(round.replicas >= 0 && round.generation == config_.etcd->generation);
  EtcdResource& etcd = *config_.etcd;
  etcd.configMapClusterSize = round.replicas;
  config_.applyStatefulSet(round.replicas, template_revision(config_.etcdName, etcd),
                           etcd.unpullableImages.contains(etcd.image));
  reconciled_ = true;
}

void DruidController::create_lease(Env& env, int ordinal, std::shared_ptr<Round> round) {
  auto lease = std::make_shared<api::Object>();
  lease->key = api::ObjectKey{api::Kind::lease, config_.namespace_, member_name(ordinal)};
  const api::ObjectKey key = lease->key;
  api_->request(env, api_->new_context(), api::Verb::create, key, std::move(lease),
                [this, round](Env& e, const api::Response& response) {
                  const bool ok = api::is_success(response.status) ||
                                  response.status == api::Status::already_exists;
                  round->failed = round->failed || !ok;
                  if (--round->left > 0) return;
                  // A newer spec came meanwhile: its own reconcile is under way.
                  if (round->generation != config_.etcd->generation) return;
                  // A failed component requeues the whole reconcile.
                  if (round->failed)
                    return (void)e.set_timer(kReconcileRetry, tags_.tag(kReconcile));
                  sync_config_and_set(*round);
                });
}

// reconcile_status.go runs with every reconcile, also for a hibernated Etcd: no Lease is
// expected then (GetMemberLeaseNames of 0 replicas), so status.members empties and every
// condition reads NotChecked, keeping its status (condition/builder.go).
void DruidController::status_step(Env& env) {
  env.set_timer(config_.statusSyncPeriod, tags_.tag(kStatus));
  if (!reconciled_) return;
  const int replicas = config_.etcd->replicas;
  if (replicas == 0) return write_status(env, {}, 0);
  auto seen = std::make_shared<std::vector<MemberLeaseObservation>>(replicas);
  auto pending = std::make_shared<int>(replicas);
  for (int ordinal = 0; ordinal < replicas; ++ordinal) {
    read_lease(env, ordinal, seen, pending, replicas);
  }
}

void DruidController::read_lease(Env& env, int ordinal,
                                 std::shared_ptr<std::vector<MemberLeaseObservation>> seen,
                                 std::shared_ptr<int> pending, int replicas) {
  const api::ObjectKey key{api::Kind::lease, config_.namespace_, member_name(ordinal)};
  api_->request(env, api_->new_context(), api::Verb::get, key, nullptr,
                [this, ordinal, seen, pending, replicas](Env& e, const api::Response& response) {
                  MemberLeaseObservation& obs = (*seen)[ordinal];
                  obs.name = member_name(ordinal);
                  if (response.status == api::Status::not_found) {
                    obs.read = ObjectRead::kNotFound;
                  } else if (!api::is_success(response.status) || response.object == nullptr) {
                    obs.read = ObjectRead::kError;
                  } else {
                    obs.holder_identity = response.object->lease.holderIdentity;
                    obs.renew_time = response.object->lease.renewTime;
                    obs.pod = config_.podContainersReady(ordinal);
                  }
                  if (--*pending == 0) write_status(e, *seen, replicas);
                });
}

// reconcile_status.go: the member statuses, then the conditions over them; only changes
// reach the trace.
void DruidController::write_status(Env& env, const std::vector<MemberLeaseObservation>& leases,
                                   int replicas) {
  const LocalTime now = env.now();
  std::vector<EtcdMemberStatus> members =
      compute_member_statuses(leases, members_, now, config_.thresholds);
  for (const EtcdMemberStatus& m : members) {
    const auto before = std::find_if(members_.begin(), members_.end(),
                                     [&m](const EtcdMemberStatus& p) { return p.name == m.name; });
    const bool same = before != members_.end() && before->id == m.id &&
                      before->status == m.status && before->reason == m.reason &&
                      before->role == m.role;
    if (same) continue;  // only what a step changed reaches the trace
    env.trace(trace_kind::kMemberStatus,
              {{"member", m.name},
               {"id", m.id},
               {"role", m.role ? std::string(name(*m.role)) : std::string()},
               {"status", std::string(name(m.status))},
               {"reason", std::string(name(m.reason))}});
  }
  // A member no longer in status.members (hibernation empties the list): druid no longer
  // says anything of it.
  for (const EtcdMemberStatus& p : members_) {
    const bool kept = std::any_of(members.begin(), members.end(),
                                  [&p](const EtcdMemberStatus& m) { return m.name == p.name; });
    if (!kept) env.trace(trace_kind::kMemberStatus, {{"member", p.name}, {"status", "Absent"}});
  }
  members_ = std::move(members);
  const std::vector<ConditionResult> results{check_all_members_ready(members_, replicas),
                                             check_ready(members_),
                                             check_cluster_id_mismatch(members_, leases)};
  std::vector<Condition> conditions = build_conditions(results, conditions_, replicas, now);
  for (const Condition& c : conditions) {
    if (c.last_transition_time != now) continue;
    // While spec.replicas is 0 upstream moves every lastTransitionTime at each step, the status
    // kept (condition/builder.go): only a changed status or reason reaches the trace.
    const auto before = std::find_if(conditions_.begin(), conditions_.end(),
                                     [&c](const Condition& p) { return p.type == c.type; });
    if (before != conditions_.end() && before->status == c.status && before->reason == c.reason) {
      continue;
    }
    env.trace(trace_kind::kCondition, {{"type", std::string(name(c.type))},
                                       {"status", std::string(name(c.status))},
                                       {"reason", std::string(name(c.reason))}});
  }
  conditions_ = std::move(conditions);
}

void DruidController::on_message(Env& env, ProcessId, const Message& message) {
  if (message_as<EtcdSpecChanged>(*message) != nullptr) return reconcile(env);
  if (api_ != nullptr) api_->on_message(env, message);
}

void DruidController::on_timer(Env& env, TimerId, std::uint64_t tag) {
  if (api_ != nullptr && api_->on_timer(env, tag)) return;
  HASIM_ASSERT(tags_.owns(tag));
  switch (tags_.local(tag)) {
    case kReconcile:
      return reconcile(env);
    case kStatus:
      return status_step(env);
  }
  HASIM_ASSERT(false && "a timer the controller never set");
}

}  // namespace hasim::druid
