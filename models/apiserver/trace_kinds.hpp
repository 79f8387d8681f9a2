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
// A condition of an apiserver (ApiServerConditions) starts or ends: {state}. The scenario
// builder toggles them; the kinds are the fault kinds' names.
inline constexpr std::string_view kApiserverSlow = "apiserver-slow";
inline constexpr std::string_view kApiserverHang = "apiserver-hang";
inline constexpr std::string_view kApiserverUnavailable = "apiserver-unavailable";

inline constexpr std::array kAll{kComponentStart, kWrite, kApiserverSlow, kApiserverHang,
                                 kApiserverUnavailable};

}  // namespace hasim::api::trace_kind
