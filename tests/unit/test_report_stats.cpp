// Report statistics: Wilson score intervals against values computed independently (by
// solving (p - q)^2 = z^2 q (1 - q) / n for q, the interval's definition, in Python),
// nearest-rank quantiles and exact means on hand-made samples, empirical CDFs, and the
// percentage formats.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <cmath>

#include "reports/stats.hpp"

using namespace hasim;
using namespace hasim::literals;

namespace {

void check_interval(std::uint64_t successes, std::uint64_t trials, double low, double high) {
  const Interval interval = wilson_interval(successes, trials);
  INFO(successes << "/" << trials << " gave [" << interval.low << ", " << interval.high << "]");
  CHECK(interval.low == Approx(low).margin(5e-5));
  CHECK(interval.high == Approx(high).margin(5e-5));
}

std::vector<Duration> ns(std::initializer_list<std::int64_t> values) {
  std::vector<Duration> out;
  for (const std::int64_t v : values) out.push_back(Duration{v});
  return out;
}

}  // namespace

TEST_CASE("wilson_interval matches independently computed 95% intervals", "[report][stats]") {
  check_interval(0, 10, 0.0000, 0.2775);
  check_interval(5, 10, 0.2366, 0.7634);
  check_interval(25, 100, 0.1755, 0.3430);
  check_interval(10, 10, 0.7225, 1.0000);
  check_interval(3, 7, 0.1582, 0.7495);
  check_interval(1, 1000, 0.0002, 0.0056);
  check_interval(9999, 10000, 0.9994, 1.0000);
}

