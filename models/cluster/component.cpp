#include "models/cluster/component.hpp"

#include "models/apiserver/trace_kinds.hpp"
#include "models/cluster/trace_kinds.hpp"
#include "models/election/coordinated_election.hpp"
#include "models/election/identity.hpp"
#include "models/election/multi_lock.hpp"
#include "models/election/object_lock.hpp"
#include "sim/assert.hpp"

namespace hasim::cluster {
std::unique_ptr<election::ResourceLock> make_resource_lock(const std::string& lock_type,
                                                          const std::string& namespace_,
                                                          const std::string& name,
                                                          const std::string& identity,
                                                          api::ApiTransport& transport) {
  auto object_lock = [&](api::Kind kind) {
    return std::make_unique<election::ObjectLock>(api::ObjectKey{kind, namespace_, name}, identity,
                                                  transport);
  };
  if (lock_type == election::kLeasesLock) return object_lock(api::Kind::lease);
  if (lock_type == election::kEndpointsLock) return object_lock(api::Kind::endpoints);
  if (lock_type == election::kConfigMapsLock) return object_lock(api::Kind::config_map);
  if (lock_type == election::kEndpointsLeasesLock) {
    return std::make_unique<election::MultiLock>(object_lock(api::Kind::endpoints),
                                                 object_lock(api::Kind::lease));
  }
  HASIM_ASSERT(lock_type == election::kConfigMapsLeasesLock);  // the loader checked
  return std::make_unique<election::MultiLock>(object_lock(api::Kind::config_map),
                                               object_lock(api::Kind::lease));
}

Duration default_client_timeout(Duration renewDeadline) {
  const Duration half{renewDeadline.ns / 2};
  return half > seconds(1) ? half : seconds(1);
}

Component::Component(ComponentConfig config) : config_(std::move(config)) {
  if (config_.lease_name.empty()) config_.lease_name = config_.component;
  if (config_.election.name.empty()) config_.election.name = config_.lease_name;
  if (config_.emulation.empty()) config_.emulation = config_.version;
  config_.election.coordinated = config_.coordinated;
  HASIM_ASSERT(!config_.coordinated || config_.lock_type == election::kLeasesLock);
}

Component::~Component() = default;

void Component::trace_start(Env& env) const {
  if (!config_.load_balanced) {
    // Only its own node's kube-apiserver (kubeadm's local endpoint), as skew-policy assumes
    // when "apiservers" is absent; the event is as it always was, so old replays reproduce.
    env.trace(api::trace_kind::kComponentStart, {{"component", config_.component},
                                                 {"version", config_.version},
                                                 {"emulation", config_.emulation},
                                                 {"identity", identity_},
                                                 {"lease", lease()},
                                                 {"coordinated", config_.coordinated}});
    return;
  }
  // Behind a load balancer: every kube-apiserver it may send requests to, for skew-policy.
  std::string apiservers;
  for (const std::string& a : config_.apiservers) {
    apiservers += (apiservers.empty() ? "" : ",") + a;
  }
  env.trace(api::trace_kind::kComponentStart, {{"component", config_.component},
                                               {"version", config_.version},
                                               {"emulation", config_.emulation},
                                               {"identity", identity_},
                                               {"lease", lease()},
                                               {"coordinated", config_.coordinated},
                                               {"apiservers", std::move(apiservers)}});
}

void Component::on_start(Env& env) {
  identity_ = election::lock_identity(config_.node, env.rng());
  HASIM_ASSERT(!election::validate(config_.election, identity_).has_value());
  api::ApiClientConfig client;
  client.apiservers = config_.apiservers;
  client.load_balanced = config_.load_balanced;
  client.health = config_.lb_health;
  client.timeout =
      config_.client_timeout.value_or(default_client_timeout(config_.election.renewDeadline));
  if (config_.election.renewRequests == election::RenewRequests::unbounded) {
    // Up to 1.11 KCM and the scheduler built the leader-election clientset from the
    // kubeconfig without a Timeout (kubernetes#65094 added one in 1.12): none.
    HASIM_ASSERT(!config_.client_timeout.has_value());  // the loader rejects both
    client.timeout = Duration{};
  }
  client.user = identity_;
  client.timer_tags = env.tag_space("client");
  client_ = std::make_unique<api::ApiClient>(std::move(client));
  lock_ = make_resource_lock(config_.lock_type, config_.lease_namespace, config_.lease_name,
                             identity_, *client_);
  election::LeaderCallbacks callbacks;
  callbacks.onStartedLeading = [this](Env& e) {
    acting_ = true;
    e.trace(trace_kind::kActingStart, {{"lease", lease()},
                                       {"identity", identity_},
                                       {"component", config_.component},
                                       {"version", config_.version},
                                       {"emulation", config_.emulation}});
    if (config_.work_interval.ns > 0) work(e);
  };
  callbacks.onLeadingContextDone = [this](Env& e) {
    acting_ = false;
    if (work_timer_.has_value()) e.cancel_timer(*work_timer_);
    work_timer_.reset();
    e.trace(trace_kind::kActingEnd, {{"lease", lease()}, {"identity", identity_}});
  };
  callbacks.onStoppedLeading = [this](Env& e) {
    e.exit(terminating_ && config_.exit_zero_when_terminated ? 0 : 1);
  };
  callbacks.onNewLeader = [this](Env& e, const std::string& holder) {
    e.trace(trace_kind::kNewLeader, {{"lease", lease()}, {"holder", holder}});
  };
  elector_ = std::make_unique<election::LeaderElector>(
      config_.election, *lock_, *client_, std::move(callbacks), env.tag_space("elector"));
  work_tags_ = env.tag_space("work");
  trace_start(env);
  if (config_.coordinated) {
    // KCM and the scheduler: NewCandidate(kube-system, identity, <component lease>, binary,
    // emulation, OldestEmulationVersion), run beside leader election.
    election::CandidateConfig candidate;
    candidate.namespace_ = config_.lease_namespace;
    candidate.name = identity_;
    candidate.leaseName = config_.lease_name;
    candidate.binaryVersion = config_.version;
    candidate.emulationVersion = config_.emulation;
    candidate.strategy = std::string(election::kOldestEmulationVersion);
    candidate.priority = config_.priority;
    candidate.requeueInterval = config_.candidate_renew_interval;
    candidate.queue_tags = env.tag_space("candidate-queue");
    candidate.informer_tags = env.tag_space("candidate-informer");
    candidate_ = std::make_unique<election::LeaseCandidate>(std::move(candidate), *client_);
    candidate_->run(env);
  }
  elector_->run(env);
}

void Component::work(Env& env) {
  work_timer_ = env.set_timer(config_.work_interval, work_tags_.tag());
  // One reconcile write: an unconditional update (no resourceVersion), as controllers that
  // own an object write it.
  auto object = std::make_shared<api::Object>();
  object->key =
      api::ObjectKey{api::Kind::config_map, config_.lease_namespace, config_.component + "-work"};
  object->data["writer"] = identity_;
  client_->request(env, client_->new_context(), api::Verb::update, object->key, object,
                   [](Env&, const api::Response&) {});
}

void Component::on_message(Env& env, ProcessId from, const Message& message) {
  HASIM_ASSERT(client_ != nullptr);
  if (message_as<ConnectionClosed>(*message) != nullptr) {
    return client_->on_connection_closed(env, from);
  }
  client_->on_message(env, message);
}

void Component::on_timer(Env& env, TimerId /*timer*/, std::uint64_t tag) {
  if (client_->on_timer(env, tag)) return;
  if (elector_->on_timer(env, tag)) return;
  if (candidate_ != nullptr && candidate_->on_timer(env, tag)) return;
  HASIM_ASSERT(tag == work_tags_.tag());
  work_timer_.reset();
  if (acting_) work(env);
}

void Component::on_terminate(Env& env) {
  terminating_ = true;
  elector_->cancel(env);  // Run's ctx ends; OnStoppedLeading exits the process
}

}  // namespace hasim::cluster
