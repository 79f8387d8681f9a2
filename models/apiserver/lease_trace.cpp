#include "models/apiserver/lease_trace.hpp"

#include <utility>

#include "models/apiserver/trace_kinds.hpp"
#include "sim/assert.hpp"

namespace hasim::api {
namespace {

std::int64_t rv_of(std::uint64_t rv) { return static_cast<std::int64_t>(rv); }

std::int64_t time_of(const std::optional<LocalTime>& time) {
  return time.has_value() ? time->ns : kNilTime;
}

struct WriteHead {
  const Request& request;
  std::int64_t rv;
  std::int64_t precondition;
};

// One lease-write: what every write says, then what its kind stores.
template <typename... Content>
void trace_write(Env& env, const WriteHead& h, Content&&... content) {
  env.trace(trace_kind::kLeaseWrite, {{"user", h.request.user},
                                      {"verb", std::string(to_string(h.request.verb))},
                                      {"object", describe(h.request.key)},
                                      {"rv", h.rv},
                                      {"precondition", h.precondition},
                                      std::forward<Content>(content)...});
}

// coordination.k8s.io/v1 LeaseSpec as LeaseSpecToLeaderElectionRecord reads it (nil pointers as
// zero values, nil times as kNilTime).
void trace_lease(Env& env, const WriteHead& h, const LeaseSpec& spec) {
  trace_write(env, h, TraceField{"holder", spec.holderIdentity.value_or("")},
              TraceField{"lds", std::int64_t{spec.leaseDurationSeconds.value_or(0)}},
              TraceField{"acquire", time_of(spec.acquireTime)},
              TraceField{"renew", time_of(spec.renewTime)},
              TraceField{"transitions", std::int64_t{spec.leaseTransitions.value_or(0)}},
              TraceField{"strategy", spec.strategy.value_or("")},
              TraceField{"preferred", spec.preferredHolder.value_or("")});
}

void trace_candidate(Env& env, const WriteHead& h, const LeaseCandidateSpec& spec) {
  trace_write(env, h, TraceField{"lease", spec.leaseName},
              TraceField{"renew", time_of(spec.renewTime)},
              TraceField{"ping", time_of(spec.pingTime)}, TraceField{"binary", spec.binaryVersion},
              TraceField{"emulation", spec.emulationVersion});
}

// The legacy locks keep the record as the annotation's text.
void trace_annotation(Env& env, const WriteHead& h, const Object& object) {
  const auto it = object.annotations.find(std::string(kLeaderAnnotation));
  HASIM_ASSERT(it != object.annotations.end());
  trace_write(env, h, TraceField{"record", it->second});
}

}  // namespace

bool is_election_object(const Object& object) {
  switch (object.key.kind) {
    case Kind::lease:
    case Kind::lease_candidate:
      return true;
    case Kind::endpoints:
    case Kind::config_map:  // only as a lock: other ConfigMaps (a leader's work) are not
      return object.annotations.contains(std::string(kLeaderAnnotation));
    case Kind::pod:  // CloudCore's readiness gate lives on its Pod: no election record
    case Kind::secret:
    case Kind::object_sync:
    case Kind::node:
    case Kind::etcd:
      return false;
  }
  return false;
}

void trace_lease_write(Env& env, const Request& request, const Object& stored) {
  HASIM_ASSERT(is_write(request.verb));
  HASIM_ASSERT(stored.key == request.key);
  if (!is_election_object(stored) || !env.tracing(trace_kind::kLeaseWrite)) return;
  // The precondition a write carried: an update's resourceVersion (0: unconditional); a create
  // or a deletion (as the LeaseCandidate GC sends it) carries none.
  const std::uint64_t precondition =
      request.verb == Verb::update && request.object ? request.object->resourceVersion : 0;
  const WriteHead head{request, rv_of(stored.resourceVersion), rv_of(precondition)};
  switch (request.key.kind) {
    case Kind::lease:
      return trace_lease(env, head, stored.lease);
    case Kind::lease_candidate:
      return trace_candidate(env, head, stored.candidate);
    case Kind::endpoints:
    case Kind::config_map:
      return trace_annotation(env, head, stored);
    case Kind::pod:
    case Kind::secret:
    case Kind::object_sync:
    case Kind::node:
    case Kind::etcd:
      HASIM_ASSERT(false);  // is_election_object refused it
      return;
  }
}

void trace_lease_read(Env& env, std::string_view user, const Object& object) {
  if (!is_election_object(object) || !env.tracing(trace_kind::kLeaseRead)) return;
  env.trace(trace_kind::kLeaseRead, {{"user", std::string(user)},
                                     {"object", describe(object.key)},
                                     {"rv", rv_of(object.resourceVersion)}});
}

}  // namespace hasim::api
