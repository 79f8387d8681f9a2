#include "sim/time.hpp"

#include <array>
#include <cstdio>

#include "sim/assert.hpp"
#include "sim/int128.hpp"

namespace hasim {
namespace {

struct Unit {
  std::string_view name;
  std::int64_t ns;
};
// Longest names first so "ms" is not read as "m" followed by garbage.
constexpr std::array<Unit, 8> kUnits{{{"ns", 1},
                                      {"us", 1'000},
                                      {"µs", 1'000},
                                      {"μs", 1'000},
                                      {"ms", 1'000'000},
                                      {"s", 1'000'000'000},
                                      {"m", 60'000'000'000},
                                      {"h", 3'600'000'000'000}}};

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

bool fail(std::string* error, std::string message) {
  if (error != nullptr) *error = std::move(message);
  return false;
}

// Reads one "<digits>[.<digits>]<unit>" group, adding its value in ns to `total`.
bool parse_group(std::string_view text, std::size_t& pos, std::int64_t& total, std::string* error) {
  const std::string_view quoted = text;
  std::int64_t whole = 0;
  std::size_t digits = 0;
  bool overflow = false;
  while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
    const int digit = text[pos] - '0';
    if (whole > (kMax - digit) / 10) overflow = true;
    if (!overflow) whole = whole * 10 + digit;
    ++pos;
    ++digits;
  }
  // Fraction digits beyond nanosecond resolution of the smallest unit are ignored, as Go does.
  std::int64_t fraction = 0;
  std::int64_t fraction_scale = 1;
  std::size_t fraction_digits = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (fraction_scale <= 1'000'000'000'000'000) {
        fraction = fraction * 10 + (text[pos] - '0');
        fraction_scale *= 10;
      }
      ++pos;
      ++fraction_digits;
    }
  }
  if (digits == 0 && fraction_digits == 0) {
    return fail(error, "expected a number in \"" + std::string(quoted) + "\"");
  }
  for (const Unit& unit : kUnits) {
    if (text.substr(pos, unit.name.size()) != unit.name) continue;
    // Reject "5m" followed by "s" etc. only where the longer name was intended; the order of
    // kUnits guarantees "ms" is tried before "m".
    pos += unit.name.size();
    if (overflow || whole > kMax / unit.ns) {
      return fail(error, "\"" + std::string(quoted) + "\" is too large (at most about 292 years)");
    }
    const std::int64_t value = whole * unit.ns;
    // fraction/fraction_scale of a unit, exact up to the truncation of extra digits.
    const Int128 fraction_ns = static_cast<Int128>(fraction) * unit.ns / fraction_scale;
    if (value > kMax - static_cast<std::int64_t>(fraction_ns) ||
        total > kMax - value - static_cast<std::int64_t>(fraction_ns)) {
      return fail(error, "\"" + std::string(quoted) + "\" is too large (at most about 292 years)");
    }
    total += value + static_cast<std::int64_t>(fraction_ns);
    return true;
  }
  return fail(error, "missing or unknown unit in \"" + std::string(quoted) +
                         "\": use ns, us, ms, s, m or h, e.g. \"150ms\" or \"1.5s\"");
}

}  // namespace

std::optional<Duration> parse_duration(std::string_view text, std::string* error) {
  if (text.empty()) {
    fail(error, "empty duration: write e.g. \"150ms\", \"1.5s\" or \"2h\"");
    return std::nullopt;
  }
  std::size_t pos = 0;
  bool negative = false;
  if (text[0] == '-' || text[0] == '+') {
    negative = text[0] == '-';
    pos = 1;
  }
  if (text.substr(pos) == "0") return Duration{0};
  if (pos == text.size()) {
    fail(error, "\"" + std::string(text) + "\" is not a duration: write e.g. \"150ms\"");
    return std::nullopt;
  }
  std::int64_t total = 0;
  while (pos < text.size()) {
    if (!parse_group(text, pos, total, error)) return std::nullopt;
  }
  return Duration{negative ? -total : total};
}

std::string format_duration(Duration d) {
  if (d.ns == 0) return "0s";
  std::string sign = d.ns < 0 ? "-" : "";
  // Work in unsigned so the most negative value formats too.
  std::uint64_t u =
      d.ns < 0 ? static_cast<std::uint64_t>(-(d.ns + 1)) + 1 : static_cast<std::uint64_t>(d.ns);
  auto fraction = [](std::uint64_t value, std::uint64_t scale) {
    // value/scale as "<int>[.<digits without trailing zeros>]"
    std::string out = std::to_string(value / scale);
    std::uint64_t rest = value % scale;
    if (rest == 0) return out;
    std::string digits;
    for (std::uint64_t s = scale / 10; s > 0; s /= 10) {
      digits.push_back(static_cast<char>('0' + (rest / s) % 10));
    }
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
    return out + "." + digits;
  };
  if (u < 1'000) return sign + std::to_string(u) + "ns";
  if (u < 1'000'000) return sign + fraction(u, 1'000) + "µs";
  if (u < 1'000'000'000) return sign + fraction(u, 1'000'000) + "ms";
  std::string out = sign;
  const std::uint64_t h = u / 3'600'000'000'000ULL;
  u %= 3'600'000'000'000ULL;
  const std::uint64_t m = u / 60'000'000'000ULL;
  u %= 60'000'000'000ULL;
  if (h > 0) out += std::to_string(h) + "h";
  if (h > 0 || m > 0) out += std::to_string(m) + "m";
  return out + fraction(u, 1'000'000'000ULL) + "s";
}

std::string format_seconds(std::int64_t ns) {
  // "%lld.%09lld" by hand: snprintf's format parsing cost more than the digits (properties
  // describe the events behind their findings with it, several per trial).
  HASIM_ASSERT(ns >= 0);
  char buffer[32];
  char* end = buffer + sizeof buffer;
  char* at = end;
  std::int64_t fraction = ns % 1'000'000'000;
  for (int digit = 0; digit < 9; ++digit) {
    *--at = static_cast<char>('0' + fraction % 10);
    fraction /= 10;
  }
  *--at = '.';
  std::int64_t seconds = ns / 1'000'000'000;
  do {  // at most 10 digits: INT64_MAX ns is 9223372036 s
    HASIM_ASSERT(at > buffer);
    *--at = static_cast<char>('0' + seconds % 10);
    seconds /= 10;
  } while (seconds > 0);
  return std::string(at, end);
}

}  // namespace hasim
