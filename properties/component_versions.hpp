#pragma once
// What the version properties (no-skew, skew-policy) read from component-start events: which
// component is a kube-apiserver or a controller, and its versions parsed as the election
// controller parses them.
#include <string>
#include <string_view>
#include <vector>

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
// Remembered per thread (a pure function, so the memo changes no result): no-skew parses the
// same two or three versions at every apiserver start and leader change of every trial, and
// ParseTolerant costs about 4,000 instructions (0.4% of a lease trial's).
inline election::SemVer parse_traced_version(std::string_view text) {
  struct Parsed {
    std::string text;
    election::SemVer version;
  };
  thread_local std::vector<Parsed> memo;
  for (const Parsed& known : memo) {
    if (known.text == text) return known.version;
  }
  auto parsed = election::parse_semver_tolerant(text);
  HASIM_ASSERT(parsed.has_value());
  if (memo.size() >= 64) memo.clear();  // bounded: versions are few, a fuzzer's are not
  memo.push_back(Parsed{std::string(text), *parsed});
  return *parsed;
}

}  // namespace hasim
