#pragma once
// What kube-apiserver tells the trace about election objects, for the lease-protocol property
// (properties/lease_protocol.hpp): every committed write with the object it left and the
// resourceVersion it was conditional on, and every version it served to a client. Election
// objects are Leases and LeaseCandidates (coordination.k8s.io) and the Endpoints and ConfigMaps
// of the legacy annotation locks (those with the leader annotation), whose record is the
// annotation's text.
#include <cstdint>
#include <string_view>

#include "models/apiserver/messages.hpp"
#include "models/apiserver/object.hpp"
#include "sim/env.hpp"

namespace hasim::api {

// The annotation the legacy Endpoints and ConfigMap leader-election locks keep their record in
// (client-go tools/leaderelection/resourcelock/interface.go, LeaderElectionRecordAnnotationKey;
// election::kLeaderAnnotation, which lease-protocol checks is the same).
inline constexpr std::string_view kLeaderAnnotation = "control-plane.alpha.kubernetes.io/leader";

// A Lease, a LeaseCandidate, or an Endpoints or ConfigMap carrying the leader annotation.
bool is_election_object(const Object& object);
// A time field of a lease-write for a nil MicroTime.
inline constexpr std::int64_t kNilTime = INT64_MIN;

// Both are built only when an observer wants their kind (Env::tracing), so a Monte Carlo trial
// without lease-protocol pays nothing for them.
// A successful write of `request` that left `stored` (for a deletion, the last state).
void trace_lease_write(Env& env, const Request& request, const Object& stored);
// The apiserver served `object` to `user` (a get, a list item or a watch event).
void trace_lease_read(Env& env, std::string_view user, const Object& object);

}  // namespace hasim::api
