#pragma once
// A CloudCore (models/cloudcore/) driven by hand against an in-memory apiserver, for the hot
// standby tests (test_cloudcore.cpp) and the active-active ones
// (test_cloudcore_active_active.cpp).
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fake_env.hpp"
#include "models/apiserver/messages.hpp"
#include "models/cloudcore/cloudcore.hpp"
#include "models/cloudcore/readiness.hpp"

namespace hasim::testing {

using cloudcore::CloudCore;
using cloudcore::CloudCoreConfig;
using cloudcore::CloudCoreMode;
using cloudcore::kLeaderGate;

inline api::Object gated_pod() {
  api::Object pod;
  pod.key = api::ObjectKey{api::Kind::pod, "kubeedge", "cloudcore-cc-1"};
  pod.pod.readinessGates = {std::string(kLeaderGate)};
  return pod;
}

// A CloudCore driven by hand; every request it sends to its apiserver is answered from an
// in-memory store, except pod updates, which answer `pod_update` when set.
struct CloudCoreRig {
  static constexpr ProcessId kApiServer = 7;
  explicit CloudCoreRig(CloudCoreMode mode, std::vector<std::string> edge_nodes = {}) : env(1) {
    env.processes["cp-1/kube-apiserver"] = kApiServer;
    CloudCoreConfig config;
    config.delivery.edge_nodes = std::move(edge_nodes);
    config.mode = mode;
    if (!cloudcore::is_hot_standby(mode)) {
      config.delivery.sync_read = cloudcore::SyncControllerRead::live_get_v1_7;
    }
    config.node = "cc-1";
    config.pod_name = "cloudcore-cc-1";
    config.apiservers = {"cp-1/kube-apiserver"};
    cloudcore = std::make_unique<CloudCore>(config);
    api::Object pod = gated_pod();
    pod.pod.conditions[std::string(kLeaderGate)] = "True";  // left by an earlier leader
    store[pod.key] = pod;
  }
  // Answers requests until none is left unanswered (bounded).
  void serve() {
    for (int round = 0; round < 100 && answered < env.sent.size(); ++round) {
      const SentMessage sent = env.sent[answered++];
      const auto* request = dynamic_cast<const api::Request*>(sent.message.get());
      if (request == nullptr || sent.to != kApiServer) continue;
      requests.push_back(std::string(api::to_string(request->verb)) + " " +
                         api::describe(request->key));
      auto response = std::make_shared<api::Response>();
      response->id = request->id;
      answer(*request, *response);
      if (after_answer) after_answer(*request);
      cloudcore->on_message(env, kApiServer, response);
    }
  }
  void answer(const api::Request& request, api::Response& response) {
    const auto it = store.find(request.key);
    if (request.verb == api::Verb::get) {
      response.status = it == store.end() ? api::Status::not_found : api::Status::ok;
      if (it != store.end()) response.object = std::make_shared<api::Object>(it->second);
      return;
    }
    if (request.verb == api::Verb::list || request.verb == api::Verb::watch) {
      // The delivery's informers (models/cloudcore/delivery.hpp): a list of the kind, and a
      // watch that stays quiet.
      for (const auto& [key, object] : store) {
        if (key.kind == request.key.kind) {
          response.items.push_back(std::make_shared<api::Object>(object));
        }
      }
      response.resourceVersion = revision;
      return;
    }
    const auto& refusal = request.key.kind == api::Kind::pod ? pod_update : lock_update;
    if (request.verb == api::Verb::update && refusal.has_value()) {
      response.status = *refusal;
      return;
    }
    if (request.verb == api::Verb::create && it != store.end()) {
      response.status = api::Status::already_exists;
      return;
    }
    if (request.verb == api::Verb::update && request.object->resourceVersion != 0 &&
        it != store.end() && it->second.resourceVersion != request.object->resourceVersion) {
      response.status = api::Status::conflict;  // a stale resourceVersion precondition
      return;
    }
    api::Object object = *request.object;
    object.resourceVersion = ++revision;
    store[request.key] = object;
    response.status = request.verb == api::Verb::create ? api::Status::created : api::Status::ok;
    response.object = std::make_shared<api::Object>(object);
  }
  std::string gate() const {
    return store.at(gated_pod().key).pod.conditions.at(std::string(kLeaderGate));
  }
  // Fires timers (with serve() after each) until `until` on the monotonic clock.
  void run_until(LocalTime until) {
    serve();
    while (env.next_deadline().has_value() && *env.next_deadline() <= until && env.exits.empty()) {
      const auto [timer, tag] = *env.advance_to_next_timer();
      cloudcore->on_timer(env, timer, tag);
      serve();
    }
  }
  FakeEnv env;
  std::unique_ptr<CloudCore> cloudcore;
  std::map<api::ObjectKey, api::Object> store;
  std::uint64_t revision = 10;
  std::size_t answered = 0;
  std::vector<std::string> requests;
  std::optional<api::Status> pod_update;
  std::optional<api::Status> lock_update;
  // Runs after each request is answered: another client's write between two of ours.
  std::function<void(const api::Request&)> after_answer;
};

}  // namespace hasim::testing
