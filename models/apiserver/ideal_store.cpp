#include "models/apiserver/ideal_store.hpp"

#include <algorithm>

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
  insert(
      object.key, [&object] { return std::make_shared<Object>(std::move(object)); }, done);
}

void IdealStore::create_from(ProcessId caller, const Object& object, LocalTime created, Done done) {
  if (!reachable(caller)) return;
  insert(
      object.key,
      [&object, created] {
        auto copy = std::make_shared<Object>(object);
        copy->creationTimestamp = created;
        return copy;
      },
      done);
}

void IdealStore::update(ProcessId caller, Object object, Done done) {
  if (!reachable(caller)) return;
  const std::uint64_t precondition = object.resourceVersion;
  replace(
      object.key, precondition, [&object] { return std::make_shared<Object>(std::move(object)); },
      done);
}

void IdealStore::update_from(ProcessId caller, const Object& object, Done done) {
  if (!reachable(caller)) return;
  replace(
      object.key, object.resourceVersion, [&object] { return std::make_shared<Object>(object); },
      done);
}

template <typename Make>
void IdealStore::insert(const ObjectKey& key, Make make, const Done& done) {
  const auto it = objects_.lower_bound(key);
  if (it != objects_.end() && it->first == key) {
    return done(StoreResult{Status::already_exists, it->second, {}, revision_});
  }
  const std::shared_ptr<Object> object = make();  // `key` may be moved from from here on
  object->resourceVersion = revision_ + 1;
  const ObjectPtr stored = object;
  objects_.emplace_hint(it, stored->key, stored);
  commit(WatchEventType::added, stored);
  done(StoreResult{Status::created, stored, {}, revision_});
}

template <typename Make>
void IdealStore::replace(const ObjectKey& key, std::uint64_t precondition, Make make,
                         const Done& done) {
  const auto it = objects_.lower_bound(key);
  const bool exists = it != objects_.end() && it->first == key;
  // No resourceVersion (precondition 0): an unconditional update, which creates a missing
  // object (the AllowUnconditionalUpdate and AllowCreateOnUpdate strategies of ConfigMaps and
  // Leases).
  if (precondition != 0) {
    if (!exists) return done(StoreResult{Status::not_found, nullptr, {}, revision_});
    // The apiserver's optimistic concurrency: the precondition is the version the client read.
    if (precondition != it->second->resourceVersion) {
      return done(StoreResult{Status::conflict, it->second, {}, revision_});
    }
  }
  const std::shared_ptr<Object> object = make();  // `key` may be moved from from here on
  object->resourceVersion = revision_ + 1;
  const ObjectPtr stored = object;
  if (exists) {
    it->second = stored;
  } else {
    objects_.emplace_hint(it, stored->key, stored);
  }
  commit(exists ? WatchEventType::modified : WatchEventType::added, stored);
  done(StoreResult{exists ? Status::ok : Status::created, stored, {}, revision_});
}

void IdealStore::remove(ProcessId caller, const ObjectKey& key, Done done) {
  if (!reachable(caller)) return;
  const auto it = objects_.find(key);
  if (it == objects_.end()) return done(StoreResult{Status::not_found, nullptr, {}, revision_});
  const ObjectPtr last = it->second;
  objects_.erase(it);
  commit(WatchEventType::deleted, last);
  done(StoreResult{Status::ok, last, {}, revision_});
}

void IdealStore::commit(WatchEventType type, ObjectPtr object) {
  ++revision_;
  HASIM_ASSERT(type == WatchEventType::deleted || object->resourceVersion == revision_);
  history_.push_back(StoreEvent{revision_, type, std::move(object)});
  if (history_.size() > history_limit_) history_.pop_front();
  if (hooks_.notify && !subscribers_.empty()) hooks_.notify(subscribers_);
}

void IdealStore::subscribe(ProcessId subscriber) {
  const auto at = std::lower_bound(subscribers_.begin(), subscribers_.end(), subscriber);
  if (at == subscribers_.end() || *at != subscriber) subscribers_.insert(at, subscriber);
}

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
