#include "reports/report_text.hpp"

#include <algorithm>

namespace hasim::report_text {

std::vector<Duration> sorted(std::vector<Duration> samples) {
  std::sort(samples.begin(), samples.end());
  return samples;
}

double fraction(std::uint64_t k, std::uint64_t n) {
  return n == 0 ? 0.0 : static_cast<double>(k) / static_cast<double>(n);
}

std::string probability(std::uint64_t k, std::uint64_t n) {
  return std::to_string(k) + "/" + std::to_string(n) + " (" + format_probability(fraction(k, n)) +
         " " + format_interval(wilson_interval(k, n)) + ")";
}

std::string median(const std::vector<Duration>& samples) {
  if (samples.empty()) return "-";
  const std::vector<Duration> s = sorted(samples);
  const DurationInterval ci = median_interval(s);
  return format_seconds_ms(nearest_rank_quantile(s, 1, 2)) + " [" + format_seconds_ms(ci.low) +
         ", " + format_seconds_ms(ci.high) + "]";
}

std::string tail(const std::vector<Duration>& samples) {
  if (samples.empty()) return "-";
  const DurationSummary s = summarize_durations(samples);
  return format_seconds_ms(s.p90) + " / " + format_seconds_ms(s.max);
}

std::string count(const std::vector<std::int64_t>& samples) {
  const CountSummary s = summarize_counts(samples);
  return format_fixed(s.mean, 2) + " [" + format_fixed(s.mean_low, 2) + ", " +
         format_fixed(s.mean_high, 2) + "], p90 " + std::to_string(s.p90);
}

}  // namespace hasim::report_text
