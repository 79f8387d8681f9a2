#pragma once
// Statistics for probability reports: 95% Wilson score intervals for probabilities
// estimated from trials, exact summaries and empirical CDFs of durations, and the text forms
// reports print them in. Durations stay integer nanoseconds throughout (quantiles are sample
// values, the mean is an exact integer division), so a summary is the same on every
// compiler and platform; floating point appears only where the answer is a fraction.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/time.hpp"

namespace hasim {

// A two-sided confidence interval for a probability, 0 <= low <= high <= 1.
struct Interval {
  double low = 0;
  double high = 1;
  bool operator==(const Interval&) const = default;
};

// The 0.975 quantile of the standard normal distribution: a two-sided 95% interval.
inline constexpr double kZ95 = 1.959963984540054;

// The Wilson score interval (Wilson 1927) for `successes` out of `trials`. Unlike the
// normal approximation p +- z*sqrt(p(1-p)/n) it stays inside [0, 1] and does not collapse
// to zero width at 0 or n successes, which is exactly where rare-violation reports live
// ("0 of 10,000 upgrades broke skew" still gives an upper bound). No trials: {0, 1}.
Interval wilson_interval(std::uint64_t successes, std::uint64_t trials, double z = kZ95);

struct DurationSummary {
  std::uint64_t count = 0;
  Duration min{};
  Duration mean{};
  Duration p50{};
  Duration p90{};
  Duration p99{};
  Duration max{};
  bool operator==(const DurationSummary&) const = default;
};

// Nearest-rank quantile: for 0 < numerator/denominator <= 1 and n sorted samples, the
// sample at 1-based rank ceil(n * numerator / denominator). It is always an observed value
// (no interpolation), computed in integers, and it is the definition where "p99 = x" means
// "at least 99% of trials took at most x". `sorted` must be ascending and non-empty.
Duration nearest_rank_quantile(const std::vector<Duration>& sorted, std::uint64_t numerator,
                               std::uint64_t denominator);

// count, min, max, p50/p90/p99 by nearest rank, and the mean as the exact sum (128-bit)
// divided by the count, rounded to the nearest nanosecond (halves away from zero). The
// samples need not be sorted. No samples: all fields zero.
DurationSummary summarize_durations(std::vector<Duration> samples);

// A distribution-free 95% interval for the median of ascending samples: the sample values at
// ranks n/2 -+ z sqrt(n)/2 (the normal approximation to the binomial count of samples below
// the median; Conover, Practical Nonparametric Statistics, 3.2), widened outward to whole
// ranks and clipped to [1, n]. It needs no assumption about the distribution's shape, and
// its ends are observed values. `sorted` ascending and non-empty.
struct DurationInterval {
  Duration low{};
  Duration high{};
  bool operator==(const DurationInterval&) const = default;
};
DurationInterval median_interval(const std::vector<Duration>& sorted, double z = kZ95);

// Counts per trial (messages resent, say): the mean with a 95% normal-approximation interval
// (mean -+ z s / sqrt(n), s the sample standard deviation; fine for the hundreds of trials a
// study runs, and never below 0 since counts are not), nearest-rank p50 / p90, max and total.
// No samples: all zero.
struct CountSummary {
  std::uint64_t count = 0;
  double mean = 0;
  double mean_low = 0;
  double mean_high = 0;
  std::int64_t p50 = 0;
  std::int64_t p90 = 0;
  std::int64_t max = 0;
  std::int64_t total = 0;
};
CountSummary summarize_counts(std::vector<std::int64_t> samples, double z = kZ95);

// The empirical CDF of ascending samples as step points: for each distinct value x, in
// ascending order, (x, fraction of samples <= x). The last point's fraction is exactly 1.
// No samples: no points.
std::vector<std::pair<Duration, double>> empirical_cdf(const std::vector<Duration>& sorted);

// "25.3%": a probability as a percentage with one decimal (locale-independent). A value
// that is not exactly 0 or 1 but would show as "0.0%" or "100.0%" gets as many more
// decimals (up to 6) as it takes not to: "0.04%", "99.998%".
std::string format_probability(double probability);
// "[22.1%, 28.7%]"
std::string format_interval(Interval interval);

// "15.517 s": a duration in seconds to the millisecond, the precision a reader of report
// durations needs (rounded half up; durations in reports are not negative).
std::string format_seconds_ms(Duration d);

// A fixed-point number with `decimals` decimals; std::to_chars ignores the C locale, unlike
// printf, so the text is the same everywhere.
std::string format_fixed(double value, int decimals);

}  // namespace hasim
