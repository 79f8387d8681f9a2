#pragma once
// An ApiTransport that remembers the contexts it handed out, so its owner can end them all at
// once, as cancelling the context a controller was started with ends every request it has in
// flight. Used for controllers that stop while the process goes on (the Coordinated Leader
// Election controller when its apiserver loses the controller's own lease).
#include <set>

#include "models/apiserver/client.hpp"

namespace hasim::api {

class ScopedTransport final : public ApiTransport {
 public:
  explicit ScopedTransport(ApiTransport& inner) : inner_(inner) {}

  ContextId new_context() override {
    const ContextId context = inner_.new_context();
    contexts_.insert(context);
    return context;
  }
  void request(Env& env, ContextId context, Verb verb, ObjectKey key, ObjectPtr object,
               Callback done) override {
    inner_.request(env, context, verb, std::move(key), std::move(object),
                   [this, context, done = std::move(done)](Env& e, const Response& response) {
                     contexts_.erase(context);
                     done(e, response);
                   });
  }
  void cancel(Env& env, ContextId context) override { inner_.cancel(env, context); }

  // Cancels every context still open; their callbacks run now with context_canceled.
  void cancel_all(Env& env) {
    while (!contexts_.empty()) {
      const ContextId context = *contexts_.begin();
      contexts_.erase(contexts_.begin());
      inner_.cancel(env, context);
    }
  }

 private:
  ApiTransport& inner_;
  std::set<ContextId> contexts_;
};

}  // namespace hasim::api
