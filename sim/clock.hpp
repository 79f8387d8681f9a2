#pragma once
// A node's local clock, as a model sees it. Two readings, as on Linux and in Go:
//   - wall: offset from true time, runs at `rate`, jumps on a step (NTP step, operator);
//   - monotonic: runs at `rate`, never jumps. Go's time.Now() carries both and Sub/After
//     use the monotonic one, so client-go's lease decisions see rate but not steps.
// Timers are set in local monotonic durations; the kernel converts a deadline to the first
// true instant at which the monotonic reading reaches it.
//
// The clock is piecewise linear in true time: each rate change or step starts a new
// segment anchored at the true time it happens. Rates are integers in parts per billion of
// true time (1'000'000'000 = a perfect clock), so conversions are exact integer arithmetic
// and monotone: true t1 <= t2 implies local(t1) <= local(t2).
#include <cstdint>

#include "sim/time.hpp"

namespace hasim {

inline constexpr std::int64_t kRatePerfect = 1'000'000'000;

class LocalClock {
 public:
  // offset: wall reading minus true time at true time 0. rate_ppb > 0.
  explicit LocalClock(Duration offset = {}, std::int64_t rate_ppb = kRatePerfect);

  LocalTime wall(TrueTime t) const;
  LocalTime monotonic(TrueTime t) const;
  // The earliest true time t >= segment start with monotonic(t) >= deadline.
  TrueTime true_time_of_monotonic(LocalTime deadline) const;

  // Both take effect at true time `now`, which must not precede the current segment.
  void set_rate(TrueTime now, std::int64_t rate_ppb);
  void step(TrueTime now, Duration delta);

  std::int64_t rate_ppb() const { return rate_ppb_; }
  TrueTime segment_start() const { return start_; }

 private:
  std::int64_t elapsed_local_ns(TrueTime t) const;

  TrueTime start_{};
  std::int64_t wall_at_start_ns_ = 0;
  std::int64_t monotonic_at_start_ns_ = 0;
  std::int64_t rate_ppb_ = kRatePerfect;
};

// Rate from drift in parts per million: +50 ppm runs 50 µs fast per second.
constexpr std::int64_t rate_from_ppm(std::int64_t ppm) { return kRatePerfect + ppm * 1'000; }

}  // namespace hasim
