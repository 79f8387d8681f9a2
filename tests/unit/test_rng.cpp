// Rng: reproducible xoshiro256** streams, named forks that never shift one another, and our
// own distributions. Statistical checks use fixed seeds (so they are deterministic) and
// tolerances of about 5 standard errors; properties over random seeds use 7 or more.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/distribution.hpp"
#include "sim/rng.hpp"

using namespace hasim;

namespace {

constexpr int kSamples = 200'000;

std::vector<std::uint64_t> draws(Rng rng, std::size_t n) {
  std::vector<std::uint64_t> out(n);
  for (auto& x : out) x = rng.next_u64();
  return out;
}

// Pearson's statistic for `counts` against a uniform expectation.
double chi_square_uniform(const std::vector<std::int64_t>& counts, std::int64_t total) {
  const double expected = static_cast<double>(total) / static_cast<double>(counts.size());
  double chi2 = 0.0;
  for (const std::int64_t c : counts) {
    const double d = static_cast<double>(c) - expected;
    chi2 += d * d / expected;
  }
  return chi2;
}

// A generous upper bound for a chi-square statistic with `df` degrees of freedom.
double chi_square_limit(std::size_t df) {
  const double k = static_cast<double>(df);
  return k + 6.0 * std::sqrt(2.0 * k) + 6.0;
}

struct Moments {
  double mean = 0.0;
  double stddev = 0.0;
};

Moments moments(const std::vector<double>& xs) {
  double sum = 0.0;
  for (const double x : xs) sum += x;
  const double mean = sum / static_cast<double>(xs.size());
  double squares = 0.0;
  for (const double x : xs) squares += (x - mean) * (x - mean);
  return {mean, std::sqrt(squares / static_cast<double>(xs.size() - 1))};
}

template <typename F>
double fraction_where(const std::vector<double>& xs, F predicate) {
  std::size_t n = 0;
  for (const double x : xs) n += predicate(x) ? 1 : 0;
  return static_cast<double>(n) / static_cast<double>(xs.size());
}

// Standard error of an observed frequency of an event with probability p.
double frequency_se(double p, int n) { return std::sqrt(p * (1.0 - p) / n); }

}  // namespace

TEST_CASE("golden outputs: a change of generator, seeding or fork hashing is noticed", "[rng]") {
  // Computed once from the reference xoshiro256** / SplitMix64 algorithms (checked against an
  // independent implementation). Changing these changes every trace hash ever recorded.
  Rng root(1);
  CHECK(root.next_u64() == 0xb3f2af6d0fc710c5ULL);
  CHECK(root.next_u64() == 0x853b559647364ceaULL);
  CHECK(root.next_u64() == 0x92f89756082a4514ULL);
  CHECK(root.next_u64() == 0x642e1c7bc266a3a7ULL);
  CHECK(hash_name(1, "net") == 0x6221000e9f0eddf5ULL);
  Rng net = Rng(1).fork("net");
  CHECK(net.seed() == 0x6221000e9f0eddf5ULL);
  CHECK(net.next_u64() == 0x462c4b768523a759ULL);
  CHECK(net.next_u64() == 0x2542779b69bdce51ULL);
  CHECK(net.next_u64() == 0x71acf447aaea3c9eULL);
  CHECK(Rng(0).next_u64() == 0x99ec5f36cb75f2b4ULL);
}

TEST_CASE("the same seed gives the same sequence; different seeds differ", "[rng]") {
  CHECK(draws(Rng(42), 1000) == draws(Rng(42), 1000));
  CHECK(draws(Rng(42), 8) != draws(Rng(43), 8));
  CHECK(Rng(42).seed() == 42);
}

TEST_CASE("different names give different streams", "[rng]") {
  const Rng root(7);
  const std::array<const char*, 7> names{"net",        "faults", "node-2/kcm", "node-2/kcm2",
                                         "node-3/kcm", "",       "a"};
  std::vector<std::vector<std::uint64_t>> streams;
  for (const char* name : names) streams.push_back(draws(root.fork(name), 4));
  streams.push_back(draws(root, 4));                        // the parent itself
  streams.push_back(draws(root.fork("net").fork("a"), 4));  // nested forks differ too
  for (std::size_t i = 0; i < streams.size(); ++i) {
    for (std::size_t j = i + 1; j < streams.size(); ++j) CHECK(streams[i] != streams[j]);
  }
}

