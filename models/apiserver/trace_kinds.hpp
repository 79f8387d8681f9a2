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

inline constexpr std::array kAll{kComponentStart, kWrite,          kLeaseWrite,
                                 kLeaseRead,      kApiserverSlow, kApiserverHang,
                                 kApiserverUnavailable};

}  // namespace hasim::api::trace_kind
