#pragma once
// What the version properties (no-skew, skew-policy) read from component-start events: which
// component is a kube-apiserver or a controller, and its versions parsed as the election
// controller parses them.
#include <string_view>

#include "models/election/semver.hpp"
#include "sim/assert.hpp"

namespace hasim {

inline constexpr std::string_view kApiserverComponent = "kube-apiserver";

// The controllers the version-skew policy and KEP-4355 speak of.
inline bool is_controller(std::string_view component) {
  return component == "kube-controller-manager" || component == "kube-scheduler";
}

// Versions come from our own models, which take them from a validated scenario; one that
// the election controller's ParseTolerant rejects is a bug in the trace, not a finding.
inline election::SemVer parse_traced_version(std::string_view text) {
  auto parsed = election::parse_semver_tolerant(text);
  HASIM_ASSERT(parsed.has_value());
  return *parsed;
}

}  // namespace hasim
