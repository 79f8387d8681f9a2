#include "models/druid/druid_controller.hpp"

#include <algorithm>
#include <memory>
#include <utility>

#include "models/druid/sidecar_cron.hpp"
#include "models/druid/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim::druid {

namespace {

// A failed reconcile is requeued (controller-runtime's rate limiter starts at 5 ms and
// doubles; druid's component errors requeue the Etcd): hasim retries every 5 s.
constexpr Duration kReconcileRetry = seconds(5);

// How druid's client read one object: found, not found, or any other error.
ObjectRead read_of(const api::Response& response) {
  if (response.status == api::Status::not_found) return ObjectRead::kNotFound;
  if (!api::is_success(response.status) || response.object == nullptr) return ObjectRead::kError;
  return ObjectRead::kFound;
}

}  // namespace

DruidController::DruidController(DruidControllerConfig config) : config_(std::move(config)) {
  HASIM_ASSERT(config_.etcd != nullptr && config_.etcd->replicas >= 0 && !config_.etcdName.empty());
  HASIM_ASSERT(config_.applyStatefulSet != nullptr && config_.podContainersReady != nullptr);
  HASIM_ASSERT(!proposal() || (config_.statefulSet != nullptr && config_.deletePod != nullptr &&
                               config_.budgetChanged != nullptr));
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
// The snapshot Leases follow (snapshotlease.go Sync: both created without a holder while a
// backup store is configured); hasim waits for all of them before the StatefulSet, as the
// components run in that order.
void DruidController::reconcile(Env& env) {
  const EtcdResource& etcd = *config_.etcd;
  if (etcd.suspendSpecReconcile) {
    // reconcile_spec.go shouldReconcileSpec: the event SpecReconciliationSkipped, nothing
    // synced; the status step runs on.
    env.trace(trace_kind::kSpecReconcileSkipped, {{"generation", etcd.generation}});
    return;
  }
  if (proposal() && reconciled_ && proposal_reconcile(env)) return;
  std::vector<std::string> leases;
  for (int ordinal = 0; ordinal < etcd.replicas; ++ordinal) leases.push_back(member_name(ordinal));
  if (config_.backup.has_value()) {
    leases.push_back(config_.backup->fullSnapshotLease);
    leases.push_back(config_.backup->deltaSnapshotLease);
  }
  auto round = std::make_shared<Round>(
      Round{static_cast<int>(leases.size()), false, etcd.replicas, etcd.generation});
  if (leases.empty()) return sync_config_and_set(*round);
  for (const std::string& name : leases) create_lease(env, name, round);
}

// configmap.go Sync (initial-cluster: one entry per replica), then statefulset.go Sync
// (createOrPatch with spec.replicas).
void DruidController::sync_config_and_set(const Round& round) {
  HASIM_ASSERT(round.replicas >= 0 && round.generation == config_.etcd->generation);
  EtcdResource& etcd = *config_.etcd;
  etcd.configMapClusterSize = round.replicas;
  // The seed's clusterSize before bootstrap is spec.replicas, written before the set exists
  // (the sidecars' initialization table reads it).
  if (proposal() && members_.empty() && round.replicas > 0) {
    clusterSize_ = round.replicas;
    etcd.status.clusterSize = round.replicas;
  }
  appliedRevision_ = template_revision(config_.etcdName, etcd);
  appliedImage_ = etcd.image;
  config_.applyStatefulSet(round.replicas, appliedRevision_,
                           etcd.unpullableImages.contains(etcd.image));
  reconciled_ = true;
}

void DruidController::create_lease(Env& env, const std::string& name,
                                   std::shared_ptr<Round> round) {
  auto lease = std::make_shared<api::Object>();
  lease->key = api::ObjectKey{api::Kind::lease, config_.namespace_, name};
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
  // controller-runtime reconciles one Etcd at a time: a step whose reads or patch still wait
  // (an apiserver that does not answer) holds the next one back.
  if (!reconciled_ || statusBusy_) return;
  statusBusy_ = true;
  auto reads = std::make_shared<StatusReads>();
  reads->replicas = config_.etcd->replicas;
  reads->ordinals = reads->replicas;
  // The table also judges entries beyond spec.replicas (a scale-down's, case 13) and a set
  // that is still larger.
  if (proposal()) {
    reads->ordinals = std::max(reads->ordinals, config_.statefulSet().replicas);
    for (const EtcdMemberStatus& m : members_) {
      const int ordinal = member_ordinal(m.name);
      reads->ordinals = std::max(reads->ordinals, ordinal + 1);
    }
  }
  reads->members.resize(reads->ordinals);
  const bool backup = config_.backup.has_value();
  reads->pending = reads->ordinals + (backup ? 2 : 0);
  if (reads->pending == 0) return write_status(env, *reads);
  for (int ordinal = 0; ordinal < reads->ordinals; ++ordinal) read_lease(env, ordinal, reads);
  if (!backup) return;
  read_snapshot_lease(env, config_.backup->fullSnapshotLease, true, reads);
  read_snapshot_lease(env, config_.backup->deltaSnapshotLease, false, reads);
}

void DruidController::read_lease(Env& env, int ordinal, std::shared_ptr<StatusReads> reads) {
  const api::ObjectKey key{api::Kind::lease, config_.namespace_, member_name(ordinal)};
  api_->request(env, api_->new_context(), api::Verb::get, key, nullptr,
                [this, ordinal, reads](Env& e, const api::Response& response) {
                  MemberLeaseObservation& obs = reads->members[ordinal];
                  obs.name = member_name(ordinal);
                  obs.read = read_of(response);
                  if (obs.read == ObjectRead::kFound) {
                    obs.holder_identity = response.object->lease.holderIdentity;
                    obs.renew_time = response.object->lease.renewTime;
                    obs.pod = config_.podContainersReady(ordinal);
                  }
                  if (--reads->pending == 0) write_status(e, *reads);
                });
}

void DruidController::read_snapshot_lease(Env& env, const std::string& name, bool full,
                                          std::shared_ptr<StatusReads> reads) {
  const api::ObjectKey key{api::Kind::lease, config_.namespace_, name};
  api_->request(env, api_->new_context(), api::Verb::get, key, nullptr,
                [this, full, reads](Env& e, const api::Response& response) {
                  SnapshotLease& lease = full ? reads->full : reads->delta;
                  lease.read = read_of(response);
                  if (lease.read == ObjectRead::kFound) {
                    lease.renew_time = response.object->lease.renewTime;
                    lease.creation_timestamp = response.object->creationTimestamp;
                  }
                  if (--reads->pending == 0) write_status(e, *reads);
                });
}

// check_backup_ready.go's inputs: the schedule's interval is the gap between its next two
// activations after now (utils.ComputeScheduleInterval).
std::optional<BackupReadyVerdict> DruidController::backup_ready(const StatusReads& reads,
                                                                LocalTime now) const {
  if (!config_.backup.has_value()) return std::nullopt;
  BackupReadyInput input;
  input.delta_snapshot_period = config_.backup->deltaSnapshotPeriod;
  if (config_.backup->fullSnapshotSchedule.has_value()) {
    input.full_snapshot_schedule.state = FullSnapshotSchedule::State::kInvalid;
    const auto cron = sidecar::parse_cron(*config_.backup->fullSnapshotSchedule);
    const auto first = cron ? sidecar::cron_next(*cron, now) : std::nullopt;
    const auto second = first ? sidecar::cron_next(*cron, *first) : std::nullopt;
    if (second.has_value()) {
      input.full_snapshot_schedule = {FullSnapshotSchedule::State::kParsed, *second - *first};
    }
  }
  input.full_snapshot_lease = reads.full;
  input.delta_snapshot_lease = reads.delta;
  input.previous_conditions = conditions_;
  return check_backup_ready(input, now);
}

void DruidController::trace_members(Env& env, const std::vector<EtcdMemberStatus>& members) const {
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
}

// reconcile_status.go: the member statuses, then the conditions over them, patched into the
// Etcd's status. Only a status the API server took is what users see and what the next step
// starts from: a failed patch changes nothing (upstream requeues; hasim's next sync computes
// again), and only changes reach the trace.
void DruidController::write_status(Env& env, const StatusReads& reads) {
  const LocalTime now = env.now();
  auto status = std::make_shared<EtcdStatus>();
  status->computed = now;
  if (proposal()) {
    proposal_status(env, reads, *status);
    return patch_status(env, std::move(status), false);
  }
  status->members = compute_member_statuses(reads.members, members_, now, config_.thresholds);
  std::vector<ConditionResult> results{check_all_members_ready(status->members, reads.replicas),
                                       check_ready(status->members),
                                       check_cluster_id_mismatch(status->members, reads.members)};
  // Checked also while hibernated, where the builder keeps only its status (NotChecked).
  if (const auto backup = backup_ready(reads, now)) results.push_back(backup->result);
  status->conditions = build_conditions(results, conditions_, reads.replicas, now);
  patch_status(env, std::move(status), false);
}

// The status subresource's update, unconditional as a merge patch is; the Etcd object is
// created the first time (the user's Etcd, which hasim keeps outside the API server).
void DruidController::patch_status(Env& env, std::shared_ptr<EtcdStatus> status, bool create) {
  auto object = std::make_shared<api::Object>();
  object->key = api::ObjectKey{api::Kind::etcd, config_.namespace_, config_.etcdName};
  const api::ObjectKey key = object->key;
  api_->request(env, api_->new_context(), create ? api::Verb::create : api::Verb::update, key,
                std::move(object), [this, status, create](Env& e, const api::Response& response) {
                  if (!create && response.status == api::Status::not_found) {
                    return patch_status(e, status, true);
                  }
                  statusBusy_ = false;
                  if (!api::is_success(response.status)) return;
                  commit_status(e, *status);
                });
}

void DruidController::commit_status(Env& env, EtcdStatus& status) {
  publish_status(status);
  trace_members(env, status.members);
  members_ = std::move(status.members);
  for (const Condition& c : status.conditions) {
    if (c.last_transition_time != status.computed) continue;
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
  conditions_ = std::move(status.conditions);
  clusterSize_ = status.cluster_size;
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