TEST_CASE("forks depend only on the seed and the name", "[rng]") {
  rc::prop("a fork does not depend on how much the parent has drawn",
           [](std::uint64_t seed, const std::string& name) {
             const auto consumed = *rc::gen::inRange<std::size_t>(0, 1000);
             Rng parent(seed);
             const auto fresh = draws(parent.fork(name), 16);
             for (std::size_t i = 0; i < consumed; ++i) parent.next_u64();
             RC_ASSERT(draws(parent.fork(name), 16) == fresh);
           });
  rc::prop("drawing from one stream never shifts another, however draws interleave",
           [](std::uint64_t seed, const std::vector<bool>& pattern) {
             const Rng root(seed);
             Rng a = root.fork("net");
             Rng b = root.fork("faults");
             std::vector<std::uint64_t> from_a;
             std::vector<std::uint64_t> from_b;
             for (const bool pick_a : pattern) {
               if (pick_a)
                 from_a.push_back(a.next_u64());
               else
                 from_b.push_back(b.next_u64());
             }
             RC_ASSERT(from_a == draws(root.fork("net"), from_a.size()));
             RC_ASSERT(from_b == draws(root.fork("faults"), from_b.size()));
           });
  rc::prop("distinct names give distinct streams",
           [](std::uint64_t seed, const std::string& x, const std::string& y) {
             RC_PRE(x != y);
             const Rng root(seed);
             RC_ASSERT(draws(root.fork(x), 2) != draws(root.fork(y), 2));
           });
}

TEST_CASE("below() and uniform_int() stay within their bounds", "[rng]") {
  rc::prop("below(bound) < bound", [](std::uint64_t seed) {
    const auto bound = *rc::gen::oneOf(rc::gen::inRange<std::uint64_t>(1, 20),
                                       rc::gen::arbitrary<std::uint64_t>());
    RC_PRE(bound > 0);
    Rng rng(seed);
    for (int i = 0; i < 100; ++i) RC_ASSERT(rng.below(bound) < bound);
  });
  rc::prop("uniform_int(low, high) is in [low, high]",
           [](std::uint64_t seed, std::int64_t x, std::int64_t y) {
             const std::int64_t low = std::min(x, y);
             const std::int64_t high = std::max(x, y);
             Rng rng(seed);
             for (int i = 0; i < 100; ++i) {
               const std::int64_t v = rng.uniform_int(low, high);
               RC_ASSERT(v >= low);
               RC_ASSERT(v <= high);
             }
           });
  Rng rng(3);
  CHECK(rng.below(1) == 0);
  CHECK(rng.uniform_int(5, 5) == 5);
  CHECK(rng.uniform_int(-2, -2) == -2);
  // The full int64 range takes both signs.
  bool negative = false;
  bool positive = false;
  for (int i = 0; i < 64; ++i) {
    const std::int64_t v = rng.uniform_int(INT64_MIN, INT64_MAX);
    negative = negative || v < 0;
    positive = positive || v > 0;
  }
  CHECK((negative && positive));
}

TEST_CASE("below() is unbiased: chi-square on small bounds", "[rng]") {
  for (const std::uint64_t bound : {2ULL, 3ULL, 5ULL, 6ULL, 7ULL, 10ULL, 100ULL}) {
    Rng rng(1000 + bound);
    std::vector<std::int64_t> counts(bound);
    for (int i = 0; i < kSamples; ++i) ++counts[rng.below(bound)];
    INFO("bound " << bound);
    CHECK(chi_square_uniform(counts, kSamples) < chi_square_limit(bound - 1));
  }
}

TEST_CASE("below() is unbiased where the rejection step matters", "[rng]") {
  // For bound = 3 * 2^62, a plain modulo would return values below 2^62 half of the time,
  // and a multiply-shift without rejection would return multiples of 3 half of the time.
  const std::uint64_t bound = 3ULL << 62;
  Rng rng(99);
  std::vector<std::int64_t> low_third(2);
  std::vector<std::int64_t> residue(3);
  for (int i = 0; i < kSamples; ++i) {
    const std::uint64_t v = rng.below(bound);
    ++low_third[v < (1ULL << 62) ? 0 : 1];
    ++residue[v % 3];
  }
  const double p_low = static_cast<double>(low_third[0]) / kSamples;
  CHECK(std::abs(p_low - 1.0 / 3.0) < 5 * frequency_se(1.0 / 3.0, kSamples));
  CHECK(chi_square_uniform(residue, kSamples) < chi_square_limit(2));
}

TEST_CASE("unit() is uniform on [0, 1) with mean 0.5", "[rng]") {
  Rng rng(11);
  std::vector<double> xs(kSamples);
  for (auto& x : xs) x = rng.unit();
  for (const double x : xs) {
    REQUIRE(x >= 0.0);
    REQUIRE(x < 1.0);
    REQUIRE(x * 0x1.0p53 == std::floor(x * 0x1.0p53));  // exactly 53 random bits
  }
  const double se = std::sqrt(1.0 / 12.0 / kSamples);
  CHECK(std::abs(moments(xs).mean - 0.5) < 5 * se);
  CHECK(std::abs(fraction_where(xs, [](double x) { return x < 0.25; }) - 0.25) <
        5 * frequency_se(0.25, kSamples));
}

