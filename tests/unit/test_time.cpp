// Durations: Go-style parsing (exact decimal fractions, no floating point), formatting like
// Go's time.Duration.String(), and the round trip between the two.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <cstdio>
#include <limits>
#include <string>

#include "sim/time.hpp"

using namespace hasim;
using namespace hasim::literals;

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

Duration parsed(std::string_view text) {
  std::string error;
  const auto d = parse_duration(text, &error);
  INFO("parse_duration(\"" << std::string(text) << "\") failed: " << error);
  REQUIRE(d.has_value());
  return *d;
}

// The error message for a rejected input (the test fails if the input is accepted).
std::string rejection(std::string_view text) {
  std::string error;
  const auto d = parse_duration(text, &error);
  INFO("parse_duration(\"" << std::string(text) << "\") should fail");
  REQUIRE_FALSE(d.has_value());
  REQUIRE_FALSE(error.empty());
  return error;
}

}  // namespace

TEST_CASE("parse_duration reads single-unit durations", "[time]") {
  CHECK(parsed("150ms") == 150_ms);
  CHECK(parsed("15s") == 15_s);
  CHECK(parsed("2h") == 2_h);
  CHECK(parsed("3m") == 3_min);
  CHECK(parsed("7ns") == 7_ns);
  CHECK(parsed("250us") == 250_us);
  CHECK(parsed("250µs") == 250_us);  // U+00B5 MICRO SIGN, as Go prints it
  CHECK(parsed("250μs") == 250_us);  // U+03BC GREEK SMALL LETTER MU, also accepted by Go
}

TEST_CASE("parse_duration reads fractions exactly, without floating point", "[time]") {
  CHECK(parsed("1.5s") == 1500_ms);
  CHECK(parsed(".5s") == 500_ms);
  CHECK(parsed("5.s") == 5_s);
  CHECK(parsed("1.000000001s") == 1_s + 1_ns);
  CHECK(parsed("0.1s") == 100_ms);  // 0.1 is not representable in binary; here it is exact
  CHECK(parsed("1.5h") == 90_min);
  CHECK(parsed("2.5ms") == 2500_us);
  // Digits below one nanosecond are truncated, as Go does.
  CHECK(parsed("1.0000000019s") == 1_s + 1_ns);
  CHECK(parsed("1.5ns") == 1_ns);
  CHECK(parsed("1.0000000000000000000000001s") == 1_s);
}

TEST_CASE("parse_duration adds up multi-unit sequences", "[time]") {
  CHECK(parsed("1m30s") == 90_s);
  CHECK(parsed("1h2m3.5s") == 1_h + 2_min + 3500_ms);
  CHECK(parsed("1s500ms") == 1500_ms);
  CHECK(parsed("1ms1ms") == 2_ms);  // Go accepts repeated units too
}

TEST_CASE("parse_duration accepts zero and signs", "[time]") {
  CHECK(parsed("0") == Duration{0});
  CHECK(parsed("-0") == Duration{0});
  CHECK(parsed("0s") == Duration{0});
  CHECK(parsed("-5s") == -5_s);
  CHECK(parsed("+5s") == 5_s);
  CHECK(parsed("-1m30s") == -90_s);
}

