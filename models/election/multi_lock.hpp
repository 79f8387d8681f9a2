#pragma once
// MultiLock (resourcelock/multilock.go, the endpointsleases / configmapsleases lock types):
// the migration lock that writes both the legacy annotation lock (primary) and a Lease
// (secondary), so old and new clients exclude each other during an upgrade.
#include <memory>

#include "models/election/resource_lock.hpp"

namespace hasim::election {

inline constexpr std::string_view kUnknownLeader = "leaderelection.k8s.io/unknown";

class MultiLock final : public ResourceLock {
 public:
  MultiLock(std::unique_ptr<ResourceLock> primary, std::unique_ptr<ResourceLock> secondary);

  void get(Env& env, ContextId context, GetDone done) override;
  void create(Env& env, ContextId context, const LeaderElectionRecord& record, Done done) override;
  void update(Env& env, ContextId context, const LeaderElectionRecord& record, Done done) override;
  void record_event(Env& env, std::string_view message) override;
  const std::string& identity() const override { return primary_->identity(); }
  std::string describe() const override { return primary_->describe(); }

 private:
  std::unique_ptr<ResourceLock> primary_;
  std::unique_ptr<ResourceLock> secondary_;
};

}  // namespace hasim::election
