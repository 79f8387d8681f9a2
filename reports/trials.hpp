#pragma once
// Deterministic Monte Carlo: trial i of a report always runs with the same seed and its
// result always lands at position i, whatever the number of threads or shards. So a report
// run with --jobs 1, with --jobs 64, or as N shards of a Kubernetes Indexed Job and merged
// gives the same bytes. Threads are allowed here (reports/ drives simulations; it is not
// one): each trial is a whole, single-threaded, sans-IO simulation.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hasim {

// The seed of trial `trial_index` of a report run with `base_seed`:
//   mixed_base = splitmix64 step from state base_seed
//   seed       = splitmix64 step from state (mixed_base XOR trial_index)
// where a splitmix64 step adds the golden gamma 0x9e3779b97f4a7c15 and applies its
// finaliser (sim/rng.hpp). Both the finaliser and "add gamma" are bijections on 64 bits,
// so for one base seed distinct trials get distinct seeds, and for one trial index
// distinct base seeds give distinct seeds. It depends on nothing else (never on threads,
// shards or order of execution).
std::uint64_t trial_seed(std::uint64_t base_seed, std::uint64_t trial_index);

// Shard `index` of `count` ("I/N" on the command line, like a Kubernetes Indexed Job's
// JOB_COMPLETION_INDEX of completions N).
struct ShardSpec {
  std::uint64_t index = 0;
  std::uint64_t count = 1;
  bool operator==(const ShardSpec&) const = default;
};

// Parses "I/N" with decimal I < N and N >= 1, nothing else (no signs or spaces). On bad
// input returns nullopt and, if `error` is given, a sentence naming the problem and the fix.
std::optional<ShardSpec> parse_shard(std::string_view text, std::string* error = nullptr);

// A half-open range of trial indexes [begin, end).
struct TrialRange {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  std::uint64_t size() const { return end - begin; }
  bool operator==(const TrialRange&) const = default;
};

// The contiguous slice of [0, total) that `shard` runs: [floor(total*I/N),
// floor(total*(I+1)/N)). Consecutive shards meet exactly, shard 0 starts at 0, shard N-1
// ends at total, and sizes differ by at most one, so shards partition the trials.
TrialRange trial_range(std::uint64_t total, ShardSpec shard);

// Called with (trials done, trials in the run), from the caller's thread only.
using TrialProgress = std::function<void(std::uint64_t done, std::uint64_t total)>;

// How often run_trials reports progress while trials run.
inline constexpr int kProgressIntervalMs = 100;

// A default for --jobs: the hardware's thread count, at least 1.
unsigned default_jobs();

// Calls body(i) once for every i in [begin, end) on `jobs` threads (at most one per trial),
// handing out indexes through an atomic counter. Meanwhile the calling thread calls
// `progress` (if set) about every kProgressIntervalMs and once when all trials are done.
// If a body throws, no new trials start, and the first exception (in time) is rethrown
// here after every thread has been joined. jobs >= 1.
void for_each_trial(std::uint64_t begin, std::uint64_t end, unsigned jobs,
                    const std::function<void(std::uint64_t)>& body,
                    const TrialProgress& progress = {});

// Runs fn(i) -> Result for every trial i in [begin, end) on `jobs` threads and returns the
// results in trial order: element k is fn(begin + k). As long as fn depends only on its
// trial index (derive randomness from trial_seed), the result is identical for any jobs.
template <typename Result, typename Fn>
std::vector<Result> run_trials(std::uint64_t begin, std::uint64_t end, unsigned jobs, Fn&& fn,
                               const TrialProgress& progress = {}) {
  // One slot per trial; each is written by exactly one worker and read after the join.
  // std::optional so Result need not be default-constructible, and so vector<bool>'s
  // packed bits (not separately writable from threads) are never written concurrently.
  std::vector<std::optional<Result>> slots(end >= begin ? end - begin : 0);
  for_each_trial(
      begin, end, jobs, [&](std::uint64_t index) { slots[index - begin].emplace(fn(index)); },
      progress);
  std::vector<Result> results;
  results.reserve(slots.size());
  for (std::optional<Result>& slot : slots) results.push_back(std::move(*slot));
  return results;
}

}  // namespace hasim
