#include "reports/stats.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "sim/assert.hpp"
#include "sim/int128.hpp"

namespace hasim {

Interval wilson_interval(std::uint64_t successes, std::uint64_t trials, double z) {
  HASIM_ASSERT(successes <= trials);
  HASIM_ASSERT(z > 0);
  if (trials == 0) return {0, 1};
  const double n = static_cast<double>(trials);
  const double p = static_cast<double>(successes) / n;
  const double z2 = z * z;
  const double denominator = 1 + z2 / n;
  const double centre = (p + z2 / (2 * n)) / denominator;
  const double half_width = z / denominator * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  // At 0 (or n) successes the bound is exactly 0 (or 1) mathematically; rounding could put
  // it a hair outside [0, 1] or off the observed proportion, so pin it.
  Interval interval{std::clamp(centre - half_width, 0.0, 1.0),
                    std::clamp(centre + half_width, 0.0, 1.0)};
  if (successes == 0) interval.low = 0;
  if (successes == trials) interval.high = 1;
  return interval;
}

Duration nearest_rank_quantile(const std::vector<Duration>& sorted, std::uint64_t numerator,
                               std::uint64_t denominator) {
  HASIM_ASSERT(!sorted.empty());
  HASIM_ASSERT(numerator > 0 && numerator <= denominator);
  const UInt128 n = sorted.size();
  // ceil(n * numerator / denominator), in 128 bits so the product cannot overflow.
  const UInt128 rank = (n * numerator + denominator - 1) / denominator;
  HASIM_ASSERT(rank >= 1 && rank <= n);
  return sorted[static_cast<std::size_t>(rank - 1)];
}

DurationSummary summarize_durations(std::vector<Duration> samples) {
  DurationSummary summary;
  if (samples.empty()) return summary;
  std::sort(samples.begin(), samples.end());
  summary.count = samples.size();
  summary.min = samples.front();
  summary.max = samples.back();
  summary.p50 = nearest_rank_quantile(samples, 1, 2);
  summary.p90 = nearest_rank_quantile(samples, 9, 10);
  summary.p99 = nearest_rank_quantile(samples, 99, 100);
  Int128 sum = 0;
  for (const Duration d : samples) sum += d.ns;
  const Int128 count = static_cast<Int128>(summary.count);
  Int128 mean = sum / count;  // truncates toward zero
  const Int128 remainder = sum % count;
  if (2 * (remainder < 0 ? -remainder : remainder) >= count) mean += sum < 0 ? -1 : 1;
  // The mean lies between min and max, so it fits in 64 bits.
  summary.mean = Duration{static_cast<std::int64_t>(mean)};
  return summary;
}

DurationInterval median_interval(const std::vector<Duration>& sorted, double z) {
  HASIM_ASSERT(!sorted.empty() && z > 0);
  HASIM_ASSERT(std::is_sorted(sorted.begin(), sorted.end()));
  const double n = static_cast<double>(sorted.size());
  const double half_width = z * std::sqrt(n) / 2;
  // 1-based ranks, outward to whole ranks.
  const double low = std::floor(n / 2 - half_width);
  const double high = std::ceil(n / 2 + half_width) + 1;
  const auto rank = [&](double r) { return static_cast<std::size_t>(std::clamp(r, 1.0, n)) - 1; };
  const DurationInterval interval{sorted[rank(low)], sorted[rank(high)]};
  HASIM_ASSERT(interval.low <= interval.high);
  return interval;
}

CountSummary summarize_counts(std::vector<std::int64_t> samples, double z) {
  CountSummary s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  HASIM_ASSERT(samples.front() >= 0);
  s.count = samples.size();
  const auto at_rank = [&](std::uint64_t numerator, std::uint64_t denominator) {
    return samples[static_cast<std::size_t>((s.count * numerator + denominator - 1) / denominator) -
                   1];
  };
  s.p50 = at_rank(1, 2);
  s.p90 = at_rank(9, 10);
  s.max = samples.back();
  for (const std::int64_t v : samples) s.total += v;
  const double n = static_cast<double>(s.count);
  s.mean = static_cast<double>(s.total) / n;
  double squares = 0;
  for (const std::int64_t v : samples) {
    const double d = static_cast<double>(v) - s.mean;
    squares += d * d;
  }
  const double sd = s.count > 1 ? std::sqrt(squares / (n - 1)) : 0.0;
  const double half_width = z * sd / std::sqrt(n);
  s.mean_low = std::max(0.0, s.mean - half_width);
  s.mean_high = s.mean + half_width;
  return s;
}

std::vector<std::pair<Duration, double>> empirical_cdf(const std::vector<Duration>& sorted) {
  HASIM_ASSERT(std::is_sorted(sorted.begin(), sorted.end()));
  std::vector<std::pair<Duration, double>> points;
  const double n = static_cast<double>(sorted.size());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    // One point per distinct value, at the last sample equal to it.
    if (i + 1 < sorted.size() && sorted[i + 1] == sorted[i]) continue;
    points.emplace_back(sorted[i], static_cast<double>(i + 1) / n);
  }
  return points;
}

std::string format_probability(double probability) {
  if (!std::isfinite(probability)) return "n/a";
  // std::to_chars is specified to ignore the C locale, unlike printf ("25,3%" in de_DE).
  // Adding 0.0 turns -0.0 into +0.0 so a zero never prints as "-0.0%".
  const double percent = probability * 100 + 0.0;
  char buffer[400];
  std::string text;
  // One decimal, but never "0.0%" or "100.0%" for a value that is not exactly 0 or 1: the
  // upper bound after 0 of 10,000 trials is 0.04%, and "[0.0%, 0.0%]" would claim
  // certainty the data does not have. More decimals, up to 6, until the text is honest.
  for (int decimals = 1; decimals <= 6; ++decimals) {
    const auto result =
        std::to_chars(buffer, buffer + sizeof buffer, percent, std::chars_format::fixed, decimals);
    HASIM_ASSERT(result.ec == std::errc{});
    text.assign(buffer, result.ptr);
    const bool shows_zero = text.find_first_not_of("-0.") == std::string::npos;
    const bool shows_hundred =
        text.rfind("100.", 0) == 0 && text.find_first_not_of('0', 4) == std::string::npos;
    const bool misleading = (shows_zero && percent != 0) || (shows_hundred && percent != 100);
    if (!misleading) break;
  }
  return text + "%";
}

std::string format_interval(Interval interval) {
  return "[" + format_probability(interval.low) + ", " + format_probability(interval.high) + "]";
}

std::string format_seconds_ms(Duration d) {
  const std::int64_t ms = (d.ns + 500'000) / 1'000'000;
  std::string frac = std::to_string(ms % 1000);
  return std::to_string(ms / 1000) + "." + std::string(3 - frac.size(), '0') + frac + " s";
}

std::string format_fixed(double value, int decimals) {
  char buffer[400];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value + 0.0,
                                    std::chars_format::fixed, decimals);
  HASIM_ASSERT(result.ec == std::errc{});
  return std::string(buffer, result.ptr);
}

}  // namespace hasim
