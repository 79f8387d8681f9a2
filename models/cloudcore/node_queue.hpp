#pragma once
// One edge node's message queue in CloudHub's channel queue (KE@v1.5.0:cloud/pkg/cloudhub/
// channelq/channelq.go, nodeQueue and nodeStore): a work queue of keys in FIFO order, each
// key present at most once, plus a store holding the message to send for each key. The key
// is the object's UID (getMsgKey: GetMessageUID), so a deleted object and a new one of the
// same name are two keys. A delete or a response (the answer to the edge's query) always
// replaces what the store holds for the key; an insert or update is dropped when the store
// holds a delete or the same or a newer resourceVersion. Pure: no Env, no time.
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
};

}  // namespace hasim::cloudcore
