#pragma once
// The kinds of trace event of client-go's leader election and of Coordinated Leader
// Election, declared once (see sim/trace_kinds.hpp for why).
#include <array>
#include <string_view>

namespace hasim::election::trace_kind {

// client-go's LeaderElector and its locks.
inline constexpr std::string_view kEvent = "event";  // the lock's recorder: an Event
inline constexpr std::string_view kLeaseLost = "lease-lost";
inline constexpr std::string_view kLeaseRelease = "lease-release";
// kube-apiserver's Coordinated Leader Election controller.
inline constexpr std::string_view kCleControllerStart = "cle-controller-start";
inline constexpr std::string_view kCleControllerStop = "cle-controller-stop";
inline constexpr std::string_view kCleElect = "cle-elect";
inline constexpr std::string_view kClePreempt = "cle-preempt";
inline constexpr std::string_view kClePing = "cle-ping";
inline constexpr std::string_view kCleError = "cle-error";
inline constexpr std::string_view kCleGc = "cle-gc";

inline constexpr std::array kAll{
    kEvent,    kLeaseLost,  kLeaseRelease, kCleControllerStart, kCleControllerStop,
    kCleElect, kClePreempt, kClePing,      kCleError,           kCleGc};

}  // namespace hasim::election::trace_kind
