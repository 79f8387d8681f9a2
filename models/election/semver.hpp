#pragma once
// Semantic versions as Kubernetes handles them for Coordinated Leader Election: the election
// controller parses candidates' versions with blang/semver v4's ParseTolerant and compares
// them with Compare; API validation of a LeaseCandidate uses the strict Parse.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hasim::election {

struct SemVer {
  std::uint64_t major = 0;
  std::uint64_t minor = 0;
  std::uint64_t patch = 0;
  // Pre-release identifiers ("rc", "1" for "-rc.1"); build metadata is dropped (ignored by
  // Compare).
  std::vector<std::string> pre;
  bool operator==(const SemVer&) const = default;
};

// semver.Parse: exactly MAJOR.MINOR.PATCH with optional -PRERELEASE and +BUILD, no leading
// "v", no leading zeros in numeric parts. nullopt on anything else.
std::optional<SemVer> parse_semver(std::string_view text);

// semver.ParseTolerant (v4): trims spaces, drops one leading "v" (or "V"), strips leading
// zeros of each dot part, pads "X" / "X.Y" with ".0" (an error if the short form has "-" or
// "+"), then Parse.
std::optional<SemVer> parse_semver_tolerant(std::string_view text);

// Version.Compare: -1 if a < b, 0 if equal, 1 if a > b (numeric parts, then a version
// without pre-release above one with it, then pre-release identifiers per semver 2.0.0).
int compare(const SemVer& a, const SemVer& b);

// "1.31.0", "1.31.0-rc.1"
std::string to_string(const SemVer& version);

}  // namespace hasim::election
