// Scheduler throughput: the classic "hold" model. The queue is pre-filled with 10,000 pending
// events at exponential random times; each step pops the next event and schedules one at
// now + an exponential increment (mean 1 ms, integer ns), so the queue size stays constant.
//
//   bench_kernel_hold [N [VARIANT]]   N hold steps per variant (default 20,000,000); with
//                                     VARIANT (e.g. "reset"), only that one (for perf)
//
// Variants:
//   hold          pop one, schedule one
//   hold+cancel   as hold, but ~10% of steps first schedule an event and cancel it at once
//                 (a timeout that was not needed), so cancelled keys pass through the heap
//   reset         the lease pattern: every step resets a timer before it fires
//   bare heap, bare reset: hold and reset on a bare std::priority_queue (lazy deletion)
//   rng only      the same random draws without the scheduler, to separate their cost
//
// Handlers are trivial: each popped event's target and payload go into a checksum that is
// printed, so nothing is optimised away. Wall-clock time is measured here only (a benchmark),
// never in the simulator.
#include <chrono>
#include <queue>
#include <string_view>
#include <utility>
#include <vector>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "sim/rng.hpp"
#include "sim/scheduler.hpp"

namespace {

using hasim::Duration;
using hasim::Event;
using hasim::Rng;
using hasim::Scheduler;
using hasim::TrueTime;

constexpr std::uint64_t kPending = 10'000;
constexpr double kMeanIncrementNs = 1e6;  // 1 ms

std::int64_t increment_ns(Rng& rng) {
  return static_cast<std::int64_t>(std::llround(rng.exponential(kMeanIncrementNs)));
}

struct Result {
  std::uint64_t events = 0;     // popped and handled
  std::uint64_t cancelled = 0;  // scheduled then cancelled
  std::uint64_t checksum = 0;
  std::int64_t simulated_ns = 0;
  double seconds = 0.0;      // wall
  double cpu_seconds = 0.0;  // this process's CPU time: less disturbed on a shared machine
};

// Wall and CPU stopwatch around one variant's timed loop.
struct Stopwatch {
  std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
  std::clock_t cpu = std::clock();
  void stop(Result& r) const {
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count();
    r.cpu_seconds = static_cast<double>(std::clock() - cpu) / CLOCKS_PER_SEC;
  }
};

Result run_hold(std::uint64_t steps, unsigned cancel_percent) {
  Rng rng = Rng(1).fork(cancel_percent == 0 ? "hold" : "hold+cancel");
  Scheduler scheduler;
  for (std::uint64_t i = 0; i < kPending; ++i) {
    scheduler.schedule(TrueTime{increment_ns(rng)}, 0, static_cast<std::uint32_t>(i & 0xff), i);
  }
  Result r;
  const Stopwatch stopwatch;
  Event event;
  for (std::uint64_t i = 0; i < steps; ++i) {
    if (!scheduler.pop(event)) std::abort();
    r.checksum = r.checksum * 31 + (event.payload ^ event.target);
    const TrueTime now = scheduler.now();
    if (cancel_percent != 0 && rng.below(100) < cancel_percent) {
      const auto id = scheduler.schedule(now + Duration{increment_ns(rng)}, 1, 0, i);
      if (!scheduler.cancel(id)) std::abort();
      ++r.cancelled;
    }
    scheduler.schedule(now + Duration{increment_ns(rng)}, 0, static_cast<std::uint32_t>(i & 0xff),
                       kPending + i);
  }
  stopwatch.stop(r);
  r.events = scheduler.executed();
  r.simulated_ns = scheduler.now().ns;
  if (scheduler.pending() != kPending) std::abort();
  return r;
}

// The same hold loop on a bare std::priority_queue of (time, sequence) pairs: no slots, no
// cancellation, no assertions. The baseline the scheduler is measured against.
Result run_bare_heap(std::uint64_t steps) {
  Rng rng = Rng(1).fork("hold");
  using Key = std::pair<std::int64_t, std::uint64_t>;
  std::priority_queue<Key, std::vector<Key>, std::greater<Key>> queue;
  for (std::uint64_t i = 0; i < kPending; ++i) queue.push({increment_ns(rng), i});
  Result r;
  const Stopwatch stopwatch;
  for (std::uint64_t i = 0; i < steps; ++i) {
    const Key top = queue.top();
    queue.pop();
    r.checksum = r.checksum * 31 + top.second;
    queue.push({top.first + increment_ns(rng), kPending + i});
    r.simulated_ns = top.first;
  }
  stopwatch.stop(r);
  r.events = steps;
  return r;
}

// The lease pattern: timers reset before they fire. kPending holders each have a renewal
// pending (exponential, mean 1 ms) and a deadline 15 ms out; each step pops the next event,
// and a renewal cancels its holder's deadline, sets a new one 15 ms out and schedules the next
// renewal (a deadline that does fire, rarely, is re-armed). One pop, one cancel and two
// schedules a step, as client-go's renew loop and raft's election timer do.
constexpr std::int64_t kDeadlineNs = 15'000'000;

Result run_reset(std::uint64_t steps) {
  Rng rng = Rng(1).fork("reset");
  Scheduler scheduler;
  std::vector<hasim::EventId> deadline(kPending);
  for (std::uint64_t h = 0; h < kPending; ++h) {
    scheduler.schedule(TrueTime{increment_ns(rng)}, 0, 0, h);
    deadline[h] = scheduler.schedule(TrueTime{kDeadlineNs}, 1, 0, h);
  }
  Result r;
  const Stopwatch stopwatch;
  Event event;
  for (std::uint64_t i = 0; i < steps; ++i) {
    if (!scheduler.pop(event)) std::abort();
    const std::uint64_t h = event.payload;
    r.checksum = r.checksum * 31 + (h ^ event.kind);
    const TrueTime now = scheduler.now();
    if (event.kind == 0) {
      if (!scheduler.cancel(deadline[h])) std::abort();
      ++r.cancelled;
      scheduler.schedule(now + Duration{increment_ns(rng)}, 0, 0, h);
    }
    deadline[h] = scheduler.schedule(now + Duration{kDeadlineNs}, 1, 0, h);
  }
  stopwatch.stop(r);
  r.events = scheduler.executed();
  r.simulated_ns = scheduler.now().ns;
  return r;
}

// The same on a bare std::priority_queue with lazy deletion (a reset bumps the holder's
// generation; a popped deadline of an older generation is skipped, not counted): the usual
// way to cancel in a binary heap, at the price of carrying the stale entries.
Result run_bare_reset(std::uint64_t steps) {
  Rng rng = Rng(1).fork("reset");
  struct Entry {
    std::int64_t at;
    std::uint64_t seq;
    std::uint64_t holder;
    std::uint64_t generation;  // 0: a renewal
    bool operator>(const Entry& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  std::vector<std::uint64_t> generation(kPending, 1);
  std::uint64_t seq = 0;
  for (std::uint64_t h = 0; h < kPending; ++h) {
    queue.push({increment_ns(rng), seq++, h, 0});
    queue.push({kDeadlineNs, seq++, h, 1});
  }
  Result r;
  const Stopwatch stopwatch;
  for (std::uint64_t i = 0; i < steps;) {
    const Entry top = queue.top();
    queue.pop();
    if (top.generation != 0 && top.generation != generation[top.holder]) continue;  // stale
    ++i;
    r.checksum = r.checksum * 31 + (top.holder ^ (top.generation == 0 ? 0U : 1U));
    if (top.generation == 0) {
      ++r.cancelled;
      queue.push({top.at + increment_ns(rng), seq++, top.holder, 0});
    }
    queue.push({top.at + kDeadlineNs, seq++, top.holder, ++generation[top.holder]});
    r.simulated_ns = top.at;
  }
  stopwatch.stop(r);
  r.events = steps;
  return r;
}

Result run_rng_only(std::uint64_t steps) {
  Rng rng = Rng(1).fork("hold");
  Result r;
  const Stopwatch stopwatch;
  std::int64_t now = 0;
  for (std::uint64_t i = 0; i < steps; ++i) {
    now += increment_ns(rng) / 1024;
    r.checksum = r.checksum * 31 + static_cast<std::uint64_t>(now);
  }
  stopwatch.stop(r);
  r.events = steps;
  return r;
}

void print(const char* name, const Result& r) {
  const double events = static_cast<double>(r.events);
  std::printf("%-12s events %9" PRIu64 "  cancelled %8" PRIu64
              "  wall %6.3f s  %6.2f M events/s  (cpu %6.3f s  %6.2f M/s)  simulated %6.1f s"
              "  checksum %016" PRIx64 "\n",
              name, r.events, r.cancelled, r.seconds, events / r.seconds / 1e6, r.cpu_seconds,
              events / r.cpu_seconds / 1e6, static_cast<double>(r.simulated_ns) / 1e9, r.checksum);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t steps = 20'000'000;
  if (argc > 1) steps = std::strtoull(argv[1], nullptr, 10);
  if (steps == 0) {
    std::fprintf(stderr, "usage: %s [N]   (N > 0 hold steps per variant)\n", argv[0]);
    return 2;
  }
  const std::string_view only = argc > 2 ? argv[2] : "";
  std::printf("hold model: %" PRIu64 " pending events, %" PRIu64
              " steps, exponential increments (mean 1ms)\n",
              kPending, steps);
  const std::pair<const char*, Result (*)(std::uint64_t)> variants[] = {
      {"hold", [](std::uint64_t n) { return run_hold(n, 0); }},
      {"hold+cancel", [](std::uint64_t n) { return run_hold(n, 10); }},
      {"bare heap", run_bare_heap},
      {"reset", run_reset},
      {"bare reset", run_bare_reset},
      {"rng only", run_rng_only},
  };
  bool ran = false;
  for (const auto& [name, run] : variants) {
    if (!only.empty() && only != name) continue;
    print(name, run(steps));
    ran = true;
  }
  if (!ran) {
    std::fprintf(stderr, "unknown variant \"%s\"\n", argv[2]);
    return 2;
  }
  return 0;
}
