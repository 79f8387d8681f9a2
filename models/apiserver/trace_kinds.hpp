#pragma once
// The kinds of trace event of kube-apiserver and the components that run beside it, declared
// once (see sim/trace_kinds.hpp for why).
#include <array>
#include <string_view>

namespace hasim::api::trace_kind {

// A control-plane component started: {component, version, emulation, ...}. kube-apiserver
// emits it here, the elected components in models/cluster.
inline constexpr std::string_view kComponentStart = "component-start";
// A write the apiserver committed: {user, verb, object, rv}.
inline constexpr std::string_view kWrite = "write";
// What lease-protocol (properties/lease_protocol.hpp) reads, for election objects only
// (Leases, LeaseCandidates, Endpoints and ConfigMaps: see lease_trace.hpp).
// A committed write with the object it left (a deletion: the last state) and the
// resourceVersion its request was conditional on: {user, verb, object, rv, precondition, ...}.
inline constexpr std::string_view kLeaseWrite = "lease-write";
// The apiserver served a version of such an object to a client (a get, a list item, a watch
// event): {user, object, rv}. Built only when an observer wants it (Env::tracing).
inline constexpr std::string_view kLeaseRead = "lease-read";
// A condition of an apiserver (ApiServerConditions) starts or ends: {state}. The scenario
// builder toggles them; the kinds are the fault kinds' names.
inline constexpr std::string_view kApiserverSlow = "apiserver-slow";
inline constexpr std::string_view kApiserverHang = "apiserver-hang";
inline constexpr std::string_view kApiserverUnavailable = "apiserver-unavailable";
// An apiserver over etcd members: its /readyz etcd check changed its answer:
// {ready (0 or 1), reason}.
inline constexpr std::string_view kApiserverReadyz = "apiserver-readyz";
// The load balancer in front of the apiservers (access "loadBalancer", load_balancer.hpp)
// marked a backend up or down: {backend, up (0 or 1)}.
inline constexpr std::string_view kLoadBalancerBackend = "lb-backend";

// kube-apiserver's etcd client (models/apiserver/raft_store.hpp) made one gRPC call on one
// key: the history `no-lost-write` checks and `hasim run --history` writes
// (properties/linearizability/history.hpp names the operations). Prefix lists are not
// recorded (the register model is per key).
//   etcd-call     {client, call, op, key, value, expected}: invoked. `client` is the
//                 apiserver process ("cp-1/kube-apiserver"), `call` its call id (unique per
//                 incarnation of that process; a crash or exit ends every call still open
//                 with an unknown outcome), `op` "get" | "put" | "delete" | "cas-put" |
//                 "cas-delete", `value` (put, cas-put) a 16-hex-digit FNV-1a hash of the bytes
//                 written, `expected` (cas-put, cas-delete) the compare's ModRevision.
//   etcd-call-end {client, call, outcome, succeeded, found, value, mod_revision, revision,
//                 error}: ended. `outcome` "ok" | "fail" (it did not take effect) | "unknown"
//                 (it may have: a timed-out write, a call abandoned at the deadline); the rest
//                 as linearizability::Output (succeeded and found 0 or 1), and etcd's error
//                 text when not ok.
inline constexpr std::string_view kEtcdCall = "etcd-call";
inline constexpr std::string_view kEtcdCallEnd = "etcd-call-end";

inline constexpr std::array kAll{kComponentStart, kWrite,          kLeaseWrite,
                                 kLeaseRead,      kApiserverSlow, kApiserverHang,
                                 kApiserverUnavailable, kApiserverReadyz, kEtcdCall,
                                 kEtcdCallEnd,    kLoadBalancerBackend};

}  // namespace hasim::api::trace_kind
