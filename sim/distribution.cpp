#include "sim/distribution.hpp"

#include <cmath>

#include "sim/assert.hpp"

namespace hasim {
namespace {
// Samples of the unbounded kinds stop at 100000h (about 11 years; the longest duration a
// scenario may give): a delay that long never ends within a run, and the bound keeps "now +
// sample" (and a sum of a few samples) within 64-bit nanoseconds.
constexpr double kMaxSampleNs = 3.6e17;

Duration clamp_round(double ns) {
  if (!(ns > 0.0)) return Duration{0};
  if (ns >= kMaxSampleNs) return Duration{static_cast<std::int64_t>(kMaxSampleNs)};
  return Duration{static_cast<std::int64_t>(std::llround(ns))};
}
}  // namespace

Duration DurationDistribution::sample(Rng& rng) const {
  switch (kind) {
    // Negative values clamp to 0 like every other kind (a latency cannot be negative).
    case Kind::constant:
      return a.ns < 0 ? Duration{0} : a;
    case Kind::uniform: {
      HASIM_ASSERT(a <= b);
      const std::int64_t ns = rng.uniform_int(a.ns, b.ns);
      return Duration{ns < 0 ? 0 : ns};
    }
    case Kind::exponential:
      return clamp_round(rng.exponential(static_cast<double>(a.ns)));
    case Kind::normal:
      return clamp_round(rng.normal(static_cast<double>(a.ns), static_cast<double>(b.ns)));
    case Kind::lognormal: {
      HASIM_ASSERT(a.ns > 0 && b >= a);
      const double mu = std::log(static_cast<double>(a.ns));
      const double sigma = (std::log(static_cast<double>(b.ns)) - mu) / kNormalQuantile99;
      return clamp_round(rng.lognormal(mu, sigma));
    }
  }
  HASIM_ASSERT(false && "unknown distribution kind");
  return {};
}

double DurationDistribution::mean_ns() const {
  const double x = static_cast<double>(a.ns);
  const double y = static_cast<double>(b.ns);
  switch (kind) {
    case Kind::constant:
      return x;
    case Kind::uniform:
      return (x + y) / 2.0;
    case Kind::exponential:
      return x;
    case Kind::normal:
      return x;
    case Kind::lognormal: {
      const double sigma = (std::log(y) - std::log(x)) / kNormalQuantile99;
      return x * std::exp(sigma * sigma / 2.0);
    }
  }
  return 0.0;
}

std::string DurationDistribution::describe() const {
  switch (kind) {
    case Kind::constant:
      return format_duration(a);
    case Kind::uniform:
      return format_duration(a) + ".." + format_duration(b);
    case Kind::exponential:
      return "exponential(mean " + format_duration(a) + ")";
    case Kind::normal:
      return "normal(mean " + format_duration(a) + ", stddev " + format_duration(b) + ")";
    case Kind::lognormal:
      return "lognormal(median " + format_duration(a) + ", p99 " + format_duration(b) + ")";
  }
  return "?";
}

std::optional<DurationDistribution> parse_duration_distribution(std::string_view text,
                                                                std::string* error) {
  const std::size_t dots = text.find("..");
  if (dots == std::string_view::npos) {
    auto value = parse_duration(text, error);
    if (!value) return std::nullopt;
    return DurationDistribution::constant(*value);
  }
  // "0s...5s" would otherwise read as 0s..0.5s (".5s" is a valid duration).
  if (text.substr(dots + 2).starts_with('.')) {
    if (error)
      *error = "range \"" + std::string(text) + "\" has too many dots: write e.g. \"30s..90s\"";
    return std::nullopt;
  }
  auto low = parse_duration(text.substr(0, dots), error);
  if (!low) return std::nullopt;
  auto high = parse_duration(text.substr(dots + 2), error);
  if (!high) return std::nullopt;
  if (*low > *high) {
    if (error) *error = "range \"" + std::string(text) + "\" has its low end above its high end";
    return std::nullopt;
  }
  return DurationDistribution::uniform(*low, *high);
}

}  // namespace hasim
