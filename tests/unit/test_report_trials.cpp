// The Monte Carlo runner: per-trial seeds, shards that partition the trials exactly, results
// in trial order whatever the thread count, exceptions reaching the caller, progress on the
// caller's thread; and the progress bar's line.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <thread>

#include "reports/progress.hpp"
#include "reports/trials.hpp"
#include "sim/rng.hpp"

using namespace hasim;

namespace {

// A stand-in for one simulation: a few draws from the trial's own stream.
std::uint64_t fake_trial(std::uint64_t base_seed, std::uint64_t index) {
  Rng rng(trial_seed(base_seed, index));
  std::uint64_t acc = index;
  const std::uint64_t draws = 1 + rng.below(200);  // uneven work, so threads interleave
  for (std::uint64_t i = 0; i < draws; ++i) acc ^= rng.next_u64();
  return acc;
}

std::string read_all(std::FILE* file) {
  std::rewind(file);
  std::string text;
  for (int c = std::fgetc(file); c != EOF; c = std::fgetc(file)) text += static_cast<char>(c);
  return text;
}

}  // namespace

TEST_CASE("trial_seed is a fixed function of (base seed, trial index)", "[report][trials]") {
  // Pinned values: changing the derivation would silently change every published report.
  std::uint64_t state = 42;
  const std::uint64_t mixed = splitmix64(state);
  state = mixed ^ 7;
  CHECK(trial_seed(42, 7) == splitmix64(state));
  CHECK(trial_seed(42, 7) == trial_seed(42, 7));
  CHECK(trial_seed(42, 7) != trial_seed(42, 8));
  CHECK(trial_seed(42, 7) != trial_seed(43, 7));
  CHECK(trial_seed(0, 0) != 0);
}

TEST_CASE("trial_seed gives distinct seeds to distinct trials and bases", "[report][trials]") {
  rc::prop("i != j implies seed(b, i) != seed(b, j), and likewise for bases", [] {
    const auto base = *rc::gen::arbitrary<std::uint64_t>();
    const auto i = *rc::gen::arbitrary<std::uint64_t>();
    const auto j = *rc::gen::distinctFrom(i);
    RC_ASSERT(trial_seed(base, i) != trial_seed(base, j));
    const auto other_base = *rc::gen::distinctFrom(base);
    RC_ASSERT(trial_seed(base, i) != trial_seed(other_base, i));
  });
}

TEST_CASE("parse_shard reads I/N", "[report][trials]") {
  CHECK(parse_shard("0/1") == ShardSpec{0, 1});
  CHECK(parse_shard("3/4") == ShardSpec{3, 4});
  CHECK(parse_shard("0/18446744073709551615") == ShardSpec{0, 18446744073709551615ULL});
}

TEST_CASE("parse_shard rejects bad input with a message", "[report][trials]") {
  const auto rejected = [](std::string_view text) {
    std::string error;
    const auto shard = parse_shard(text, &error);
    INFO("parse_shard(\"" << std::string(text) << "\") should fail");
    CHECK_FALSE(shard.has_value());
    CHECK_THAT(error, Catch::Contains(std::string(text)));
    return error;
  };
  CHECK_THAT(rejected("4/4"), Catch::Contains("below N") && Catch::Contains("\"3/4\""));
  CHECK_THAT(rejected("5/4"), Catch::Contains("below N"));
  CHECK_THAT(rejected("0/0"), Catch::Contains("at least 1"));
  CHECK_THAT(rejected("3"), Catch::Contains("expected I/N"));
  CHECK_THAT(rejected(""), Catch::Contains("expected I/N"));
  CHECK_THAT(rejected("a/b"), Catch::Contains("whole numbers"));
  CHECK_THAT(rejected("-1/3"), Catch::Contains("whole numbers"));
  CHECK_THAT(rejected("1/3x"), Catch::Contains("whole numbers"));
  CHECK_THAT(rejected(" 1/3"), Catch::Contains("whole numbers"));
  CHECK_THAT(rejected("1/"), Catch::Contains("whole numbers"));
  CHECK_THAT(rejected("/3"), Catch::Contains("whole numbers"));
  CHECK_THAT(rejected("1/2/3"), Catch::Contains("whole numbers"));
  CHECK_THAT(rejected("0/18446744073709551616"), Catch::Contains("whole numbers"));
  CHECK_FALSE(parse_shard("4/4").has_value());  // no error pointer: still rejected
}

