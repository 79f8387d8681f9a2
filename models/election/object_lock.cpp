#include "models/election/object_lock.hpp"

#include "models/election/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim::election {
ObjectLock::ObjectLock(api::ObjectKey key, std::string identity, api::ApiTransport& transport)
    : key_(std::move(key)), identity_(std::move(identity)), transport_(transport) {}

void ObjectLock::write_record(api::Object& object, const LeaderElectionRecord& record) const {
  if (key_.kind == api::Kind::lease) {
    object.lease = to_lease_spec(record);  // Update replaces the whole spec
  } else {
    object.annotations[std::string(kLeaderAnnotation)] = marshal(record);
  }
}

LockGetResult ObjectLock::read_record(const api::Object& object) const {
  LockGetResult result;
  if (key_.kind == api::Kind::lease) {
    result.record = from_lease_spec(object.lease);
    result.raw_is_marshal = true;  // LeaseLock's raw record is json.Marshal(record)
    return result;
  }
  // Annotation locks hand back the annotation's bytes as they are; a missing annotation is a
  // zero record with empty bytes.
  const auto it = object.annotations.find(std::string(kLeaderAnnotation));
  if (it == object.annotations.end()) return result;
  result.raw = it->second;
  if (auto record = unmarshal(it->second)) result.record = *record;
  return result;
}

void ObjectLock::get(Env& env, ContextId context, GetDone done) {
  transport_.request(env, context, api::Verb::get, key_, nullptr,
                     [this, done = std::move(done)](Env& e, const api::Response& response) {
                       if (response.status != Status::ok) {
                         return done(e, LockGetResult{response.status, {}, {}});
                       }
                       cached_ = response.object;
                       done(e, read_record(*response.object));
                     });
}

void ObjectLock::create(Env& env, ContextId context, const LeaderElectionRecord& record,
                        Done done) {
  auto object = std::make_shared<api::Object>();
  object->key = key_;
  write_record(*object, record);
  transport_.request(env, context, api::Verb::create, key_, std::move(object),
                     [this, done = std::move(done)](Env& e, const api::Response& response) {
                       if (api::is_success(response.status)) cached_ = response.object;
                       done(e, response.status);
                     });
}

void ObjectLock::update(Env& env, ContextId context, const LeaderElectionRecord& record,
                        Done done) {
  if (!cached_.has_value()) return done(env, Status::not_initialized);  // no API call
  // Built in place: an Object is large, and a renewal writes one every retryPeriod.
  auto object = std::make_shared<api::Object>(**cached_);
  write_record(*object, record);
  transport_.request(env, context, api::Verb::update, key_, std::move(object),
                     [this, done = std::move(done)](Env& e, const api::Response& response) {
                       // A failure keeps the old cache (client-go bfd1732c4).
                       if (api::is_success(response.status)) cached_ = response.object;
                       done(e, response.status);
                     });
}

void ObjectLock::record_event(Env& env, std::string_view message) {
  env.trace(trace_kind::kEvent, {{"type", std::string("Normal")},
                                 {"reason", std::string("LeaderElection")},
                                 {"object", api::describe(key_)},
                                 {"message", identity_ + " " + std::string(message)}});
}

}  // namespace hasim::election
