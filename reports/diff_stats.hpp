#pragma once
// The statistics of `hasim report diff` (two runs of one study, compared cell by cell):
// a difference of two binomial proportions with Newcombe's hybrid score interval, the
// Mann-Whitney U test with a Hodges-Lehmann shift and its distribution-free (Moses)
// interval for samples of durations, and Holm's step-down correction over all comparisons.
// Everything is deterministic: integer samples, sorting, counting, and floating point only
// where the answer is a probability; no random resampling.
//
// Direction: every difference is B - A (B's probability minus A's; how much later B's
// durations lie), so a positive value means "B is riskier" or "B is slower".
#include <cstdint>
#include <vector>

namespace hasim {

// A two-sided confidence interval for a difference; low <= high.
struct DiffInterval {
  double low = 0;
  double high = 0;
};

// P(Z > z) for a standard normal Z.
double normal_upper_tail(double z);
// The z with P(Z > z) = tail, for 0 < tail <= 0.5 (so z >= 0); found by bisection, exact
// to double precision. Above z = 37, where the tail underflows, it returns 37.
double normal_upper_quantile(double tail);

// Trials a side at most this, so that cross products of counts fit in 64 bits.
inline constexpr std::uint64_t kMaxTrials = std::uint64_t{1} << 32;

// Newcombe's hybrid score interval (Newcombe 1998, method 10) for pB - pA, with pA =
// a_successes / a_trials and pB likewise, combining each side's Wilson interval at `z`.
// Unlike the Wald interval it stays inside [-1, 1] and does not collapse at 0 or n events.
// Both sides need at least one trial and at most kMaxTrials.
DiffInterval newcombe_interval(std::uint64_t a_successes, std::uint64_t a_trials,
                               std::uint64_t b_successes, std::uint64_t b_trials, double z);

// The two-sided p-value that goes with newcombe_interval: the largest alpha at which the
// interval at level 1 - alpha still contains 0 (1 when pA = pB). So "the interval at level
// 1 - alpha excludes 0" and "p < alpha" are one statement.
double newcombe_p_value(std::uint64_t a_successes, std::uint64_t a_trials,
                        std::uint64_t b_successes, std::uint64_t b_trials);

// The Mann-Whitney U test of "A and B come from one distribution" against a shift.
struct MannWhitney {
  double u = 0;  // pairs (a, b) with b > a, plus half of the pairs with b == a
  double z = 0;  // standardised U (normal approximation; 0 when exact)
  double p = 1;  // two-sided
  bool exact = false;
  bool ties = false;  // some value occurs more than once (tie-corrected variance)
};

// Samples no larger than this on both sides and without ties get the exact distribution of
// U (as R's wilcox.test does); others the normal approximation with the tie correction
// and a continuity correction of 1/2.
inline constexpr std::size_t kExactBelow = 50;
// What one side may hold: enough for any study, small enough that sums of cubed tie
// counts fit in 64 bits.
inline constexpr std::size_t kMaxSamples = 1'000'000;
// Samples must lie within +-kMaxSampleMagnitude so that every pairwise difference fits.
inline constexpr std::int64_t kMaxSampleMagnitude = std::int64_t{1} << 60;

// Both samples non-empty, at most kMaxSamples each, values within kMaxSampleMagnitude.
MannWhitney mann_whitney(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b);

// The exact null distribution of U for samples of m and n distinct values: element u
// (0 <= u <= m n) is P(U <= u). m, n >= 1 and below kExactBelow.
std::vector<double> mann_whitney_exact_cdf(std::size_t m, std::size_t n);

// The Hodges-Lehmann estimate of the shift from A to B (the median of the m n differences
// b - a) and the distribution-free interval for it at level 1 - alpha (Moses): the C-th
// smallest and C-th largest difference, with C from U's distribution (exact or normal, as
// mann_whitney chooses). `clipped`: the samples are too small for that level, and the
// interval is the full range of differences.
struct Shift {
  double estimate = 0;  // may be a half (the mean of two middle differences)
  std::int64_t low = 0;
  std::int64_t high = 0;
  bool clipped = false;
};
Shift hodges_lehmann(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b,
                     double alpha);

// How many differences b - a (over all pairs) are <= t, for ascending samples: O(m + n).
std::uint64_t pairs_at_most(const std::vector<std::int64_t>& sorted_a,
                            const std::vector<std::int64_t>& sorted_b, std::int64_t t);
// The k-th smallest difference b - a, 1 <= k <= m n, without listing the m n differences
// (a study's 10,000 trials a side would be 10^8 of them): a bisection on the value, each
// step counted by pairs_at_most.
std::int64_t kth_pairwise_difference(const std::vector<std::int64_t>& sorted_a,
                                     const std::vector<std::int64_t>& sorted_b, std::uint64_t k);

// Holm's step-down procedure over m p-values. For each comparison, in the input's order:
// its adjusted p-value (max over the ones ranked before it of (m - rank + 1) p, at most 1;
// "changed" iff adjusted p <= alpha), and the level alpha / (m - rank + 1) that Holm tests
// it at, rank from 1 for the smallest p (ties ranked by input order).
struct HolmResult {
  std::vector<double> adjusted;
  std::vector<double> alpha;
};
HolmResult holm(const std::vector<double>& p, double alpha);

}  // namespace hasim