TEST_CASE("trial_range splits evenly", "[report][trials]") {
  CHECK(trial_range(10, {0, 1}) == TrialRange{0, 10});
  CHECK(trial_range(10, {0, 3}) == TrialRange{0, 3});
  CHECK(trial_range(10, {1, 3}) == TrialRange{3, 6});
  CHECK(trial_range(10, {2, 3}) == TrialRange{6, 10});
  CHECK(trial_range(2, {0, 4}) == TrialRange{0, 0});  // more shards than trials: some empty
  CHECK(trial_range(2, {3, 4}) == TrialRange{1, 2});
}

TEST_CASE("shards partition the trials exactly", "[report][trials]") {
  rc::prop("shards are contiguous, cover [0, total) and differ in size by at most one", [] {
    const auto total = *rc::gen::oneOf(rc::gen::inRange<std::uint64_t>(0, 100'000),
                                       rc::gen::arbitrary<std::uint64_t>());
    const auto count = *rc::gen::inRange<std::uint64_t>(1, 500);
    std::uint64_t expected_begin = 0;
    std::uint64_t smallest = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t largest = 0;
    for (std::uint64_t index = 0; index < count; ++index) {
      const TrialRange range = trial_range(total, {index, count});
      RC_ASSERT(range.begin == expected_begin);
      RC_ASSERT(range.begin <= range.end);
      smallest = std::min(smallest, range.size());
      largest = std::max(largest, range.size());
      expected_begin = range.end;
    }
    RC_ASSERT(expected_begin == total);
    RC_ASSERT(largest - smallest <= 1);
  });
}

TEST_CASE("run_trials returns results in trial order for any number of threads",
          "[report][trials]") {
  const auto run = [](unsigned jobs) {
    return run_trials<std::uint64_t>(5, 1'005, jobs,
                                     [](std::uint64_t i) { return fake_trial(99, i); });
  };
  const std::vector<std::uint64_t> one = run(1);
  REQUIRE(one.size() == 1'000);
  for (std::size_t k = 0; k < one.size(); ++k) REQUIRE(one[k] == fake_trial(99, 5 + k));
  CHECK(run(2) == one);
  CHECK(run(4) == one);
  CHECK(run(7) == one);
  CHECK(run(2'000) == one);  // more threads than trials
}

TEST_CASE("run_trials over shards, concatenated, equals one run", "[report][trials]") {
  constexpr std::uint64_t kTotal = 777;
  const auto whole =
      run_trials<std::uint64_t>(0, kTotal, 3, [](std::uint64_t i) { return fake_trial(5, i); });
  std::vector<std::uint64_t> merged;
  for (std::uint64_t index = 0; index < 5; ++index) {
    const TrialRange range = trial_range(kTotal, {index, 5});
    const auto part =
        run_trials<std::uint64_t>(range.begin, range.end, static_cast<unsigned>(1 + index % 3),
                                  [](std::uint64_t i) { return fake_trial(5, i); });
    merged.insert(merged.end(), part.begin(), part.end());
  }
  CHECK(merged == whole);
}

TEST_CASE("run_trials handles results that are not default-constructible, and bool",
          "[report][trials]") {
  struct Outcome {
    explicit Outcome(std::uint64_t v) : value(v) {}
    std::uint64_t value;
  };
  const auto outcomes =
      run_trials<Outcome>(0, 100, 4, [](std::uint64_t i) { return Outcome(i * i); });
  REQUIRE(outcomes.size() == 100);
  CHECK(outcomes[9].value == 81);
  const auto flags = run_trials<bool>(0, 1'000, 4, [](std::uint64_t i) { return i % 3 == 0; });
  REQUIRE(flags.size() == 1'000);
  CHECK(std::count(flags.begin(), flags.end(), true) == 334);
  CHECK(flags[999]);
  CHECK_FALSE(flags[998]);
}

TEST_CASE("run_trials on an empty range runs nothing", "[report][trials]") {
  std::atomic<int> calls{0};
  const auto results = run_trials<int>(10, 10, 4, [&](std::uint64_t) { return ++calls; });
  CHECK(results.empty());
  CHECK(calls == 0);
}

TEST_CASE("an exception thrown by a trial reaches the caller", "[report][trials]") {
  for (const unsigned jobs : {1u, 4u}) {
    std::atomic<std::uint64_t> calls{0};
    std::atomic<bool> thrown{false};
    const auto run = [&] {
      run_trials<int>(0, 100'000, jobs, [&](std::uint64_t i) {
        ++calls;
        if (i == 37) {
          thrown = true;
          throw std::runtime_error("trial 37 failed");
        }
        // A trial claimed after 37 lasts until 37 has thrown, and then long enough (100 ms)
        // for the unwinding to reach run_trials, so how fast trials are, or how threads are
        // scheduled, cannot finish the range first: at most one trial per other worker
        // runs after the failure.
        if (i > 37) {
          while (!thrown) std::this_thread::yield();
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return 1;
      });
    };
    CHECK_THROWS_WITH(run(), "trial 37 failed");
    // Workers stop taking trials once one has failed.
    CHECK(calls < 100'000);
  }
}

TEST_CASE("run_trials reports progress from the calling thread only", "[report][trials]") {
  const std::thread::id caller = std::this_thread::get_id();
  std::vector<std::pair<std::uint64_t, std::uint64_t>> calls;
  bool other_thread = false;
  run_trials<int>(
      0, 40, 4,
      [](std::uint64_t) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        return 0;
      },
      [&](std::uint64_t done, std::uint64_t total) {
        other_thread = other_thread || std::this_thread::get_id() != caller;
        calls.emplace_back(done, total);
      });
  CHECK_FALSE(other_thread);
  REQUIRE_FALSE(calls.empty());
  CHECK(calls.back() == std::pair<std::uint64_t, std::uint64_t>{40, 40});
  for (std::size_t i = 1; i < calls.size(); ++i) CHECK(calls[i - 1].first <= calls[i].first);
}

TEST_CASE("the progress bar draws one updating line, and nothing when disabled",
          "[report][trials]") {
  CHECK(ProgressBar::render(512, 1000, "trials", 1234.4) ==
        "[###############               ] 512/1000 trials  1234/s");
  CHECK(ProgressBar::render(0, 0, "trials", 0) == "[##############################] 0/0 trials");

  std::FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  {
    ProgressBar bar(1000, "trials", true, file);
    REQUIRE(bar.enabled());
    bar.update(512);
    bar.update(1000);
    bar.finish();
    bar.finish();  // idempotent
  }
  const std::string text = read_all(file);
  std::fclose(file);
  CHECK(text.rfind("\r[", 0) == 0);
  CHECK_THAT(text, Catch::Contains("512/1000 trials"));
  CHECK_THAT(text, Catch::Contains("1000/1000 trials"));
  CHECK(std::count(text.begin(), text.end(), '\n') == 1);
  CHECK(text.back() == '\n');

  std::FILE* quiet = std::tmpfile();
  REQUIRE(quiet != nullptr);
  {
    ProgressBar bar(1000, "trials", false, quiet);
    bar.update(10);
    bar.finish();
  }
  CHECK(read_all(quiet).empty());
  std::fclose(quiet);
}
