// DurationDistribution: the scenario string forms ("150ms", "30s..90s"), sampling (rounded
// to whole nanoseconds, never negative), closed-form means and descriptions.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/distribution.hpp"

using namespace hasim;
using namespace hasim::literals;

namespace {

DurationDistribution parsed(std::string_view text) {
  std::string error;
  const auto d = parse_duration_distribution(text, &error);
  INFO("parse_duration_distribution(\"" << std::string(text) << "\") failed: " << error);
  REQUIRE(d.has_value());
  return *d;
}

std::string rejection(std::string_view text) {
  std::string error;
  const auto d = parse_duration_distribution(text, &error);
  INFO("parse_duration_distribution(\"" << std::string(text) << "\") should fail");
  REQUIRE_FALSE(d.has_value());
  REQUIRE_FALSE(error.empty());
  return error;
}

}  // namespace

TEST_CASE("a plain duration parses as a constant distribution", "[distribution]") {
  const auto d = parsed("150ms");
  CHECK(d == DurationDistribution::constant(150_ms));
  CHECK(d.kind == DurationDistribution::Kind::constant);
  CHECK(d.describe() == "150ms");
  CHECK(d.mean_ns() == 150e6);
  Rng rng(1);
  for (int i = 0; i < 10; ++i) CHECK(d.sample(rng) == 150_ms);
}

TEST_CASE("a constant distribution draws nothing from the stream", "[distribution]") {
  Rng a(2);
  Rng b(2);
  (void)DurationDistribution::constant(1_s).sample(a);
  CHECK(a.next_u64() == b.next_u64());
}

TEST_CASE("\"low..high\" parses as an inclusive uniform range", "[distribution]") {
  const auto d = parsed("30s..90s");
  CHECK(d == DurationDistribution::uniform(30_s, 90_s));
  CHECK(d.describe() == "30s..1m30s");
  CHECK(d.mean_ns() == 60e9);
  CHECK(parsed("1.5s..2s") == DurationDistribution::uniform(1500_ms, 2_s));
  CHECK(parsed("5ms..5ms") == DurationDistribution::uniform(5_ms, 5_ms));
  CHECK(parsed("0..1s") == DurationDistribution::uniform({}, 1_s));
  Rng rng(3);
  for (int i = 0; i < 1000; ++i) {
    const Duration x = d.sample(rng);
    REQUIRE(x >= 30_s);
    REQUIRE(x <= 90_s);
  }
  CHECK(parsed("5ms..5ms").sample(rng) == 5_ms);
}

TEST_CASE("malformed distributions are rejected with a message naming the problem",
          "[distribution]") {
  CHECK_THAT(rejection("90s..30s"),
             Catch::Contains("low end above its high end") && Catch::Contains("90s..30s"));
  CHECK_THAT(rejection(""), Catch::Contains("empty"));
  CHECK_THAT(rejection("30s.."), Catch::Contains("empty"));
  CHECK_THAT(rejection("..30s"), Catch::Contains("empty"));
  CHECK_THAT(rejection("30s..90"), Catch::Contains("unit"));
  CHECK_THAT(rejection("fast"), Catch::Contains("expected a number"));
  // Not 0s..0.5s: a third dot is a typo, not the start of ".5s".
  CHECK_THAT(rejection("0s...5s"), Catch::Contains("too many dots"));
  CHECK_THAT(rejection("30s....90s"), Catch::Contains("too many dots"));
  CHECK_FALSE(parse_duration_distribution("5x").has_value());  // no error pointer: no crash
}

TEST_CASE("describe() names the kind and its parameters", "[distribution]") {
  CHECK(DurationDistribution::exponential(5_ms).describe() == "exponential(mean 5ms)");
  CHECK(DurationDistribution::normal(10_ms, 2_ms).describe() == "normal(mean 10ms, stddev 2ms)");
  CHECK(DurationDistribution::lognormal(1_ms, 20_ms).describe() ==
        "lognormal(median 1ms, p99 20ms)");
  CHECK(DurationDistribution::uniform(1500_ns, 2_h).describe() == "1.5µs..2h0m0s");
}

