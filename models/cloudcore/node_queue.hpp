#pragma once
// One edge node's message queue in CloudHub's channel queue (KE@v1.5.0:cloud/pkg/cloudhub/
// channelq/channelq.go, nodeQueue and nodeStore): a work queue of keys in FIFO order, each
// key present at most once, plus a store holding the message to send for each key. A
// message about an object has the key "<type>/<namespace>/<name>"; in the store a newer
// resourceVersion replaces an older one, an older or equal one is dropped, and a stored
// delete is never replaced by anything but another delete. A response (the answer to the
// edge's query) always queues, under a key of its own. Pure: no Env, no time.
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "models/cloudcore/messages.hpp"

namespace hasim::cloudcore {

struct QueuedMessage {
  std::string key;
  Operation operation = Operation::insert;
  api::ObjectPtr object;
};

class NodeQueue {
 public:
  // Adds a message for an object; false if the store kept what it had.
  bool add(Operation operation, api::ObjectPtr object);
  // Re-adds a message taken out by pop() whose send failed (AddRateLimited).
  void requeue(QueuedMessage message);
  // The next key's message, removed from queue and store (the write loop's Get).
  std::optional<QueuedMessage> pop();
  std::size_t size() const { return order_.size(); }
  bool empty() const { return order_.empty(); }

  static constexpr std::size_t kMaxMessages = 1'000'000;  // bounds the queue

 private:
  void push(QueuedMessage message);

  std::deque<std::string> order_;
  std::map<std::string, QueuedMessage, std::less<>> store_;
  std::uint64_t responses_ = 0;  // for the responses' own keys
};

}  // namespace hasim::cloudcore
