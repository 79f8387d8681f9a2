#pragma once
// resourcelock.Interface (client-go tools/leaderelection/resourcelock/interface.go): where
// the election record lives. Calls are asynchronous here (sans-IO): each completes through a
// callback, possibly at once (a local failure such as an uninitialized cache).
#include <functional>
#include <string>
#include <string_view>

#include "models/apiserver/client.hpp"
#include "models/election/record.hpp"

namespace hasim::election {

using api::ContextId;
using api::Status;

struct LockGetResult {
  Status status = Status::ok;  // ok or the error (not_found, timeout, ...)
  LeaderElectionRecord record;
  std::string raw;  // the bytes the elector compares (observedRawRecord)
  // A Lease lock's raw record is marshal(record): left unwritten (raw empty), so an elector
  // compares records with marshal_equal instead; raw_bytes() writes it when bytes are needed.
  bool raw_is_marshal = false;
};
inline std::string raw_bytes(const LockGetResult& got) {
  return got.raw_is_marshal ? marshal(got.record) : got.raw;
}

class ResourceLock {
 public:
  using GetDone = std::function<void(Env&, const LockGetResult&)>;
  using Done = std::function<void(Env&, Status)>;  // ok/created, or the error
  virtual ~ResourceLock() = default;
  virtual void get(Env& env, ContextId context, GetDone done) = 0;
  virtual void create(Env& env, ContextId context, const LeaderElectionRecord& record,
                      Done done) = 0;
  virtual void update(Env& env, ContextId context, const LeaderElectionRecord& record,
                      Done done) = 0;
  // An Event on the lock object ("Normal LeaderElection <identity> became leader").
  virtual void record_event(Env& env, std::string_view message) = 0;
  virtual const std::string& identity() const = 0;
  virtual std::string describe() const = 0;
};

// Lock type names as `resourcelock.New` takes them.
inline constexpr std::string_view kLeasesLock = "leases";
inline constexpr std::string_view kEndpointsLock = "endpoints";
inline constexpr std::string_view kConfigMapsLock = "configmaps";
inline constexpr std::string_view kEndpointsLeasesLock = "endpointsleases";
inline constexpr std::string_view kConfigMapsLeasesLock = "configmapsleases";
inline constexpr std::string_view kLockTypes[] = {kLeasesLock, kEndpointsLock, kConfigMapsLock,
                                                  kEndpointsLeasesLock, kConfigMapsLeasesLock};
// The annotation the legacy Endpoints and ConfigMap locks keep the record in.
inline constexpr std::string_view kLeaderAnnotation = "control-plane.alpha.kubernetes.io/leader";

}  // namespace hasim::election
