#pragma once
// An ideal linearizable store: every operation takes effect atomically at the instant the
// apiserver executes it (its linearization point), with one global revision counter as
// etcd's. It is not a process: it stands for an etcd cluster that never loses quorum. Its
// one failure mode is reachability: an apiserver cut off from the store's location gets no
// answer, exactly as an etcd client retrying until the request's deadline.
#include <deque>
#include <functional>
#include <map>
#include <vector>

#include "models/apiserver/store.hpp"

namespace hasim::api {

struct IdealStoreHooks {
  // Whether `caller` can reach the store now (the builder asks the World).
  std::function<bool(ProcessId caller)> reachable;
  // Wakes the subscribers, in this order: new events exist (the builder posts each of them a
  // StoreNotify message).
  std::function<void(const std::vector<ProcessId>& subscribers)> notify;
};

// The wake-up a subscriber receives; it then calls events_after().
struct StoreNotify final : MessageBody {
  std::string_view type() const override;
};

class IdealStore final : public Store {
 public:
  explicit IdealStore(IdealStoreHooks hooks, std::size_t history = 4096);

  void get(ProcessId caller, const ObjectKey& key, Done done) override;
  void list(ProcessId caller, Kind kind, const std::string& namespace_, Done done) override;
  void create(ProcessId caller, Object object, Done done) override;
  void update(ProcessId caller, Object object, Done done) override;
  void remove(ProcessId caller, const ObjectKey& key, Done done) override;
  void create_from(ProcessId caller, const Object& object, LocalTime created, Done done) override;
  void update_from(ProcessId caller, const Object& object, Done done) override;
  void subscribe(ProcessId subscriber) override;
  bool events_after(std::uint64_t after, std::vector<StoreEvent>& out) const override;
  std::uint64_t revision() const override { return revision_; }
  // An unreachable store returns without a word; a reachable one answers before returning
  // (its StoreNotify posts are due now, never at a request's timeout).
  bool answers_at_once() const override { return true; }

  // Read-only view for properties and tests.
  const std::map<ObjectKey, ObjectPtr>& objects() const { return objects_; }

 private:
  bool reachable(ProcessId caller) const { return !hooks_.reachable || hooks_.reachable(caller); }
  // create and update, given how to make the object to store (a copy or a move of the
  // caller's, whose key `key` may be), which runs only once the write is known to succeed.
  template <typename Make>
  void insert(const ObjectKey& key, Make make, const Done& done);
  template <typename Make>
  void replace(const ObjectKey& key, std::uint64_t precondition, Make make, const Done& done);
  // Records a change the caller has made to objects_ (it holds the iterator).
  void commit(WatchEventType type, ObjectPtr object);

  IdealStoreHooks hooks_;
  std::size_t history_limit_;
  std::uint64_t revision_ = 1;
  std::map<ObjectKey, ObjectPtr> objects_;
  std::deque<StoreEvent> history_;
  std::vector<ProcessId> subscribers_;  // ascending, each once: every commit walks them
};

}  // namespace hasim::api