TEST_CASE("exponential(mean) has that mean and median mean*ln2", "[rng]") {
  const double mean = 1000.0;
  Rng rng(12);
  std::vector<double> xs(kSamples);
  for (auto& x : xs) x = rng.exponential(mean);
  for (const double x : xs) REQUIRE(x >= 0.0);
  CHECK(std::abs(moments(xs).mean - mean) < 5 * mean / std::sqrt(kSamples));
  const double median = mean * std::log(2.0);
  CHECK(std::abs(fraction_where(xs, [&](double x) { return x < median; }) - 0.5) <
        5 * frequency_se(0.5, kSamples));
}

TEST_CASE("normal(mean, stddev) has that mean, stddev and 97.5% quantile", "[rng]") {
  const double mu = -3.0;
  const double sigma = 2.0;
  Rng rng(13);
  std::vector<double> xs(kSamples);
  for (auto& x : xs) x = rng.normal(mu, sigma);
  const Moments m = moments(xs);
  CHECK(std::abs(m.mean - mu) < 5 * sigma / std::sqrt(kSamples));
  CHECK(std::abs(m.stddev - sigma) < 5 * sigma / std::sqrt(2.0 * kSamples));
  const double q975 = mu + 1.959963984540054 * sigma;
  CHECK(std::abs(fraction_where(xs, [&](double x) { return x < q975; }) - 0.975) <
        5 * frequency_se(0.975, kSamples));
  CHECK(Rng(1).normal(4.0, 0.0) == 4.0);
}

TEST_CASE("lognormal(median, p99) durations have that median, p99 and mean", "[rng]") {
  const auto dist = DurationDistribution::lognormal(milliseconds(10), milliseconds(100));
  Rng rng(14);
  std::vector<double> xs(kSamples);
  for (auto& x : xs) x = static_cast<double>(dist.sample(rng).ns);
  CHECK(std::abs(fraction_where(xs, [](double x) { return x <= 10e6; }) - 0.5) <
        5 * frequency_se(0.5, kSamples));
  CHECK(std::abs(fraction_where(xs, [](double x) { return x <= 100e6; }) - 0.99) <
        5 * frequency_se(0.99, kSamples));
  // Mean exp(mu + sigma^2/2); its standard error from the lognormal variance.
  const double sigma = std::log(10.0) / kNormalQuantile99;
  const double sd = dist.mean_ns() * std::sqrt(std::exp(sigma * sigma) - 1.0);
  CHECK(std::abs(moments(xs).mean - dist.mean_ns()) < 6 * sd / std::sqrt(kSamples));
}

TEST_CASE("bernoulli(p) is true with frequency p; p = 0 or 1 draws nothing", "[rng]") {
  Rng rng(15);
  int hits = 0;
  for (int i = 0; i < kSamples; ++i) hits += rng.bernoulli(0.3) ? 1 : 0;
  CHECK(std::abs(static_cast<double>(hits) / kSamples - 0.3) < 5 * frequency_se(0.3, kSamples));
  Rng a(16);
  Rng b(16);
  CHECK_FALSE(a.bernoulli(0.0));
  CHECK(a.bernoulli(1.0));
  CHECK(a.next_u64() == b.next_u64());  // a disabled fault must not consume randomness
}

TEST_CASE("uniform duration ranges include both endpoints", "[rng]") {
  const auto dist = DurationDistribution::uniform(nanoseconds(10), nanoseconds(13));
  Rng rng(17);
  std::vector<std::int64_t> counts(4);
  for (int i = 0; i < kSamples; ++i) {
    const Duration d = dist.sample(rng);
    REQUIRE(d >= nanoseconds(10));
    REQUIRE(d <= nanoseconds(13));
    ++counts[static_cast<std::size_t>(d.ns - 10)];
  }
  CHECK(counts.front() > 0);
  CHECK(counts.back() > 0);
  CHECK(chi_square_uniform(counts, kSamples) < chi_square_limit(3));
}

TEST_CASE("distribution statistics hold for every seed", "[rng]") {
  constexpr int n = 20'000;
  rc::prop("unit() mean is within 7 standard errors of 0.5", [](std::uint64_t seed) {
    Rng rng(seed);
    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += rng.unit();
    RC_ASSERT(std::abs(sum / n - 0.5) < 7 * std::sqrt(1.0 / 12.0 / n));
  });
  rc::prop("bernoulli(p) frequency is within 7 standard errors of p", [](std::uint64_t seed) {
    const double p = *rc::gen::inRange(5, 96) / 100.0;
    Rng rng(seed);
    int hits = 0;
    for (int i = 0; i < n; ++i) hits += rng.bernoulli(p) ? 1 : 0;
    RC_ASSERT(std::abs(static_cast<double>(hits) / n - p) < 7 * frequency_se(p, n));
  });
  rc::prop("exponential mean is within 8 standard errors", [](std::uint64_t seed) {
    Rng rng(seed);
    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += rng.exponential(5.0);
    RC_ASSERT(std::abs(sum / n - 5.0) < 8 * 5.0 / std::sqrt(n));
  });
}