TEST_CASE("mean_ns() is the closed-form mean", "[distribution]") {
  CHECK(DurationDistribution::exponential(5_ms).mean_ns() == 5e6);
  CHECK(DurationDistribution::normal(10_ms, 2_ms).mean_ns() == 10e6);
  CHECK(DurationDistribution::uniform(1_ns, 2_ns).mean_ns() == 1.5);
  // lognormal: median * exp(sigma^2 / 2) with sigma = ln(p99 / median) / z(0.99).
  const double sigma = std::log(20.0) / kNormalQuantile99;
  CHECK(DurationDistribution::lognormal(1_ms, 20_ms).mean_ns() ==
        Approx(1e6 * std::exp(sigma * sigma / 2)).epsilon(1e-12));
  // median == p99 degenerates to a constant.
  CHECK(DurationDistribution::lognormal(1_ms, 1_ms).mean_ns() == Approx(1e6));
}

TEST_CASE("a lognormal with median == p99 always samples the median", "[distribution]") {
  const auto d = DurationDistribution::lognormal(3_ms, 3_ms);
  Rng rng(4);
  for (int i = 0; i < 100; ++i) CHECK(d.sample(rng) == 3_ms);
}

TEST_CASE("sample() clamps negative draws to zero", "[distribution]") {
  Rng rng(5);
  // Normal with mean 1ms, stddev 10ms: about 46% of raw draws are negative.
  const auto wide = DurationDistribution::normal(1_ms, 10_ms);
  int zeros = 0;
  for (int i = 0; i < 10'000; ++i) {
    const Duration d = wide.sample(rng);
    REQUIRE(d >= Duration{0});
    zeros += d == Duration{0} ? 1 : 0;
  }
  CHECK(zeros > 4'000);
  CHECK(zeros < 5'200);
  CHECK(DurationDistribution::constant(-5_s).sample(rng) == Duration{0});
  for (int i = 0; i < 100; ++i) {
    const Duration d = DurationDistribution::uniform(-5_s, 1_ns).sample(rng);
    REQUIRE(d >= Duration{0});
    REQUIRE(d <= 1_ns);
  }
  CHECK(DurationDistribution::exponential(Duration{0}).sample(rng) == Duration{0});
}

TEST_CASE("every kind samples non-negative whole nanoseconds", "[distribution]") {
  rc::prop("sample(rng) >= 0 for any seed and parameters", [](std::uint64_t seed) {
    const auto x = nanoseconds(*rc::gen::inRange<std::int64_t>(1, 1'000'000'000'000));
    const auto y = nanoseconds(*rc::gen::inRange<std::int64_t>(1, 1'000'000'000'000));
    const Duration low = std::min(x, y);
    const Duration high = std::max(x, y);
    Rng rng(seed);
    for (const auto& d :
         {DurationDistribution::constant(x), DurationDistribution::uniform(low, high),
          DurationDistribution::exponential(x), DurationDistribution::normal(x, y),
          DurationDistribution::lognormal(low, high)}) {
      RC_ASSERT(d.sample(rng) >= Duration{0});
    }
    const Duration u = DurationDistribution::uniform(low, high).sample(rng);
    RC_ASSERT(u >= low);
    RC_ASSERT(u <= high);
  });
  rc::prop("a parsed range describes itself and re-parses to the same distribution", [] {
    const auto a = *rc::gen::inRange<std::int64_t>(0, 1'000'000'000'000'000);
    const auto b = *rc::gen::inRange<std::int64_t>(0, 1'000'000'000'000'000);
    const auto d =
        DurationDistribution::uniform(nanoseconds(std::min(a, b)), nanoseconds(std::max(a, b)));
    RC_ASSERT(parse_duration_distribution(d.describe()) == d);
    const auto c = DurationDistribution::constant(nanoseconds(a));
    RC_ASSERT(parse_duration_distribution(c.describe()) == c);
  });
  rc::prop("the same seed gives the same samples", [](std::uint64_t seed) {
    const auto d = DurationDistribution::lognormal(1_ms, 20_ms);
    Rng a(seed);
    Rng b(seed);
    for (int i = 0; i < 20; ++i) RC_ASSERT(d.sample(a) == d.sample(b));
  });
}
