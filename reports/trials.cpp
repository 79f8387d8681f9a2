#include "reports/trials.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>

#include "sim/assert.hpp"
#include "sim/int128.hpp"
#include "sim/rng.hpp"

namespace hasim {

std::uint64_t trial_seed(std::uint64_t base_seed, std::uint64_t trial_index) {
  std::uint64_t state = base_seed;
  const std::uint64_t mixed_base = splitmix64(state);
  state = mixed_base ^ trial_index;
  return splitmix64(state);
}

namespace {

bool fail(std::string* error, std::string message) {
  if (error != nullptr) *error = std::move(message);
  return false;
}

// Reads a non-empty run of decimal digits that fits in 64 bits.
bool parse_u64(std::string_view digits, std::uint64_t& value) {
  if (digits.empty()) return false;
  value = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return false;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return false;
    value = value * 10 + digit;
  }
  return true;
}

}  // namespace

std::optional<ShardSpec> parse_shard(std::string_view text, std::string* error) {
  const std::string quoted = "shard \"" + std::string(text) + "\": ";
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) {
    fail(error, quoted + "expected I/N (shard I of N, numbered from 0), e.g. \"0/4\"");
    return std::nullopt;
  }
  ShardSpec shard;
  if (!parse_u64(text.substr(0, slash), shard.index) ||
      !parse_u64(text.substr(slash + 1), shard.count)) {
    fail(error, quoted + "I and N must be whole numbers (at most 20 digits), e.g. \"0/4\"");
    return std::nullopt;
  }
  if (shard.count == 0) {
    fail(error, quoted + "the shard count N must be at least 1, e.g. \"0/1\" for a single shard");
    return std::nullopt;
  }
  if (shard.index >= shard.count) {
    fail(error, quoted + "the index I must be below N (shards are numbered 0 to " +
                    std::to_string(shard.count - 1) + "), e.g. \"" +
                    std::to_string(shard.count - 1) + "/" + std::to_string(shard.count) + "\"");
    return std::nullopt;
  }
  return shard;
}

TrialRange trial_range(std::uint64_t total, ShardSpec shard) {
  HASIM_ASSERT(shard.count >= 1 && shard.index < shard.count);
  // 128-bit products: total * (I+1) overflows 64 bits for large sweeps.
  const auto boundary = [&](std::uint64_t i) {
    return static_cast<std::uint64_t>(static_cast<UInt128>(total) * i / shard.count);
  };
  return {boundary(shard.index), boundary(shard.index + 1)};
}

unsigned default_jobs() { return std::max(1u, std::thread::hardware_concurrency()); }

void for_each_trial(std::uint64_t begin, std::uint64_t end, unsigned jobs,
                    const std::function<void(std::uint64_t)>& body, const TrialProgress& progress) {
  HASIM_ASSERT(begin <= end);
  HASIM_ASSERT(jobs >= 1);
  const std::uint64_t total = end - begin;
  const auto wanted = static_cast<unsigned>(std::min<std::uint64_t>(jobs, total));
  // Each worker overshoots the counter at most once, so it cannot wrap around.
  HASIM_ASSERT(total <= std::numeric_limits<std::uint64_t>::max() - wanted);

  // Each counter on its own cache line: every worker bumps both once per trial, and sharing a
  // line would bounce it between cores on every claim (false sharing).
  alignas(64) std::atomic<std::uint64_t> next{0};  // offset of the next unclaimed trial
  alignas(64) std::atomic<std::uint64_t> done{0};
  alignas(64) std::atomic<bool> stop{false};
  std::mutex mutex;  // guards first_error and exited
  std::condition_variable worker_exited;
  std::exception_ptr first_error;
  unsigned exited = 0;

  const auto record_error = [&](std::exception_ptr error) {
    std::lock_guard lock(mutex);
    if (!first_error) first_error = std::move(error);
    stop.store(true);
  };
  const auto worker = [&] {
    // Bounded: every iteration claims a distinct offset below total, or leaves.
    while (!stop.load(std::memory_order_relaxed)) {
      const std::uint64_t offset = next.fetch_add(1, std::memory_order_relaxed);
      if (offset >= total) break;
      try {
        body(begin + offset);
      } catch (...) {
        record_error(std::current_exception());
        break;
      }
      done.fetch_add(1, std::memory_order_relaxed);
    }
    std::lock_guard lock(mutex);
    ++exited;
    worker_exited.notify_one();
  };

  std::vector<std::thread> workers;
  workers.reserve(wanted);
  for (unsigned i = 0; i < wanted; ++i) {
    try {
      workers.emplace_back(worker);
    } catch (...) {  // could not start a thread: stop, but still join those started
      record_error(std::current_exception());
      break;
    }
  }
  const auto started = static_cast<unsigned>(workers.size());
  const auto report = [&] {
    if (!progress) return;
    try {
      progress(done.load(std::memory_order_relaxed), total);
    } catch (...) {
      record_error(std::current_exception());
    }
  };
  {
    std::unique_lock lock(mutex);
    while (!worker_exited.wait_for(lock, std::chrono::milliseconds(kProgressIntervalMs),
                                   [&] { return exited == started; })) {
      lock.unlock();
      report();
      lock.lock();
    }
  }
  for (std::thread& thread : workers) thread.join();
  if (first_error) std::rethrow_exception(first_error);
  report();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace hasim
