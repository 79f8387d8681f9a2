#pragma once
// The single-object locks. LeaseLock (leaselock.go) keeps the record in a Lease's spec;
// AnnotationLock (the removed endpointslock.go / configmaplock.go, still in the seed's
// clusters) keeps it as JSON in the control-plane.alpha.kubernetes.io/leader annotation of
// an Endpoints or ConfigMap. Both cache the object a Get or Create returned, and Update
// writes that cached object back with the new record, so the apiserver's resourceVersion
// check (409 Conflict) is the only mutual exclusion; Update without a cache fails locally.
#include <optional>

#include "models/election/resource_lock.hpp"

namespace hasim::election {

class ObjectLock final : public ResourceLock {
 public:
  // kind lease: LeaseLock; endpoints / config_map: the annotation lock.
  ObjectLock(api::ObjectKey key, std::string identity, api::ApiTransport& transport);

  void get(Env& env, ContextId context, GetDone done) override;
  void create(Env& env, ContextId context, const LeaderElectionRecord& record, Done done) override;
  void update(Env& env, ContextId context, const LeaderElectionRecord& record, Done done) override;
  void record_event(Env& env, std::string_view message) override;
  const std::string& identity() const override { return identity_; }
  std::string describe() const override { return key_.namespace_ + "/" + key_.name; }
  const api::ObjectKey& key() const { return key_; }

 private:
  // Writes `record` into `object`, as the lock kind stores it.
  void write_record(api::Object& object, const LeaderElectionRecord& record) const;
  LockGetResult read_record(const api::Object& object) const;

  api::ObjectKey key_;
  std::string identity_;
  api::ApiTransport& transport_;
  std::optional<api::ObjectPtr> cached_;
};

}  // namespace hasim::election
