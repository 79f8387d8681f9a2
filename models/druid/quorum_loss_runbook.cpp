#include "models/druid/quorum_loss_runbook.hpp"

#include <utility>

#include "models/druid/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim::druid {

std::string_view name(RunbookStep step) {
  switch (step) {
    case RunbookStep::kSuspend:
      return "suspend-reconcile";
    case RunbookStep::kScaleToZero:
      return "scale-to-0";
    case RunbookStep::kDeleteClaims:
      return "delete-pvcs";
    case RunbookStep::kDeleteLeases:
      return "delete-member-leases";
    case RunbookStep::kEditConfigMap:
      return "configmap-one-member";
    case RunbookStep::kScaleToOne:
      return "scale-to-1";
    case RunbookStep::kResume:
      return "resume-reconcile";
    case RunbookStep::kDone:
      return "done";
  }
  return "?";
}

RunbookStep next(RunbookStep step) {
  if (step == RunbookStep::kDone) return step;
  return static_cast<RunbookStep>(static_cast<std::uint8_t>(step) + 1);
}

QuorumLossRunbook::QuorumLossRunbook(QuorumLossRunbookConfig config) : config_(std::move(config)) {
  const RunbookHooks& h = config_.hooks;
  HASIM_ASSERT(h.suspendSpecReconcile && h.scaleStatefulSet && h.podsLeft && h.deleteClaims);
  HASIM_ASSERT(h.setConfigMapClusterSize && h.podReady && h.replicas && h.requestReconcile);
  HASIM_ASSERT(config_.pollPeriod.ns > 0 && config_.waitLimit.ns >= config_.pollPeriod.ns);
}

QuorumLossRunbook::~QuorumLossRunbook() = default;

// The operator starts at once: the fault's time is when they begin the runbook.
void QuorumLossRunbook::on_start(Env& env) {
  tags_ = env.tag_space("quorum-loss-runbook");
  config_.apiserver.timer_tags = env.tag_space("api-client");
  api_ = std::make_unique<api::ApiClient>(config_.apiserver);
  step_ = RunbookStep::kSuspend;
  run_step(env);
}

// One command; a step that waits for the cluster polls until waiting_done().
void QuorumLossRunbook::run_step(Env& env) {
  RunbookHooks& h = config_.hooks;
  waitingSince_ = env.now();
  switch (step_) {
    case RunbookStep::kSuspend:
      h.suspendSpecReconcile(true);
      return step_done(env, "");
    case RunbookStep::kScaleToZero:
      h.scaleStatefulSet(0);
      return poll(env);
    case RunbookStep::kDeleteClaims:
      h.deleteClaims();
      return step_done(env, "");
    case RunbookStep::kDeleteLeases:
      return delete_leases(env);
    case RunbookStep::kEditConfigMap:
      h.setConfigMapClusterSize(1);
      return step_done(env, "initial-cluster " + config_.etcdName + "-0");
    case RunbookStep::kScaleToOne:
      h.scaleStatefulSet(1);
      return poll(env);
    case RunbookStep::kResume:
      h.suspendSpecReconcile(false);
      h.requestReconcile();
      return poll(env);
    case RunbookStep::kDone:
      break;
  }
  HASIM_ASSERT(false && "the runbook has ended");
}

// The conditions of steps 02, 07 and 09.
bool QuorumLossRunbook::waiting_done() const {
  const RunbookHooks& h = config_.hooks;
  switch (step_) {
    case RunbookStep::kScaleToZero:
      return h.podsLeft() == 0;
    case RunbookStep::kScaleToOne:
      return h.podReady(0);
    case RunbookStep::kResume: {
      const int replicas = h.replicas();
      for (int ordinal = 0; ordinal < replicas; ++ordinal) {
        if (!h.podReady(ordinal)) return false;
      }
      return true;
    }
    default:
      break;
  }
  HASIM_ASSERT(false && "a step that does not wait");
  return true;
}

void QuorumLossRunbook::poll(Env& env) {
  if (waiting_done()) return step_done(env, "");
  if (env.now() - waitingSince_ >= config_.waitLimit) {
    return give_up(env, "still waiting after " + format_duration(config_.waitLimit));
  }
  env.set_timer(config_.pollPeriod, tags_.tag(kPoll));
}

// kubectl delete lease etcd-main-0 ...: one request each; NotFound is as good as deleted.
// A failure repeats the whole command after a poll period, at most three times.
void QuorumLossRunbook::delete_leases(Env& env) {
  const int replicas = config_.hooks.replicas();
  HASIM_ASSERT(replicas >= 1);
  auto left = std::make_shared<int>(replicas);
  auto failed = std::make_shared<bool>(false);
  for (int ordinal = 0; ordinal < replicas; ++ordinal) {
    const api::ObjectKey key{api::Kind::lease, config_.namespace_,
                             config_.etcdName + "-" + std::to_string(ordinal)};
    api_->request(env, api_->new_context(), api::Verb::delete_, key, nullptr,
                  [this, left, failed, replicas](Env& e, const api::Response& response) {
                    const bool ok = api::is_success(response.status) ||
                                    response.status == api::Status::not_found;
                    *failed = *failed || !ok;
                    if (--*left > 0) return;
                    if (!*failed) return step_done(e, std::to_string(replicas) + " leases");
                    if (++leaseFailures_ >= 3) return give_up(e, "the Lease deletes keep failing");
                    e.set_timer(config_.pollPeriod, tags_.tag(kStep));
                  });
  }
}

void QuorumLossRunbook::step_done(Env& env, std::string detail) {
  HASIM_ASSERT(step_ != RunbookStep::kDone);
  env.trace(trace_kind::kRunbook, {{"step", std::string(name(step_))}, {"detail", detail}});
  step_ = next(step_);
  if (step_ == RunbookStep::kDone) return;
  env.set_timer(config_.stepDelay, tags_.tag(kStep));
}

void QuorumLossRunbook::give_up(Env& env, std::string why) {
  env.trace(trace_kind::kRunbook,
            {{"step", std::string(name(step_))}, {"detail", "gave up: " + why}});
  step_ = RunbookStep::kDone;
}

void QuorumLossRunbook::on_message(Env& env, ProcessId, const Message& message) {
  if (api_ != nullptr) api_->on_message(env, message);
}

void QuorumLossRunbook::on_timer(Env& env, TimerId, std::uint64_t tag) {
  if (api_ != nullptr && api_->on_timer(env, tag)) return;
  HASIM_ASSERT(tags_.owns(tag));
  if (step_ == RunbookStep::kDone) return;
  if (tags_.local(tag) == kPoll) return poll(env);
  run_step(env);
}

}  // namespace hasim::druid
