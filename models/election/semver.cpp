#include "models/election/semver.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "sim/assert.hpp"

namespace hasim::election {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// blang/semver's `alphanum` set: ASCII letters, digits and '-'. Every byte of a multi-byte
// UTF-8 sequence falls outside it, so a byte-wise check rejects exactly what blang's rune-wise
// containsOnly rejects.
bool is_identifier_char(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
}

// blang's containsOnly is vacuously true for an empty string; the empty case is rejected later
// by the number conversion (strconv.ParseUint("") fails) or by an explicit emptiness check.
bool only_digits(std::string_view text) {
  for (char c : text) {
    if (!is_digit(c)) return false;
  }
  return true;
}

bool only_identifier_chars(std::string_view text) {
  for (char c : text) {
    if (!is_identifier_char(c)) return false;
  }
  return true;
}

bool has_leading_zero(std::string_view text) { return text.size() > 1 && text.front() == '0'; }

// strconv.ParseUint(text, 10, 64) for text already known to be all digits: empty or a value
// above 2^64 - 1 is an error, as in Go.
std::optional<std::uint64_t> parse_uint64(std::string_view digits) {
  if (digits.empty()) return std::nullopt;
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t value = 0;
  for (char c : digits) {
    HASIM_ASSERT(is_digit(c));
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (kMax - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

// strings.Split(text, sep): always at least one piece, empty pieces kept.
std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> pieces;
  std::size_t start = 0;
  for (;;) {
    const std::size_t at = text.find(sep, start);
    if (at == std::string_view::npos) {
      pieces.push_back(text.substr(start));
      return pieces;
    }
    pieces.push_back(text.substr(start, at - start));
    start = at + 1;
  }
}

// strings.SplitN(text, ".", 3): major, minor, and everything after the second dot (patch,
// pre-release and build, which may contain more dots).
std::vector<std::string_view> split_version_parts(std::string_view text) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (parts.size() < 2) {
    const std::size_t at = text.find('.', start);
    if (at == std::string_view::npos) break;
    parts.push_back(text.substr(start, at - start));
    start = at + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}

// A major, minor or patch number as Parse accepts it: digits only, no leading zero, fits
// uint64.
std::optional<std::uint64_t> parse_version_number(std::string_view text) {
  if (!only_digits(text) || has_leading_zero(text)) return std::nullopt;
  return parse_uint64(text);
}

// NewPRVersion: non-empty; an all-digit identifier is numeric (no leading zero, fits uint64),
// anything else must be alphanumeric.
bool valid_prerelease_identifier(std::string_view text) {
  if (text.empty()) return false;
  if (only_digits(text)) return !has_leading_zero(text) && parse_uint64(text).has_value();
  return only_identifier_chars(text);
}

// The characters Go's unicode.IsSpace accepts, UTF-8 encoded: strings.TrimSpace trims them
// from both ends before ParseTolerant does anything else.
constexpr std::array<std::string_view, 25> kGoSpaces = {
    "\t",           "\n",           "\v",           "\f",           "\r",           " ",
    "\xC2\x85",     "\xC2\xA0",     "\xE1\x9A\x80", "\xE2\x80\x80", "\xE2\x80\x81", "\xE2\x80\x82",
    "\xE2\x80\x83", "\xE2\x80\x84", "\xE2\x80\x85", "\xE2\x80\x86", "\xE2\x80\x87", "\xE2\x80\x88",
    "\xE2\x80\x89", "\xE2\x80\x8A", "\xE2\x80\xA8", "\xE2\x80\xA9", "\xE2\x80\xAF", "\xE2\x81\x9F",
    "\xE3\x80\x80",
};

// The length of the Go space `text` starts with (at_end: ends with), or 0.
std::size_t go_space_at(std::string_view text, bool at_end) {
  for (std::string_view space : kGoSpaces) {
    if (at_end ? text.ends_with(space) : text.starts_with(space)) return space.size();
  }
  return 0;
}

std::string_view trim_go_space(std::string_view text) {
  // Bounded: each round removes at least one byte.
  for (std::size_t n = go_space_at(text, false); n > 0; n = go_space_at(text, false)) {
    text.remove_prefix(n);
  }
  for (std::size_t n = go_space_at(text, true); n > 0; n = go_space_at(text, true)) {
    text.remove_suffix(n);
  }
  return text;
}

// Numeric identifiers are compared by value. Parse guarantees no leading zeros, but a SemVer
// can be built by hand, so compare without converting (no overflow): strip zeros, then the
// longer digit string is the larger number, and equal lengths compare lexically.
int compare_numeric(std::string_view a, std::string_view b) {
  a.remove_prefix(std::min(a.find_first_not_of('0'), a.size()));
  b.remove_prefix(std::min(b.find_first_not_of('0'), b.size()));
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  const int order = a.compare(b);
  return order < 0 ? -1 : (order > 0 ? 1 : 0);
}

// PRVersion.Compare: numeric below alphanumeric; numeric by value; alphanumeric by bytes (Go
// string comparison).
int compare_prerelease_identifier(std::string_view a, std::string_view b) {
  const bool a_numeric = !a.empty() && only_digits(a);
  const bool b_numeric = !b.empty() && only_digits(b);
  if (a_numeric && b_numeric) return compare_numeric(a, b);
  if (a_numeric) return -1;
  if (b_numeric) return 1;
  const int order = a.compare(b);
  return order < 0 ? -1 : (order > 0 ? 1 : 0);
}

int compare_number(std::uint64_t a, std::uint64_t b) { return a < b ? -1 : (a > b ? 1 : 0); }

}  // namespace

std::optional<SemVer> parse_semver(std::string_view text) {
  if (text.empty()) return std::nullopt;
  const std::vector<std::string_view> parts = split_version_parts(text);
  if (parts.size() != 3) return std::nullopt;

  SemVer version;
  const auto major = parse_version_number(parts[0]);
  if (!major) return std::nullopt;
  const auto minor = parse_version_number(parts[1]);
  if (!minor) return std::nullopt;
  version.major = *major;
  version.minor = *minor;

  // The first '+' starts the build metadata, and only then the first '-' before it starts the
  // pre-release: "1.2.3+b-1" has build "b-1" and no pre-release.
  std::string_view patch = parts[2];
  std::vector<std::string_view> build;
  if (const std::size_t plus = patch.find('+'); plus != std::string_view::npos) {
    build = split(patch.substr(plus + 1), '.');
    patch = patch.substr(0, plus);
  }
  std::vector<std::string_view> prerelease;
  if (const std::size_t dash = patch.find('-'); dash != std::string_view::npos) {
    prerelease = split(patch.substr(dash + 1), '.');
    patch = patch.substr(0, dash);
  }
  const auto patch_number = parse_version_number(patch);
  if (!patch_number) return std::nullopt;
  version.patch = *patch_number;

  for (std::string_view identifier : prerelease) {
    if (!valid_prerelease_identifier(identifier)) return std::nullopt;
    version.pre.emplace_back(identifier);
  }
  // Build metadata is validated (non-empty, alphanumeric) but not kept: Compare ignores it.
  for (std::string_view identifier : build) {
    if (identifier.empty() || !only_identifier_chars(identifier)) return std::nullopt;
  }
  return version;
}

std::optional<SemVer> parse_semver_tolerant(std::string_view text) {
  text = trim_go_space(text);
  // v4.0.0 strips only "v"; later revisions also accept "V" (the header's contract).
  if (!text.empty() && (text.front() == 'v' || text.front() == 'V')) text.remove_prefix(1);

  std::vector<std::string> parts;
  for (std::string_view part : split_version_parts(text)) {
    // Leading zeros go from every part longer than one character, including the third part
    // with its pre-release and build ("03-rc" becomes "3-rc"); a part left empty or starting
    // with a non-digit gets one "0" back ("00" -> "0", "0-rc" stays "0-rc").
    if (part.size() > 1) {
      part.remove_prefix(std::min(part.find_first_not_of('0'), part.size()));
      if (part.empty() || !is_digit(part.front())) {
        parts.push_back("0" + std::string(part));
        continue;
      }
    }
    parts.emplace_back(part);
  }
  if (parts.size() < 3) {
    // "1.2-rc" is not read as 1.2.0-rc: a short form may not carry a pre-release or build.
    if (parts.back().find_first_of("+-") != std::string::npos) return std::nullopt;
    while (parts.size() < 3) parts.emplace_back("0");
  }
  return parse_semver(parts[0] + "." + parts[1] + "." + parts[2]);
}

int compare(const SemVer& a, const SemVer& b) {
  if (const int order = compare_number(a.major, b.major); order != 0) return order;
  if (const int order = compare_number(a.minor, b.minor); order != 0) return order;
  if (const int order = compare_number(a.patch, b.patch); order != 0) return order;
  // A release ranks above its pre-releases (1.0.0-rc.1 < 1.0.0).
  if (a.pre.empty() || b.pre.empty()) {
    if (a.pre.empty() && b.pre.empty()) return 0;
    return a.pre.empty() ? 1 : -1;
  }
  const std::size_t common = std::min(a.pre.size(), b.pre.size());
  for (std::size_t i = 0; i < common; ++i) {
    if (const int order = compare_prerelease_identifier(a.pre[i], b.pre[i]); order != 0) {
      return order;
    }
  }
  // Equal so far: the longer list of identifiers is the larger (alpha < alpha.1).
  return compare_number(a.pre.size(), b.pre.size());
}

std::string to_string(const SemVer& version) {
  std::string text = std::to_string(version.major) + "." + std::to_string(version.minor) + "." +
                     std::to_string(version.patch);
  for (std::size_t i = 0; i < version.pre.size(); ++i) {
    text += i == 0 ? '-' : '.';
    text += version.pre[i];
  }
  return text;
}

}  // namespace hasim::election
