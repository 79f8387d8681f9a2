#pragma once
// An ApiTransport that remembers the contexts it handed out, so its owner can end them all at
// once, as cancelling the context a controller was started with ends every request it has in
// flight. Used for controllers that stop while the process goes on (the Coordinated Leader
// Election controller when its apiserver loses the controller's own lease).
#include <algorithm>
#include <vector>

#include "models/apiserver/client.hpp"

namespace hasim::api {

class ScopedTransport final : public ApiTransport {
 public:
  explicit ScopedTransport(ApiTransport& inner) : inner_(inner) {}

  ContextId new_context() override {
    const ContextId context = inner_.new_context();
    // Contexts come in increasing order from a client: an append, in sorted order.
    if (contexts_.empty() || contexts_.back() < context) {
      contexts_.push_back(context);
    } else {
      const auto it = std::lower_bound(contexts_.begin(), contexts_.end(), context);
      if (it == contexts_.end() || *it != context) contexts_.insert(it, context);
    }
    return context;
  }
  void request(Env& env, ContextId context, Verb verb, ObjectKey key, ObjectPtr object,
               Callback done) override {
    inner_.request(env, context, verb, std::move(key), std::move(object),
                   [this, context, done = std::move(done)](Env& e, const Response& response) {
                     forget(context);
                     done(e, response);
                   });
  }
  void cancel(Env& env, ContextId context) override { inner_.cancel(env, context); }

  // Cancels every context still open, lowest first; their callbacks run now with
  // context_canceled.
  void cancel_all(Env& env) {
    while (!contexts_.empty()) {
      const ContextId context = contexts_.front();
      contexts_.erase(contexts_.begin());
      inner_.cancel(env, context);
    }
  }

 private:
  void forget(ContextId context) {
    const auto it = std::lower_bound(contexts_.begin(), contexts_.end(), context);
    if (it != contexts_.end() && *it == context) contexts_.erase(it);
  }

  ApiTransport& inner_;
  // Sorted and flat: a controller holds a few contexts at a time, and opens and ends one per
  // request, where a tree node is an allocation each.
  std::vector<ContextId> contexts_;
};

}  // namespace hasim::api
