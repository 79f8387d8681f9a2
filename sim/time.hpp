#pragma once
// Simulated time. Everything is integer nanoseconds: true time (the simulator's global
// order), local time (what a node's clock reads) and durations are distinct types so a
// model cannot mix them up. Floating point never enters time arithmetic.
#include <compare>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace hasim {

struct Duration {
  std::int64_t ns = 0;
  constexpr auto operator<=>(const Duration&) const = default;
  constexpr Duration operator+(Duration other) const { return {ns + other.ns}; }
  constexpr Duration operator-(Duration other) const { return {ns - other.ns}; }
  constexpr Duration operator-() const { return {-ns}; }
  constexpr Duration operator*(std::int64_t k) const { return {ns * k}; }
  constexpr Duration operator/(std::int64_t k) const { return {ns / k}; }
  constexpr Duration& operator+=(Duration other) {
    ns += other.ns;
    return *this;
  }
  constexpr Duration& operator-=(Duration other) {
    ns -= other.ns;
    return *this;
  }
};

constexpr Duration nanoseconds(std::int64_t n) { return {n}; }
constexpr Duration microseconds(std::int64_t n) { return {n * 1'000}; }
constexpr Duration milliseconds(std::int64_t n) { return {n * 1'000'000}; }
constexpr Duration seconds(std::int64_t n) { return {n * 1'000'000'000}; }
constexpr Duration minutes(std::int64_t n) { return seconds(n * 60); }
constexpr Duration hours(std::int64_t n) { return seconds(n * 3600); }

// The simulator's global time, nanoseconds since the start of a run. Only sim/ and
// properties see it; models see LocalTime through their Env.
struct TrueTime {
  std::int64_t ns = 0;
  constexpr auto operator<=>(const TrueTime&) const = default;
  constexpr TrueTime operator+(Duration d) const { return {ns + d.ns}; }
  constexpr TrueTime operator-(Duration d) const { return {ns - d.ns}; }
  constexpr Duration operator-(TrueTime other) const { return {ns - other.ns}; }
  static constexpr TrueTime max() { return {std::numeric_limits<std::int64_t>::max()}; }
};

// A reading of one node's clock (wall or monotonic). Only differences of readings of the
// same clock are meaningful, which is exactly the rule client-go's election follows.
struct LocalTime {
  std::int64_t ns = 0;
  constexpr auto operator<=>(const LocalTime&) const = default;
  constexpr LocalTime operator+(Duration d) const { return {ns + d.ns}; }
  constexpr LocalTime operator-(Duration d) const { return {ns - d.ns}; }
  constexpr Duration operator-(LocalTime other) const { return {ns - other.ns}; }
};

// Parses Go-style durations: a sequence of decimal numbers, each with an optional fraction
// and a unit ("ns", "us", "µs", "ms", "s", "m", "h"), e.g. "150ms", "1.5s", "2h", "1m30s".
// A lone "0" is zero. A leading '-' is accepted; callers decide whether negatives are valid.
// Fractions are exact (decimal arithmetic, no floating point). On failure returns nullopt
// and, if `error` is given, a sentence saying what is wrong.
std::optional<Duration> parse_duration(std::string_view text, std::string* error = nullptr);

// Formats like Go's time.Duration.String(): "0s", "150ms", "1.5s", "1h2m3.5s".
std::string format_duration(Duration d);

// Seconds with nanosecond precision for traces and summaries: "12.000000150".
std::string format_seconds(std::int64_t ns);

namespace literals {
constexpr Duration operator""_ns(unsigned long long n) {
  return nanoseconds(static_cast<std::int64_t>(n));
}
constexpr Duration operator""_us(unsigned long long n) {
  return microseconds(static_cast<std::int64_t>(n));
}
constexpr Duration operator""_ms(unsigned long long n) {
  return milliseconds(static_cast<std::int64_t>(n));
}
constexpr Duration operator""_s(unsigned long long n) {
  return seconds(static_cast<std::int64_t>(n));
}
constexpr Duration operator""_min(unsigned long long n) {
  return minutes(static_cast<std::int64_t>(n));
}
constexpr Duration operator""_h(unsigned long long n) {
  return hours(static_cast<std::int64_t>(n));
}
}  // namespace literals

}  // namespace hasim