TEST_CASE("parse_duration accepts every value up to the int64 limit", "[time]") {
  CHECK(parsed("9223372036854775807ns") == Duration{kMax});
  CHECK(parsed("2562047h47m16.854775807s") == Duration{kMax});
  CHECK(parsed("300000h") == hours(300'000));  // about 34 years: well within range
}

TEST_CASE("parse_duration rejects malformed input with a message naming the problem", "[time]") {
  CHECK_THAT(rejection(""), Catch::Contains("empty"));
  CHECK_THAT(rejection("5"), Catch::Contains("unit") && Catch::Contains("\"5\""));
  CHECK_THAT(rejection("5x"), Catch::Contains("unit") && Catch::Contains("\"5x\""));
  CHECK_THAT(rejection("1.5"), Catch::Contains("unit") && Catch::Contains("\"1.5\""));
  CHECK_THAT(rejection("s"), Catch::Contains("expected a number"));
  CHECK_THAT(rejection(".s"), Catch::Contains("expected a number"));
  CHECK_THAT(rejection("-"), Catch::Contains("not a duration"));
  CHECK_THAT(rejection("1s "), Catch::Contains("expected a number in \"1s \""));
  CHECK_THAT(rejection(" 1s"), Catch::Contains("expected a number"));
  CHECK_THAT(rejection("1m30"), Catch::Contains("unit"));
  CHECK_THAT(rejection("5 s"), Catch::Contains("unit"));
  // The hint says how to write a valid one.
  CHECK_THAT(rejection("5x"), Catch::Contains("150ms"));
}

TEST_CASE("parse_duration rejects values beyond about 292 years", "[time]") {
  CHECK_THAT(rejection("3000000h"), Catch::Contains("too large"));
  CHECK_THAT(rejection("9223372036854775808ns"), Catch::Contains("too large"));
  CHECK_THAT(rejection("2562047h47m16.854775808s"), Catch::Contains("too large"));
  CHECK_THAT(rejection("99999999999999999999999s"), Catch::Contains("too large"));
  CHECK_THAT(rejection("2562047h2562047h"), Catch::Contains("too large"));
}

TEST_CASE("parse_duration without an error pointer just returns nullopt", "[time]") {
  CHECK_FALSE(parse_duration("5x").has_value());
  CHECK_FALSE(parse_duration("").has_value());
}

TEST_CASE("format_duration prints like Go's Duration.String", "[time]") {
  CHECK(format_duration(Duration{0}) == "0s");
  CHECK(format_duration(1_ns) == "1ns");
  CHECK(format_duration(999_ns) == "999ns");
  CHECK(format_duration(1500_ns) == "1.5µs");
  CHECK(format_duration(150_ms) == "150ms");
  CHECK(format_duration(1500_ms) == "1.5s");
  CHECK(format_duration(1_s + 1_ns) == "1.000000001s");
  CHECK(format_duration(90_s) == "1m30s");
  CHECK(format_duration(1_h) == "1h0m0s");
  CHECK(format_duration(1_h + 2_min + 3500_ms) == "1h2m3.5s");
  CHECK(format_duration(-5_s) == "-5s");
  CHECK(format_duration(-1500_ns) == "-1.5µs");
  CHECK(format_duration(Duration{kMax}) == "2562047h47m16.854775807s");
  CHECK(format_duration(Duration{std::numeric_limits<std::int64_t>::min()}) ==
        "-2562047h47m16.854775808s");
}

TEST_CASE("format_seconds prints seconds with nanosecond precision", "[time]") {
  CHECK(format_seconds(0) == "0.000000000");
  CHECK(format_seconds(12'000'000'150) == "12.000000150");
  CHECK(format_seconds(kMax) == "9223372036.854775807");
}

// The hand-written digits against the printf format they replaced.
TEST_CASE("format_seconds prints what %lld.%09lld prints", "[time]") {
  rc::prop("format_seconds matches snprintf", [] {
    const std::int64_t ns = *rc::gen::oneOf(rc::gen::inRange<std::int64_t>(0, 100'000'000'000),
                                            rc::gen::inRange<std::int64_t>(0, kMax));
    char expected[40];
    std::snprintf(expected, sizeof expected, "%lld.%09lld",
                  static_cast<long long>(ns / 1'000'000'000),
                  static_cast<long long>(ns % 1'000'000'000));
    RC_ASSERT(format_seconds(ns) == std::string(expected));
  });
}

TEST_CASE("Duration, TrueTime and LocalTime arithmetic", "[time]") {
  CHECK(1_s + 500_ms == 1500_ms);
  CHECK(1_s - 1500_ms == -500_ms);
  CHECK(3_s * 2 == 6_s);
  CHECK(7_s / 2 == 3500_ms);
  CHECK(1_min == 60_s);
  CHECK(1_h == 60_min);
  const TrueTime t{5'000};
  CHECK((t + 1_us).ns == 6'000);
  CHECK((t + 1_us) - t == 1_us);
  CHECK(TrueTime{1} < TrueTime{2});
  const LocalTime l{100};
  CHECK((l + 5_ns) - l == 5_ns);
  CHECK((l - 5_ns).ns == 95);
}

TEST_CASE("format_duration and parse_duration round-trip", "[time]") {
  rc::prop("parse(format(d)) == d for any non-negative int64 ns", [] {
    const auto ns = *rc::gen::inRange<std::int64_t>(0, kMax);
    RC_ASSERT(parse_duration(format_duration(Duration{ns})) == Duration{ns});
  });
  rc::prop("parse(format(d)) == d for small and boundary values", [] {
    const auto ns = *rc::gen::oneOf(rc::gen::inRange<std::int64_t>(0, 10'000'000'000),
                                    rc::gen::inRange<std::int64_t>(kMax - 1'000'000, kMax),
                                    rc::gen::arbitrary<std::int64_t>());
    if (ns == std::numeric_limits<std::int64_t>::min()) return;  // its negation is out of range
    RC_ASSERT(parse_duration(format_duration(Duration{ns})) == Duration{ns});
  });
  rc::prop("durations built from h/m/s/ms/ns parts parse to their sum", [] {
    const auto h = *rc::gen::inRange<std::int64_t>(0, 1000);
    const auto m = *rc::gen::inRange<std::int64_t>(0, 1000);
    const auto s = *rc::gen::inRange<std::int64_t>(0, 1000);
    const auto ms = *rc::gen::inRange<std::int64_t>(0, 1000);
    const auto ns = *rc::gen::inRange<std::int64_t>(0, 1000);
    const std::string text = std::to_string(h) + "h" + std::to_string(m) + "m" + std::to_string(s) +
                             "s" + std::to_string(ms) + "ms" + std::to_string(ns) + "ns";
    RC_ASSERT(parse_duration(text) ==
              hours(h) + minutes(m) + seconds(s) + milliseconds(ms) + nanoseconds(ns));
  });
  rc::prop("a decimal fraction of seconds is exact to the nanosecond", [] {
    const auto whole = *rc::gen::inRange<std::int64_t>(0, 1'000'000);
    const auto nine_digits = *rc::gen::inRange<std::int64_t>(0, 1'000'000'000);
    std::string fraction = std::to_string(nine_digits);
    fraction.insert(0, 9 - fraction.size(), '0');
    RC_ASSERT(parse_duration(std::to_string(whole) + "." + fraction + "s") ==
              seconds(whole) + nanoseconds(nine_digits));
  });
  rc::prop("a leading '-' negates", [] {
    const auto ns = *rc::gen::inRange<std::int64_t>(0, kMax);
    const std::string text = format_duration(Duration{ns});
    RC_ASSERT(parse_duration("-" + text) == Duration{-ns});
  });
}
