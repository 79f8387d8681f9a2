// The ideal store's writes: create and update by value (the builders' and tests' way in) and
// create_from / update_from (the apiserver's, copying the request's object once) answer alike.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "models/apiserver/ideal_store.hpp"

using namespace hasim;
using namespace hasim::api;

namespace {

Object lease(const std::string& name, const std::string& holder, std::uint64_t rv = 0) {
  Object object;
  object.key = ObjectKey{Kind::lease, "kube-system", name};
  object.lease.holderIdentity = holder;
  object.resourceVersion = rv;
  return object;
}

// One write through either entry point, as "status rv holder created-at".
std::string write(IdealStore& store, bool from, Verb verb, const Object& object) {
  std::string out;
  const auto done = [&out](const StoreResult& r) {
    out = std::string(to_string(r.status)) + " " +
          (r.object ? std::to_string(r.object->resourceVersion) + " " +
                          r.object->lease.holderIdentity.value_or("-") + " " +
                          std::to_string(r.object->creationTimestamp.ns)
                    : "-") +
          " @" + std::to_string(r.revision);
  };
  const LocalTime created{7};
  if (verb == Verb::create && from) store.create_from(0, object, created, done);
  if (verb == Verb::create && !from) {
    Object copy = object;
    copy.creationTimestamp = created;
    store.create(0, std::move(copy), done);
  }
  if (verb == Verb::update && from) store.update_from(0, object, done);
  if (verb == Verb::update && !from) store.update(0, object, done);
  return out;
}

}  // namespace

TEST_CASE("ideal store: create_from and update_from answer as create and update", "[apiserver]") {
  const bool from = GENERATE(false, true);
  IdealStore store(IdealStoreHooks{});
  std::vector<std::string> answers;
  answers.push_back(write(store, from, Verb::create, lease("a", "h1")));
  answers.push_back(write(store, from, Verb::create, lease("a", "h2")));     // exists
  answers.push_back(write(store, from, Verb::update, lease("a", "h3", 1)));  // stale
  answers.push_back(write(store, from, Verb::update, lease("a", "h4", 2)));  // CAS
  answers.push_back(write(store, from, Verb::update, lease("b", "h5", 9)));  // missing
  answers.push_back(write(store, from, Verb::update, lease("b", "h6")));     // creates
  answers.push_back(write(store, from, Verb::update, lease("a", "h7")));     // unconditional
  CHECK(answers == std::vector<std::string>{"201 Created 2 h1 7 @2", "409 AlreadyExists 2 h1 7 @2",
                                            "409 Conflict 2 h1 7 @2", "200 OK 3 h4 0 @3",
                                            "404 NotFound - @3", "201 Created 4 h6 0 @4",
                                            "200 OK 5 h7 0 @5"});
  CHECK(store.objects().size() == 2);
  std::vector<StoreEvent> events;
  REQUIRE(store.events_after(1, events));
  CHECK(events.size() == 4);
  CHECK(events.back().type == WatchEventType::modified);
}
