#include "reports/diff_stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "reports/stats.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

// Beyond this z the normal tail (about 1e-300) underflows; p-values stop there.
constexpr double kMaxZ = 37;
// Bisections on a double halve [0, kMaxZ] to below its last bit well within this.
constexpr int kBisectionSteps = 200;

bool samples_ok(const std::vector<std::int64_t>& s) {
  return !s.empty() && s.size() <= kMaxSamples &&
         std::all_of(s.begin(), s.end(), [](std::int64_t v) {
           return v >= -kMaxSampleMagnitude && v <= kMaxSampleMagnitude;
         });
}

// U of B over A from the pooled sample's midranks, and sum(t^3 - t) over tie groups.
struct Ranks {
  double u = 0;
  std::uint64_t tie_sum = 0;
};

Ranks rank_pooled(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  std::vector<std::pair<std::int64_t, bool>> pooled;  // (value, from B)
  pooled.reserve(a.size() + b.size());
  for (std::int64_t v : a) pooled.emplace_back(v, false);
  for (std::int64_t v : b) pooled.emplace_back(v, true);
  std::sort(pooled.begin(), pooled.end());
  // Twice B's rank sum, so midranks (halves) stay integers.
  std::uint64_t twice_rank_sum_b = 0;
  Ranks r;
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    std::uint64_t from_b = 0;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) from_b += pooled[j++].second;
    const std::uint64_t t = j - i;
    // Ranks i+1 .. j share the midrank (i + 1 + j) / 2.
    twice_rank_sum_b += from_b * (i + 1 + j);
    r.tie_sum += t * t * t - t;
    i = j;
  }
  const std::uint64_t n = b.size();
  r.u = static_cast<double>(twice_rank_sum_b - n * (n + 1)) / 2;
  return r;
}

// Var(U) under the null with the tie correction.
double u_variance(std::size_t m, std::size_t n, std::uint64_t tie_sum) {
  const double total = static_cast<double>(m + n);
  const double mn = static_cast<double>(m) * static_cast<double>(n);
  return mn / 12 * ((total + 1) - static_cast<double>(tie_sum) / (total * (total - 1)));
}

bool use_exact(std::size_t m, std::size_t n, const Ranks& r) {
  return r.tie_sum == 0 && m < kExactBelow && n < kExactBelow;
}

// The largest u with P(U <= u) <= tail (-1 if none), exact or by the normal approximation.
std::int64_t lower_critical_u(std::size_t m, std::size_t n, const Ranks& r, double tail) {
  if (use_exact(m, n, r)) {
    const std::vector<double> cdf = mann_whitney_exact_cdf(m, n);
    // cdf is increasing and ends at 1 > tail, so the count of entries <= tail is u + 1.
    const auto within = std::upper_bound(cdf.begin(), cdf.end(), tail) - cdf.begin();
    return static_cast<std::int64_t>(within) - 1;
  }
  const double mn = static_cast<double>(m) * static_cast<double>(n);
  const double sd = std::sqrt(u_variance(m, n, r.tie_sum));
  // P(U <= u) ~ Phi((u + 1/2 - mn/2) / sd) <= tail.
  return static_cast<std::int64_t>(std::floor(mn / 2 - 0.5 - normal_upper_quantile(tail) * sd));
}

}  // namespace

