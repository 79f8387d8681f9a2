#include "models/cloudcore/node_queue.hpp"

#include "sim/assert.hpp"

namespace hasim::cloudcore {
bool NodeQueue::add(Operation operation, api::ObjectPtr object) {
  HASIM_ASSERT(object != nullptr && !object->uid.empty());
  QueuedMessage message{object->uid, operation, std::move(object)};
  const auto it = store_.find(message.key);
  const bool forced = operation == Operation::delete_ || operation == Operation::response;
  if (it != store_.end() && !forced) {
    const QueuedMessage& stored = it->second;
    if (stored.operation == Operation::delete_) return false;  // a stored delete wins
    if (stored.object->resourceVersion >= message.object->resourceVersion) return false;
  }
  push(std::move(message));
  return true;
}

void NodeQueue::requeue(QueuedMessage message) {
  HASIM_ASSERT(message.object != nullptr && !message.key.empty());
  // A newer message for the key queued meanwhile wins over the failed one.
  if (store_.contains(message.key)) return;
  push(std::move(message));
}

void NodeQueue::push(QueuedMessage message) {
  auto [it, inserted] = store_.insert_or_assign(message.key, std::move(message));
  if (!inserted) return;  // the key is already in the work queue: only its message changed
  HASIM_ASSERT(order_.size() < kMaxMessages);
  order_.push_back(it->first);
}

std::optional<QueuedMessage> NodeQueue::pop() {
  if (order_.empty()) return std::nullopt;
  const auto it = store_.find(order_.front());
  HASIM_ASSERT(it != store_.end());  // every queued key has its message
  QueuedMessage message = std::move(it->second);
  store_.erase(it);
  order_.pop_front();
  HASIM_ASSERT(order_.size() == store_.size());
  return message;
}

}  // namespace hasim::cloudcore
