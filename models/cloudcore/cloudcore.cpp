#include "models/cloudcore/cloudcore.hpp"

#include "models/apiserver/trace_kinds.hpp"
#include "models/cloudcore/messages.hpp"
#include "models/cloudcore/readiness.hpp"
#include "models/cloudcore/trace_kinds.hpp"
#include "models/cluster/component.hpp"
#include "models/cluster/trace_kinds.hpp"
#include "models/election/identity.hpp"
#include "sim/assert.hpp"

namespace hasim::cloudcore {

std::string_view to_string(CloudCoreMode mode) {
  switch (mode) {
    case CloudCoreMode::v1_3:
      return "v1.3";
    case CloudCoreMode::v1_5:
      return "v1.5";
    case CloudCoreMode::v1_7_plus:
      return "v1.7+";
  }
  return "?";
}

election::LeaderElectionConfig default_election() {
  election::LeaderElectionConfig config;  // client-go's field defaults are CloudCore's
  config.name = "cloudcore";
  config.releaseOnCancel = false;
  return config;
}

CloudCore::CloudCore(CloudCoreConfig config) : config_(std::move(config)) {
  HASIM_ASSERT(!config_.pod_name.empty() && !config_.apiservers.empty());
  HASIM_ASSERT(config_.patch_retries >= 1);
}

CloudCore::~CloudCore() = default;

api::ObjectKey CloudCore::pod_key() const {
  return api::ObjectKey{api::Kind::pod, config_.pod_namespace, config_.pod_name};
}

void CloudCore::on_start(Env& env) {
  // makeLeaderElectionConfig: hostname + "_" + uuid.NewUUID().
  identity_ = election::lock_identity(config_.node, env.rng());
  HASIM_ASSERT(!election::validate(config_.election, identity_).has_value());
  api::ApiClientConfig client;
  client.apiservers = config_.apiservers;
  client.load_balanced = config_.load_balanced;
  client.timeout = Duration{};  // utils.KubeClient() builds its clientset without a Timeout
  client.user = identity_;
  client.timer_tags = env.tag_space("client");
  client_ = std::make_unique<api::ApiClient>(std::move(client));
  module_tags_ = env.tag_space("modules");
  keepalive_tags_ = env.tag_space("keepalive");
  if (!is_hot_standby(config_.mode)) return start_active_active(env);
  lock_ = cluster::make_resource_lock(config_.lock_type, config_.lease_namespace,
                                      config_.lease_name, identity_, *client_);
  election::LeaderCallbacks callbacks;
  callbacks.onStartedLeading = [this](Env& e) { started_leading(e); };
  // The modules run on beehive's context, not on the leading one: nothing stops here.
  callbacks.onLeadingContextDone = [](Env&) {};
  callbacks.onStoppedLeading = [this](Env& e) { stopped_leading(e); };
  elector_ = std::make_unique<election::LeaderElector>(
      config_.election, *lock_, *client_, std::move(callbacks), env.tag_space("elector"));
  patch_tags_ = env.tag_space("patch");
  env.trace(api::trace_kind::kComponentStart, {{"component", "cloudcore"},
                                               {"identity", identity_},
                                               {"lease", lease()},
                                               {"mode", std::string(to_string(config_.mode))},
                                               {"pod", config_.pod_name}});
  if (config_.mode == CloudCoreMode::v1_3) return elector_->run(env);
  // v1.5 Run: "Init podReadinessGate to false at the begin of Run"; the patch blocks Run,
  // its failure is only logged, and the election starts after it.
  patch_gate(env, kConditionFalse, "start", [this](Env& e, api::Status) {
    if (!shutting_down_) elector_->run(e);
  });
}

void CloudCore::patch_request(Env& env, api::Verb verb, std::shared_ptr<api::Object> pod,
                              api::ApiTransport::Callback done) {
  const api::ContextId context = client_->new_context();
  HASIM_ASSERT(patch_timers_.size() < 16);  // one patch at a time, plus its own cancellation
  patch_timers_[context] = env.set_timer(config_.patch_dial_timeout, patch_tags_.tag(context));
  client_->request(env, context, verb, pod_key(), std::move(pod),
                   [this, context, done](Env& e, const api::Response& answer) {
                     const auto it = patch_timers_.find(context);
                     if (it != patch_timers_.end()) {
                       e.cancel_timer(it->second);
                       patch_timers_.erase(it);
                     }
                     done(e, answer);
                   });
}

void CloudCore::patch_gate(Env& env, std::string_view status, std::string_view why,
                           PatchDone done) {
  HASIM_ASSERT(status == kConditionTrue || status == kConditionFalse);
  const std::string value(status);
  const std::string reason(why);
  patch_request(env, api::Verb::get, nullptr,
                [this, value, reason, done](Env& e, const api::Response& got) {
                  auto pod = std::make_shared<api::Object>();
                  if (api::is_success(got.status) && got.object != nullptr) {
                    *pod = *got.object;
                  } else {
                    // The GET's error is lost; the patch from an empty pod carries only the
                    // condition, onto the Deployment's pod (gate declared).
                    pod->key = pod_key();
                    pod->pod.readinessGates = {std::string(kLeaderGate)};
                  }
                  pod->pod.conditions[std::string(kLeaderGate)] = value;  // UpdatePodCondition
                  pod->resourceVersion = 0;  // the merge patch has no resourceVersion
                  patch_attempt(e, std::move(pod), 1, reason, done);
                });
}

void CloudCore::patch_attempt(Env& env, std::shared_ptr<api::Object> pod, int attempt,
                              std::string_view why, PatchDone done) {
  HASIM_ASSERT(attempt >= 1 && attempt <= config_.patch_retries);
  const std::string reason(why);
  patch_request(
      env, api::Verb::update, pod, [this, pod, attempt, reason, done](Env& e, const api::Response& answer) {
        // Retried only on Conflict, up to maxRetries attempts.
        if (answer.status == api::Status::conflict && attempt < config_.patch_retries) {
          return patch_attempt(e, pod, attempt + 1, reason, done);
        }
        e.trace(trace_kind::kGatePatch,
                {{"pod", config_.pod_name},
                 {"status", pod->pod.conditions.at(std::string(kLeaderGate))},
                 {"why", reason},
                 {"result", std::string(api::to_string(answer.status))}});
        done(e, answer.status);
      });
}

void CloudCore::started_leading(Env& env) {
  HASIM_ASSERT(!modules_started_);
  env.trace(cluster::trace_kind::kActingStart,
            {{"lease", lease()}, {"identity", identity_}, {"component", "cloudcore"}});
  start_modules(env);
  // Not waiting for the modules: the patch runs right after StartModules returns.
  patch_gate(env, kConditionTrue, "started-leading", [this](Env& e, api::Status status) {
    if (!api::is_success(status)) graceful_shutdown(e, "readiness gate patch failed");
  });
}

void CloudCore::start_modules(Env& env) {
  HASIM_ASSERT(!modules_started_ && !shutting_down_);
  // core.StartModules: `go module.Start()` for each; CloudHub's Start waits for its caches
  // (WaitForCacheSync) before StartCloudHub listens.
  modules_started_ = true;
  env.trace(trace_kind::kModulesStart, {{"identity", identity_}});
  delivery_ = std::make_unique<Delivery>(config_.delivery, *client_, env);
  delivery_->start(env);
  env.set_timer(config_.informer_sync, module_tags_.tag());
}

void CloudCore::stopped_leading(Env& env) {
  if (config_.mode == CloudCoreMode::v1_3) {
    return graceful_shutdown(env, "leaderelection lost");
  }
  // v1.5: "Reset PodReadinessGate to false if cloudcore stop", errors only logged. The
  // modules (CloudHub's sessions among them) keep running until the patch returns.
  patch_gate(env, kConditionFalse, "stopped-leading",
             [this](Env& e, api::Status) { graceful_shutdown(e, "leaderelection lost"); });
}

void CloudCore::graceful_shutdown(Env& env, std::string_view why) {
  // TriggerGracefulShutdown: a second trigger only logs "Program is in gracefully shutdown".
  if (shutting_down_) return;
  shutting_down_ = true;
  env.trace(trace_kind::kGracefulShutdown, {{"identity", identity_}, {"why", std::string(why)}});
  // core.GracefulShutdown cancels beehive's context and cleans each module up; Run returns
  // and main exits 0. The OS closes the edges' websockets (they get ConnectionClosed).
  while (!sessions_.empty()) close_session(env, sessions_.begin()->first, "shutdown", false);
  serving_ = false;
  env.exit(0);
}

void CloudCore::on_terminate(Env& env) { graceful_shutdown(env, "SIGTERM"); }

std::optional<std::string> CloudCore::readyz(Env& env) const {
  HASIM_ASSERT(is_hot_standby(config_.mode));  // v1.7 removed the route (commit 320132bf8)
  return readyz_check(elector_.get(), env, config_.readyz_timeout);
}

}  // namespace hasim::cloudcore
