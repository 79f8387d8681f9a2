#include "models/apiserver/ideal_store.hpp"

#include "sim/assert.hpp"

namespace hasim::api {

std::string_view StoreNotify::type() const { return "store-notify"; }

IdealStore::IdealStore(IdealStoreHooks hooks, std::size_t history)
    : hooks_(std::move(hooks)), history_limit_(history) {
  HASIM_ASSERT(history_limit_ > 0);
}

void IdealStore::get(ProcessId caller, const ObjectKey& key, Done done) {
  if (!reachable(caller)) return;
  const auto it = objects_.find(key);
  if (it == objects_.end()) return done(StoreResult{Status::not_found, nullptr, {}, revision_});
  done(StoreResult{Status::ok, it->second, {}, revision_});
}

void IdealStore::list(ProcessId caller, Kind kind, const std::string& namespace_, Done done) {
  if (!reachable(caller)) return;
  StoreResult result{Status::ok, nullptr, {}, revision_};
  for (const auto& [key, object] : objects_) {
    if (key.kind == kind && (namespace_.empty() || key.namespace_ == namespace_)) {
      result.items.push_back(object);
    }
  }
  done(result);
}

void IdealStore::create(ProcessId caller, Object object, Done done) {
  if (!reachable(caller)) return;
  if (objects_.contains(object.key)) {
    return done(StoreResult{Status::already_exists, objects_.at(object.key), {}, revision_});
  }
  object.resourceVersion = revision_ + 1;
  auto stored = std::make_shared<const Object>(std::move(object));
  commit(WatchEventType::added, stored);
  done(StoreResult{Status::created, stored, {}, revision_});
}

void IdealStore::update(ProcessId caller, Object object, Done done) {
  if (!reachable(caller)) return;
  const auto it = objects_.find(object.key);
  // No resourceVersion: an unconditional update, which creates a missing object (the
  // AllowUnconditionalUpdate and AllowCreateOnUpdate strategies of ConfigMaps and Leases).
  if (object.resourceVersion == 0) {
    const bool exists = it != objects_.end();
    object.resourceVersion = revision_ + 1;
    auto stored = std::make_shared<const Object>(std::move(object));
    commit(exists ? WatchEventType::modified : WatchEventType::added, stored);
    return done(StoreResult{exists ? Status::ok : Status::created, stored, {}, revision_});
  }
  if (it == objects_.end()) return done(StoreResult{Status::not_found, nullptr, {}, revision_});
  // The apiserver's optimistic concurrency: the precondition is the version the client read.
  if (object.resourceVersion != it->second->resourceVersion) {
    return done(StoreResult{Status::conflict, it->second, {}, revision_});
  }
  object.resourceVersion = revision_ + 1;
  auto stored = std::make_shared<const Object>(std::move(object));
  commit(WatchEventType::modified, stored);
  done(StoreResult{Status::ok, stored, {}, revision_});
}

void IdealStore::remove(ProcessId caller, const ObjectKey& key, Done done) {
  if (!reachable(caller)) return;
  const auto it = objects_.find(key);
  if (it == objects_.end()) return done(StoreResult{Status::not_found, nullptr, {}, revision_});
  const ObjectPtr last = it->second;
  commit(WatchEventType::deleted, last);
  done(StoreResult{Status::ok, last, {}, revision_});
}

void IdealStore::commit(WatchEventType type, ObjectPtr object) {
  ++revision_;
  if (type == WatchEventType::deleted) {
    objects_.erase(object->key);
  } else {
    HASIM_ASSERT(object->resourceVersion == revision_);
    objects_[object->key] = object;
  }
  history_.push_back(StoreEvent{revision_, type, std::move(object)});
  if (history_.size() > history_limit_) history_.pop_front();
  if (hooks_.notify) {
    for (ProcessId subscriber : subscribers_) hooks_.notify(subscriber);
  }
}

void IdealStore::subscribe(ProcessId subscriber) { subscribers_.insert(subscriber); }

bool IdealStore::events_after(std::uint64_t after, std::vector<StoreEvent>& out) const {
  if (after >= revision_) return true;
  if (history_.empty() || history_.front().revision > after + 1) return false;
  // Revisions in the history are consecutive: the first one after `after` is found by index.
  const std::uint64_t skip = after + 1 - history_.front().revision;
  HASIM_ASSERT(history_.back().revision == history_.front().revision + history_.size() - 1);
  for (auto it = history_.begin() + static_cast<std::ptrdiff_t>(skip); it != history_.end(); ++it) {
    out.push_back(*it);
  }
  return true;
}

}  // namespace hasim::api
