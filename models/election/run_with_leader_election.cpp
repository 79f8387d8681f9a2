#include "models/election/run_with_leader_election.hpp"

#include "models/election/identity.hpp"
#include "models/election/object_lock.hpp"
#include "models/election/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim::election {
RunWithLeaderElection::RunWithLeaderElection(RunWithLeaderElectionConfig config)
    : config_(std::move(config)) {
  config_.election.releaseOnCancel = true;
  config_.election.coordinated = false;
  config_.election.name = std::string(kElectionControllerLease);
}

RunWithLeaderElection::~RunWithLeaderElection() = default;

void RunWithLeaderElection::on_start(Env& env) {
  identity_ = lock_identity(config_.hostname, env.rng());
  HASIM_ASSERT(!validate(config_.election, identity_).has_value());
  api::ApiClientConfig client;
  client.apiservers = {config_.loopback};
  client.user = identity_;
  client.timer_tags = env.tag_space("cle-client");  // the loopback client sets no timeout
  client_ = std::make_unique<api::ApiClient>(std::move(client));
  // Each campaign's elector and controller are new objects on the same spaces: one at a time.
  elector_tags_ = env.tag_space("cle-elector");
  until_tags_ = env.tag_space("cle-until");
  controller_config_ = ElectionControllerConfig{
      config_.options, env.tag_space("cle-queue"), env.tag_space("cle-lease-informer"),
      env.tag_space("cle-candidate-informer"), env.tag_space("cle-gc")};
  lock_ = std::make_unique<ObjectLock>(
      api::ObjectKey{api::Kind::lease, "kube-system", std::string(kElectionControllerLease)},
      identity_, *client_);
  campaign(env);
}

void RunWithLeaderElection::campaign(Env& env) {
  if (elector_transport_) elector_transport_->cancel_all(env);  // the old elector still exists
  LeaderCallbacks callbacks;
  callbacks.onStartedLeading = [this](Env& e) {
    controller_ = std::make_unique<ElectionController>(controller_config_, *client_);
    e.trace(trace_kind::kCleControllerStart, {{"identity", identity_}});
    controller_->run(e);
  };
  callbacks.onLeadingContextDone = [this](Env& e) {
    controller_->stop(e);
    controller_.reset();
    e.trace(trace_kind::kCleControllerStop, {{"identity", identity_}});
  };
  callbacks.onStoppedLeading = [this](Env& e) {
    if (stopped_) return stopped_(e);
    until_timer_ = e.set_timer(config_.election.retryPeriod, until_tags_.tag());  // wait.Until
  };
  elector_.reset();
  elector_transport_ = std::make_unique<api::ScopedTransport>(*client_);
  elector_ = std::make_unique<LeaderElector>(config_.election, *lock_, *elector_transport_,
                                             std::move(callbacks), elector_tags_);
  elector_->run(env);
}

void RunWithLeaderElection::on_message(Env& env, const Message& message) {
  const bool handled = client_->on_message(env, message);
  HASIM_ASSERT(handled);
}

void RunWithLeaderElection::on_timer(Env& env, std::uint64_t tag) {
  if (tag == until_tags_.tag()) {
    until_timer_.reset();
    return campaign(env);  // the old elector has returned; replacing it here is safe
  }
  if (client_->on_timer(env, tag) || elector_->on_timer(env, tag)) return;
  const bool handled = controller_ != nullptr && controller_->on_timer(env, tag);
  HASIM_ASSERT(handled);
}

void RunWithLeaderElection::on_terminate(Env& env, std::function<void(Env&)> stopped) {
  stopped_ = std::move(stopped);
  if (until_timer_.has_value() || !elector_->running()) {
    if (until_timer_.has_value()) env.cancel_timer(*until_timer_);
    return stopped_(env);
  }
  elector_->cancel(env);  // releases the lease if held; OnStoppedLeading then calls stopped_
}

}  // namespace hasim::election