double normal_upper_tail(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

double normal_upper_quantile(double tail) {
  HASIM_ASSERT(tail > 0 && tail <= 0.5);
  if (tail <= normal_upper_tail(kMaxZ)) return kMaxZ;
  double low = 0;
  double high = kMaxZ;
  for (int step = 0; step < kBisectionSteps && high - low > 0; ++step) {
    const double mid = low + (high - low) / 2;
    if (mid <= low || mid >= high) break;  // no double between them: converged
    (normal_upper_tail(mid) > tail ? low : high) = mid;
  }
  return low + (high - low) / 2;
}

DiffInterval newcombe_interval(std::uint64_t a_successes, std::uint64_t a_trials,
                               std::uint64_t b_successes, std::uint64_t b_trials, double z) {
  HASIM_ASSERT(a_trials > 0 && b_trials > 0 && a_trials <= kMaxTrials && b_trials <= kMaxTrials);
  HASIM_ASSERT(a_successes <= a_trials && b_successes <= b_trials);
  const double pa = static_cast<double>(a_successes) / static_cast<double>(a_trials);
  const double pb = static_cast<double>(b_successes) / static_cast<double>(b_trials);
  const Interval wa = wilson_interval(a_successes, a_trials, z);
  const Interval wb = wilson_interval(b_successes, b_trials, z);
  const double d = pb - pa;
  // Each bound combines the two sides' distances to their Wilson bounds in the direction
  // that moves the difference that way (pb down and pa up for the lower bound).
  DiffInterval out{d - std::hypot(pb - wb.low, wa.high - pa),
                   d + std::hypot(wb.high - pb, pa - wa.low)};
  out.low = std::max(out.low, -1.0);
  out.high = std::min(out.high, 1.0);
  HASIM_ASSERT(out.low <= d && d <= out.high);
  return out;
}

double newcombe_p_value(std::uint64_t a_successes, std::uint64_t a_trials,
                        std::uint64_t b_successes, std::uint64_t b_trials) {
  HASIM_ASSERT(a_trials <= kMaxTrials && b_trials <= kMaxTrials);
  // Equal proportions (as fractions: cross-multiplied, exact) leave 0 inside at any level.
  if (a_successes * b_trials == b_successes * a_trials) return 1;
  const bool b_higher = b_successes * a_trials > a_successes * b_trials;
  // The bound nearer 0 moves towards it as z grows (Wilson intervals are nested), so the z
  // at which it reaches 0 is found by bisection.
  auto excludes_zero = [&](double z) {
    const DiffInterval i = newcombe_interval(a_successes, a_trials, b_successes, b_trials, z);
    return b_higher ? i.low > 0 : i.high < 0;
  };
  if (excludes_zero(kMaxZ)) return 2 * normal_upper_tail(kMaxZ);
  double low = 0;
  double high = kMaxZ;
  for (int step = 0; step < kBisectionSteps; ++step) {
    const double mid = low + (high - low) / 2;
    if (mid <= low || mid >= high) break;
    (excludes_zero(mid) ? low : high) = mid;
  }
  return std::min(1.0, 2 * normal_upper_tail(low + (high - low) / 2));
}

std::vector<double> mann_whitney_exact_cdf(std::size_t m, std::size_t n) {
  HASIM_ASSERT(m >= 1 && n >= 1 && m < kExactBelow && n < kExactBelow);
  // P_{i,j}(u): the largest of i + j values is one of A's with probability i / (i + j) and
  // then adds no pair b > a; otherwise it is one of B's, above all i of A's: i pairs.
  // prev[j] = P_{i-1,j}, cur[j] = P_{i,j}; probabilities (not counts) stay within double.
  std::vector<std::vector<double>> prev(n + 1, std::vector<double>{1.0});
  for (std::size_t i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> cur(n + 1);
    cur[0] = {1.0};
    for (std::size_t j = 1; j <= n; ++j) {
      std::vector<double>& p = cur[j];
      p.assign(i * j + 1, 0.0);
      const double from_a = static_cast<double>(i) / static_cast<double>(i + j);
      for (std::size_t u = 0; u < prev[j].size(); ++u) p[u] += from_a * prev[j][u];
      for (std::size_t u = 0; u < cur[j - 1].size(); ++u) p[u + i] += (1 - from_a) * cur[j - 1][u];
    }
    prev = std::move(cur);
  }
  std::vector<double> cdf = std::move(prev[n]);
  std::partial_sum(cdf.begin(), cdf.end(), cdf.begin());
  cdf.back() = 1.0;  // not 1 - 1e-16
  return cdf;
}

MannWhitney mann_whitney(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  HASIM_ASSERT(samples_ok(a) && samples_ok(b));
  const Ranks r = rank_pooled(a, b);
  const std::size_t m = a.size();
  const std::size_t n = b.size();
  MannWhitney out;
  out.u = r.u;
  out.ties = r.tie_sum > 0;
  if (use_exact(m, n, r)) {
    out.exact = true;
    const std::vector<double> cdf = mann_whitney_exact_cdf(m, n);
    const auto u = static_cast<std::size_t>(r.u);  // an integer without ties
    // P(U >= u) = P(U <= mn - u) by symmetry, which keeps the small tail accurate.
    out.p = std::min(1.0, 2 * std::min(cdf[u], cdf[m * n - u]));
    return out;
  }
  const double variance = u_variance(m, n, r.tie_sum);
  const double deviation = r.u - static_cast<double>(m) * static_cast<double>(n) / 2;
  if (variance <= 0 || std::abs(deviation) <= 0.5) return out;  // all values equal, or U central
  out.z = (deviation - std::copysign(0.5, deviation)) / std::sqrt(variance);
  out.p = std::min(1.0, 2 * normal_upper_tail(std::abs(out.z)));
  return out;
}

std::uint64_t pairs_at_most(const std::vector<std::int64_t>& sorted_a,
                            const std::vector<std::int64_t>& sorted_b, std::int64_t t) {
  // b - a <= t iff a >= b - t; as b grows the first such a moves right only.
  std::uint64_t count = 0;
  std::size_t first = 0;
  for (std::int64_t b : sorted_b) {
    while (first < sorted_a.size() && sorted_a[first] < b - t) ++first;
    count += sorted_a.size() - first;
  }
  return count;
}

std::int64_t kth_pairwise_difference(const std::vector<std::int64_t>& sorted_a,
                                     const std::vector<std::int64_t>& sorted_b, std::uint64_t k) {
  HASIM_ASSERT(samples_ok(sorted_a) && samples_ok(sorted_b));
  HASIM_ASSERT(k >= 1 && k <= sorted_a.size() * sorted_b.size());
  // The smallest t with at least k differences <= t is the k-th difference. The range is
  // below 2^62, so the bisection ends within 63 steps.
  std::int64_t low = sorted_b.front() - sorted_a.back();
  std::int64_t high = sorted_b.back() - sorted_a.front();
  for (int step = 0; step < 64 && low < high; ++step) {
    const std::int64_t mid = low + (high - low) / 2;
    if (pairs_at_most(sorted_a, sorted_b, mid) >= k) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  HASIM_ASSERT(low == high);
  return low;
}

Shift hodges_lehmann(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b,
                     double alpha) {
  HASIM_ASSERT(samples_ok(a) && samples_ok(b));
  HASIM_ASSERT(alpha > 0 && alpha < 1);
  std::vector<std::int64_t> sa = a;
  std::vector<std::int64_t> sb = b;
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  const std::uint64_t pairs = sa.size() * sb.size();
  Shift out;
  if (pairs % 2 == 1) {
    out.estimate = static_cast<double>(kth_pairwise_difference(sa, sb, (pairs + 1) / 2));
  } else {
    out.estimate = 0.5 * static_cast<double>(kth_pairwise_difference(sa, sb, pairs / 2)) +
                   0.5 * static_cast<double>(kth_pairwise_difference(sa, sb, pairs / 2 + 1));
  }
  // C - 1 differences lie below the interval and C - 1 above it, with P(U <= C - 1) <=
  // alpha / 2: the interval is the set of shifts the test would not reject.
  const std::int64_t below = lower_critical_u(sa.size(), sb.size(), rank_pooled(sa, sb), alpha / 2);
  out.clipped = below < 0;
  const std::uint64_t c = out.clipped ? 1 : static_cast<std::uint64_t>(below) + 1;
  HASIM_ASSERT(2 * c <= pairs + 1);
  out.low = kth_pairwise_difference(sa, sb, c);
  out.high = kth_pairwise_difference(sa, sb, pairs + 1 - c);
  return out;
}

HolmResult holm(const std::vector<double>& p, double alpha) {
  HASIM_ASSERT(alpha > 0 && alpha < 1);
  std::vector<std::size_t> order(p.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return p[x] < p[y]; });
  HolmResult out{std::vector<double>(p.size()), std::vector<double>(p.size())};
  double running = 0;
  for (std::size_t rank = 0; rank < order.size(); ++rank) {
    const std::size_t i = order[rank];
    HASIM_ASSERT(p[i] >= 0 && p[i] <= 1);
    const auto factor = static_cast<double>(p.size() - rank);
    // Step-down: a comparison is rejected only if every smaller p was, hence the maximum.
    running = std::max(running, std::min(1.0, factor * p[i]));
    out.adjusted[i] = running;
    out.alpha[i] = alpha / factor;
  }
  return out;
}

}  // namespace hasim
