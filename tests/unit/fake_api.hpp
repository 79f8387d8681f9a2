#pragma once
// An in-memory ApiTransport, the counterpart of client-go's fake clientset with reactors.
// It keeps objects with resourceVersions and answers like kube-apiserver (get of a missing
// key: not_found; create of an existing key: already_exists; update whose resourceVersion
// is stale: conflict; delete of a missing key: not_found; list: the kind's objects in the
// key's namespace, or in all namespaces when it is empty), synchronously, inside request().
// Every call is logged as "<verb> <resource>" ("get leases", "update configmaps"), the action
// strings client-go's tests compare. Scripted answers reproduce the reactors: the nth call of
// a verb can answer a given status without touching the store, or block until cancel(ctx)
// answers it with context_canceled. An optional latency moves the FakeEnv's clocks before
// each answer, as a real round trip takes time.
#include <climits>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/apiserver/client.hpp"
#include "fake_env.hpp"

namespace hasim::testing {

class FakeApi final : public api::ApiTransport {
 public:
  static constexpr int kAlways = INT_MAX;  // `times` for "this and every later call"

  struct Call {
    api::Verb verb = api::Verb::get;
    api::ObjectKey key;
    api::ContextId context = 0;
    LocalTime at;                       // the caller's monotonic clock when it was sent
    std::optional<api::Status> answer;  // nullopt while blocked
    std::string str() const { return std::string(api::to_string(verb)) + " " + resource(key.kind); }
  };

  explicit FakeApi(FakeEnv* clock = nullptr, Duration latency = {})
      : clock_(clock), latency_(latency) {}

  // client-go's resource names for the kinds.
  static std::string resource(api::Kind kind) {
    switch (kind) {
      case api::Kind::lease:
        return "leases";
      case api::Kind::endpoints:
        return "endpoints";
      case api::Kind::config_map:
        return "configmaps";
      case api::Kind::lease_candidate:
        return "leasecandidates";
      case api::Kind::pod:
        return "pods";
      case api::Kind::secret:
        return "secrets";
      case api::Kind::object_sync:
        return "objectsyncs";
      case api::Kind::node:
        return "nodes";
      case api::Kind::etcd:
        return "etcds";
    }
    return "?";
  }

  // --- the store ----------------------------------------------------------------------------
  void put(api::Object object) {
    object.resourceVersion = ++revision_;
    objects_[object.key] = std::move(object);
  }
  const api::Object* find(const api::ObjectKey& key) const {
    const auto it = objects_.find(key);
    return it == objects_.end() ? nullptr : &it->second;
  }

  // --- scripts (the reactors) ---------------------------------------------------------------
  // Calls nth .. nth+times-1 of `verb` (counted from 1 over all kinds) answer `status`.
  void answer(api::Verb verb, int nth, api::Status status, int times = 1) {
    scripts_.push_back({verb, nth, times, status});
  }
  // The nth call of `verb` is never answered until its context is cancelled.
  void block(api::Verb verb, int nth) { scripts_.push_back({verb, nth, 1, std::nullopt}); }
  // Runs when a call arrives, before it is answered (a reactor's side effect, e.g. cancel).
  std::function<void(Env&, const Call&, int nth)> on_request;

  // --- what was called ----------------------------------------------------------------------
  const std::vector<Call>& log() const { return log_; }
  std::vector<std::string> calls() const {
    std::vector<std::string> out;
    for (const Call& call : log_) out.push_back(call.str());
    return out;
  }
  std::size_t blocked() const { return blocked_.size(); }

  // --- ApiTransport -------------------------------------------------------------------------
  api::ContextId new_context() override { return next_context_++; }

