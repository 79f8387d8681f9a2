#pragma once
// Duration distributions used by scenarios (latencies, downtimes, jitter). Samples are
// drawn from a caller's Rng and rounded to whole nanoseconds; negative draws clamp to 0.
#include <optional>
#include <string>
#include <string_view>

#include "sim/rng.hpp"
#include "sim/time.hpp"

namespace hasim {

struct DurationDistribution {
  enum class Kind { constant, uniform, exponential, normal, lognormal };
  Kind kind = Kind::constant;
  // constant: value=a. uniform: [a, b]. exponential: mean=a. normal: mean=a, stddev=b.
  // lognormal: median=a, p99=b (b >= a); sigma = ln(p99/median) / z(0.99).
  Duration a{};
  Duration b{};

  static DurationDistribution constant(Duration value) { return {Kind::constant, value, {}}; }
  static DurationDistribution uniform(Duration low, Duration high) {
    return {Kind::uniform, low, high};
  }
  static DurationDistribution exponential(Duration mean) { return {Kind::exponential, mean, {}}; }
  static DurationDistribution normal(Duration mean, Duration stddev) {
    return {Kind::normal, mean, stddev};
  }
  static DurationDistribution lognormal(Duration median, Duration p99) {
    return {Kind::lognormal, median, p99};
  }

  Duration sample(Rng& rng) const;
  // The exact mean where known in closed form (normal ignores clamping at zero).
  double mean_ns() const;
  // "150ms", "30s..90s", "exponential(mean 5ms)", ...
  std::string describe() const;
  bool operator==(const DurationDistribution&) const = default;
};

// The 0.99 quantile of the standard normal distribution.
inline constexpr double kNormalQuantile99 = 2.3263478740408408;

// Parses the string forms: a duration ("150ms") or an inclusive range ("30s..90s").
std::optional<DurationDistribution> parse_duration_distribution(std::string_view text,
                                                                std::string* error = nullptr);

}  // namespace hasim
