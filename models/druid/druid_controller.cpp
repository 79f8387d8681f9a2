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
  HASIM_ASSERT(config_.replicas >= 0 && !config_.etcdName.empty());
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

// The components in druid's order: the member Leases come before the StatefulSet, so a
// sidecar never renews a Lease that does not exist.
void DruidController::reconcile(Env& env) {
  auto round = std::make_shared<Round>(Round{config_.replicas, false});
  if (config_.replicas == 0) {
    config_.applyStatefulSet(0);
    reconciled_ = true;
    return;
  }
  for (int ordinal = 0; ordinal < config_.replicas; ++ordinal) create_lease(env, ordinal, round);
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
                  // A failed component requeues the whole reconcile.
                  if (round->failed)
                    return (void)e.set_timer(kReconcileRetry, tags_.tag(kReconcile));
                  config_.applyStatefulSet(config_.replicas);
                  reconciled_ = true;
                });
}

void DruidController::status_step(Env& env) {
  env.set_timer(config_.statusSyncPeriod, tags_.tag(kStatus));
  if (!reconciled_ || config_.replicas == 0) return;
  auto seen = std::make_shared<std::vector<MemberLeaseObservation>>(config_.replicas);
  auto pending = std::make_shared<int>(config_.replicas);
  for (int ordinal = 0; ordinal < config_.replicas; ++ordinal) {
    read_lease(env, ordinal, seen, pending);
  }
}

void DruidController::read_lease(Env& env, int ordinal,
                                 std::shared_ptr<std::vector<MemberLeaseObservation>> seen,
                                 std::shared_ptr<int> pending) {
  const api::ObjectKey key{api::Kind::lease, config_.namespace_, member_name(ordinal)};
  api_->request(env, api_->new_context(), api::Verb::get, key, nullptr,
                [this, ordinal, seen, pending](Env& e, const api::Response& response) {
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
                  if (--*pending == 0) write_status(e, *seen);
                });
}

// reconcile_status.go: the member statuses, then the conditions over them; only changes
// reach the trace.
void DruidController::write_status(Env& env, const std::vector<MemberLeaseObservation>& leases) {
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
  members_ = std::move(members);
  const std::vector<ConditionResult> results{check_all_members_ready(members_, config_.replicas),
                                             check_ready(members_),
                                             check_cluster_id_mismatch(members_, leases)};
  std::vector<Condition> conditions = build_conditions(results, conditions_, config_.replicas, now);
  for (const Condition& c : conditions) {
    if (c.last_transition_time != now) continue;
    env.trace(trace_kind::kCondition, {{"type", std::string(name(c.type))},
                                       {"status", std::string(name(c.status))},
                                       {"reason", std::string(name(c.reason))}});
  }
  conditions_ = std::move(conditions);
}

void DruidController::on_message(Env& env, ProcessId, const Message& message) {
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