TEST_CASE("wilson_interval pins the bounds at 0 and all successes", "[report][stats]") {
  CHECK(wilson_interval(0, 10'000).low == 0.0);
  CHECK(wilson_interval(0, 10'000).high > 0.0);  // zero observed violations is not "never"
  CHECK(wilson_interval(10'000, 10'000).high == 1.0);
  CHECK(wilson_interval(10'000, 10'000).low < 1.0);
  CHECK(wilson_interval(0, 0) == Interval{0, 1});
}

TEST_CASE("wilson_interval uses the given z", "[report][stats]") {
  // z = 1 (about 68%) is narrower than 95%; 5/10 with z = 1: 0.5 +- sqrt(0.025 + 0.0025)/1.1.
  const Interval narrow = wilson_interval(5, 10, 1.0);
  CHECK(narrow.low == Approx(0.5 - std::sqrt(0.0275) / 1.1).margin(1e-12));
  CHECK(narrow.high == Approx(0.5 + std::sqrt(0.0275) / 1.1).margin(1e-12));
}

TEST_CASE("wilson_interval contains the observed proportion and narrows with more trials",
          "[report][stats]") {
  rc::prop("0 <= low <= k/n <= high <= 1, and 4x the trials gives a narrower interval", [] {
    const auto trials = *rc::gen::inRange<std::uint64_t>(1, 1'000'000);
    const auto successes = *rc::gen::inRange<std::uint64_t>(0, trials + 1);
    const Interval interval = wilson_interval(successes, trials);
    const double p = static_cast<double>(successes) / static_cast<double>(trials);
    RC_ASSERT(0.0 <= interval.low);
    RC_ASSERT(interval.low <= p + 1e-12);
    RC_ASSERT(p - 1e-12 <= interval.high);
    RC_ASSERT(interval.high <= 1.0);
    const Interval more = wilson_interval(4 * successes, 4 * trials);
    RC_ASSERT(more.high - more.low < interval.high - interval.low);
  });
}

TEST_CASE("nearest-rank quantiles on small samples", "[report][stats]") {
  const std::vector<Duration> ten = ns({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  CHECK(nearest_rank_quantile(ten, 1, 2) == Duration{5});      // rank ceil(5) = 5
  CHECK(nearest_rank_quantile(ten, 9, 10) == Duration{9});     // rank ceil(9) = 9
  CHECK(nearest_rank_quantile(ten, 99, 100) == Duration{10});  // rank ceil(9.9) = 10
  CHECK(nearest_rank_quantile(ten, 1, 100) == Duration{1});    // rank ceil(0.1) = 1
  CHECK(nearest_rank_quantile(ten, 1, 1) == Duration{10});
  const std::vector<Duration> three = ns({10, 20, 30});
  CHECK(nearest_rank_quantile(three, 1, 2) == Duration{20});  // rank ceil(1.5) = 2
  CHECK(nearest_rank_quantile(three, 1, 3) == Duration{10});  // rank exactly 1
  CHECK(nearest_rank_quantile(three, 9, 10) == Duration{30});
}

TEST_CASE("nearest-rank quantile satisfies its definition", "[report][stats]") {
  rc::prop("at least ceil(qn) samples <= x and fewer than ceil(qn) samples < x", [] {
    auto samples = *rc::gen::nonEmpty(rc::gen::container<std::vector<std::int64_t>>(
        rc::gen::inRange<std::int64_t>(-1'000, 1'000)));
    std::vector<Duration> sorted;
    for (const std::int64_t v : samples) sorted.push_back(Duration{v});
    std::sort(sorted.begin(), sorted.end());
    const auto denominator = *rc::gen::inRange<std::uint64_t>(1, 1'000);
    const auto numerator = *rc::gen::inRange<std::uint64_t>(1, denominator + 1);
    const Duration x = nearest_rank_quantile(sorted, numerator, denominator);
    const std::uint64_t n = sorted.size();
    const std::uint64_t rank = (n * numerator + denominator - 1) / denominator;
    const auto at_most = static_cast<std::uint64_t>(
        std::count_if(sorted.begin(), sorted.end(), [&](Duration d) { return d <= x; }));
    const auto below = static_cast<std::uint64_t>(
        std::count_if(sorted.begin(), sorted.end(), [&](Duration d) { return d < x; }));
    RC_ASSERT(at_most >= rank);
    RC_ASSERT(below < rank);
  });
}

TEST_CASE("summarize_durations is exact on hand-made samples", "[report][stats]") {
  // Unsorted on purpose: the summary sorts.
  const DurationSummary s = summarize_durations(ns({7, 3, 10, 1, 5, 9, 2, 8, 6, 4}));
  CHECK(s.count == 10);
  CHECK(s.min == Duration{1});
  CHECK(s.max == Duration{10});
  CHECK(s.p50 == Duration{5});
  CHECK(s.p90 == Duration{9});
  CHECK(s.p99 == Duration{10});
  CHECK(s.mean == Duration{6});  // 5.5 rounds half away from zero

  CHECK(summarize_durations(ns({1, 2, 2})).mean == Duration{2});  // 1.67 -> 2
  CHECK(summarize_durations(ns({1, 1, 2})).mean == Duration{1});  // 1.33 -> 1
  CHECK(summarize_durations(ns({-1, -2})).mean == Duration{-2});  // -1.5 -> -2
  CHECK(summarize_durations(ns({-1, -1, -2})).mean == Duration{-1});

  const DurationSummary one = summarize_durations({15_s});
  CHECK(one == DurationSummary{1, 15_s, 15_s, 15_s, 15_s, 15_s, 15_s});
  CHECK(summarize_durations({}) == DurationSummary{});
}

TEST_CASE("summarize_durations: the mean does not overflow on huge samples", "[report][stats]") {
  // The sum of these exceeds 64 bits; a 64-bit accumulator would wrap to a negative mean.
  const std::int64_t big = std::numeric_limits<std::int64_t>::max() - 1;
  const DurationSummary s = summarize_durations({Duration{big}, Duration{big}, Duration{big}});
  CHECK(s.mean == Duration{big});
  CHECK(s.p50 == Duration{big});
}

TEST_CASE("empirical_cdf has one step per distinct value", "[report][stats]") {
  const auto cdf = empirical_cdf(ns({1, 1, 2, 5}));
  REQUIRE(cdf.size() == 3);
  CHECK(cdf[0] == std::pair<Duration, double>{Duration{1}, 0.5});
  CHECK(cdf[1] == std::pair<Duration, double>{Duration{2}, 0.75});
  CHECK(cdf[2] == std::pair<Duration, double>{Duration{5}, 1.0});
  CHECK(empirical_cdf({}).empty());
  const auto constant = empirical_cdf(ns({3, 3, 3}));
  REQUIRE(constant.size() == 1);
  CHECK(constant[0].second == 1.0);
}

TEST_CASE("empirical_cdf is increasing and ends at exactly 1", "[report][stats]") {
  rc::prop("values strictly increase, fractions strictly increase, last fraction is 1", [] {
    auto values = *rc::gen::nonEmpty(
        rc::gen::container<std::vector<std::int64_t>>(rc::gen::inRange<std::int64_t>(0, 50)));
    std::sort(values.begin(), values.end());
    std::vector<Duration> sorted;
    for (const std::int64_t v : values) sorted.push_back(Duration{v});
    const auto cdf = empirical_cdf(sorted);
    RC_ASSERT(!cdf.empty());
    for (std::size_t i = 1; i < cdf.size(); ++i) {
      RC_ASSERT(cdf[i - 1].first < cdf[i].first);
      RC_ASSERT(cdf[i - 1].second < cdf[i].second);
    }
    RC_ASSERT(cdf.back().first == sorted.back());
    RC_ASSERT(cdf.back().second == 1.0);
  });
}

TEST_CASE("probabilities and intervals format as percentages with one decimal", "[report][stats]") {
  CHECK(format_probability(0.253) == "25.3%");
  CHECK(format_probability(0.0) == "0.0%");
  CHECK(format_probability(-0.0) == "0.0%");
  CHECK(format_probability(1.0) == "100.0%");
  CHECK(format_probability(0.0004) == "0.04%");  // not "0.0%": it is not zero
  CHECK(format_probability(0.0000004) == "0.00004%");
  CHECK(format_probability(1e-12) == "0.000000%");  // at most 6 decimals
  CHECK(format_probability(0.99998) == "99.998%");  // not "100.0%": it is not one
  CHECK(format_probability(0.0006) == "0.1%");
  CHECK(format_probability(2.0 / 3.0) == "66.7%");
  CHECK(format_probability(std::nan("")) == "n/a");
  CHECK(format_interval({0.221, 0.287}) == "[22.1%, 28.7%]");
  CHECK(format_interval(wilson_interval(25, 100)) == "[17.5%, 34.3%]");
  CHECK(format_interval(wilson_interval(0, 10'000)) == "[0.0%, 0.04%]");
}

TEST_CASE("median_interval takes the order statistics around the median", "[report][stats]") {
  std::vector<Duration> sorted;
  for (std::int64_t i = 1; i <= 100; ++i) sorted.push_back(Duration{i});
  // n = 100: ranks 50 -+ 1.96 x 10 / 2, outward: 40 and 61 (Conover's table gives 40 and 61).
  CHECK(median_interval(sorted) == DurationInterval{Duration{40}, Duration{61}});
  CHECK(median_interval({Duration{7}}) == DurationInterval{Duration{7}, Duration{7}});
  // Few samples: the whole range.
  CHECK(median_interval({Duration{1}, Duration{2}, Duration{3}}) ==
        DurationInterval{Duration{1}, Duration{3}});
}

TEST_CASE("summarize_counts: mean with a normal interval, nearest-rank quantiles",
          "[report][stats]") {
  const CountSummary s = summarize_counts({3, 0, 1, 0});
  CHECK(s.count == 4);
  CHECK(s.mean == 1.0);
  CHECK(s.total == 4);
  CHECK(s.p50 == 0);
  CHECK(s.p90 == 3);
  CHECK(s.max == 3);
  CHECK(s.mean_low == 0.0);  // 1 - 1.96 sqrt(2) / 2 < 0: clipped
  CHECK(s.mean_high == Approx(1 + kZ95 * std::sqrt(2.0) / 2));
  CHECK(summarize_counts({}).count == 0);
  const CountSummary same = summarize_counts({2, 2, 2});
  CHECK(same.mean_low == 2.0);
  CHECK(same.mean_high == 2.0);
}