  void request(Env& env, api::ContextId context, api::Verb verb, api::ObjectKey key,
               api::ObjectPtr object, Callback done) override {
    const std::size_t index = log_.size();
    log_.push_back({verb, key, context, env.monotonic_now(), std::nullopt});
    const int nth = ++counts_[verb];
    if (canceled_.count(context) != 0) {  // a done context fails before anything is sent
      return finish(env, index, {api::Status::context_canceled, nullptr}, done);
    }
    if (on_request) on_request(env, Call(log_[index]), nth);  // a copy: the hook may call again
    std::optional<api::Status> scripted;
    for (const Script& script : scripts_) {
      if (script.verb != verb || nth < script.first || nth - script.first >= script.times) {
        continue;
      }
      if (!script.status.has_value()) {
        blocked_.emplace(index, Blocked{context, std::move(done)});
        return;
      }
      scripted = script.status;
      break;
    }
    if (clock_ != nullptr) clock_->advance(latency_);
    if (scripted.has_value()) return finish(env, index, {*scripted, nullptr}, done);
    finish(env, index, serve(verb, key, object), done);
  }

  void cancel(Env& env, api::ContextId context) override {
    canceled_.insert(context);
    // Take them out first: answering runs the caller, which may call request() or cancel().
    std::vector<std::pair<std::size_t, Callback>> ended;
    for (auto it = blocked_.begin(); it != blocked_.end();) {
      if (it->second.context != context) {
        ++it;
        continue;
      }
      ended.emplace_back(it->first, std::move(it->second.done));
      it = blocked_.erase(it);
    }
    for (const auto& [index, done] : ended) {
      finish(env, index, {api::Status::context_canceled, nullptr}, done);
    }
  }

 private:
  struct Script {
    api::Verb verb;
    int first;
    int times;
    std::optional<api::Status> status;  // nullopt: block
  };
  struct Blocked {
    api::ContextId context;
    Callback done;
  };
  struct Answer {
    api::Status status;
    api::ObjectPtr object;
    std::vector<api::ObjectPtr> items = {};  // list
  };

  Answer serve(api::Verb verb, const api::ObjectKey& key, const api::ObjectPtr& object) {
    const auto it = objects_.find(key);
    switch (verb) {
      case api::Verb::get:
        if (it == objects_.end()) return {api::Status::not_found, nullptr};
        return {api::Status::ok, std::make_shared<const api::Object>(it->second)};
      case api::Verb::create:
        if (it != objects_.end()) return {api::Status::already_exists, nullptr};
        put(*object);
        return {api::Status::created, std::make_shared<const api::Object>(objects_.at(key))};
      case api::Verb::update:
        if (it == objects_.end()) return {api::Status::not_found, nullptr};
        if (object->resourceVersion != it->second.resourceVersion) {
          return {api::Status::conflict, nullptr};
        }
        put(*object);
        return {api::Status::ok, std::make_shared<const api::Object>(objects_.at(key))};
      case api::Verb::delete_: {
        if (it == objects_.end()) return {api::Status::not_found, nullptr};
        auto last = std::make_shared<const api::Object>(it->second);
        objects_.erase(it);
        ++revision_;
        return {api::Status::ok, std::move(last)};
      }
      case api::Verb::list: {  // key.kind in key.namespace_ (empty: every namespace)
        Answer answer{api::Status::ok, nullptr};
        for (const auto& [stored_key, stored] : objects_) {
          if (stored_key.kind == key.kind &&
              (key.namespace_.empty() || stored_key.namespace_ == key.namespace_)) {
            answer.items.push_back(std::make_shared<const api::Object>(stored));
          }
        }
        return answer;
      }
      default:
        return {api::Status::unavailable, nullptr};  // watch: not needed here
    }
  }

  void finish(Env& env, std::size_t index, const Answer& answer, const Callback& done) {
    log_[index].answer = answer.status;
    api::Response response;
    response.status = answer.status;
    response.object = answer.object;
    response.items = answer.items;
    done(env, response);
  }

  FakeEnv* clock_;
  Duration latency_;
  std::uint64_t revision_ = 0;
  api::ContextId next_context_ = 1;
  std::map<api::ObjectKey, api::Object> objects_;
  std::vector<Script> scripts_;
  std::map<api::Verb, int> counts_;
  std::vector<Call> log_;
  std::map<std::size_t, Blocked> blocked_;  // by log index
  std::set<api::ContextId> canceled_;
};

}  // namespace hasim::testing
