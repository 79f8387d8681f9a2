#include "sim/clock.hpp"

#include "sim/assert.hpp"
#include "sim/int128.hpp"

namespace hasim {

LocalClock::LocalClock(Duration offset, std::int64_t rate_ppb)
    : wall_at_start_ns_(offset.ns), rate_ppb_(rate_ppb) {
  HASIM_ASSERT(rate_ppb > 0);
}

std::int64_t LocalClock::elapsed_local_ns(TrueTime t) const {
  HASIM_ASSERT(t >= start_);
  // A perfect clock (most nodes) needs no 128-bit division; the result is the same.
  if (rate_ppb_ == kRatePerfect) return t.ns - start_.ns;
  // floor((t - start) * rate / 1e9), exact in 128 bits.
  const Int128 scaled = static_cast<Int128>(t.ns - start_.ns) * rate_ppb_ / kRatePerfect;
  HASIM_ASSERT(scaled <= std::numeric_limits<std::int64_t>::max());
  return static_cast<std::int64_t>(scaled);
}

LocalTime LocalClock::wall(TrueTime t) const { return {wall_at_start_ns_ + elapsed_local_ns(t)}; }

LocalTime LocalClock::monotonic(TrueTime t) const {
  return {monotonic_at_start_ns_ + elapsed_local_ns(t)};
}

TrueTime LocalClock::true_time_of_monotonic(LocalTime deadline) const {
  const std::int64_t needed = deadline.ns - monotonic_at_start_ns_;
  if (needed <= 0) return start_;
  if (rate_ppb_ == kRatePerfect && needed < std::numeric_limits<std::int64_t>::max() - start_.ns) {
    return TrueTime{start_.ns + needed};  // the general formula with rate 1e9, without Int128
  }
  // Smallest x with floor(x * rate / 1e9) >= needed is ceil(needed * 1e9 / rate).
  const Int128 numerator = static_cast<Int128>(needed) * kRatePerfect;
  const Int128 x = (numerator + rate_ppb_ - 1) / rate_ppb_;
  const Int128 result = static_cast<Int128>(start_.ns) + x;
  if (result >= std::numeric_limits<std::int64_t>::max()) return TrueTime::max();
  const TrueTime t{static_cast<std::int64_t>(result)};
  HASIM_ASSERT(monotonic(t) >= deadline);
  return t;
}

void LocalClock::set_rate(TrueTime now, std::int64_t rate_ppb) {
  HASIM_ASSERT(rate_ppb > 0);
  wall_at_start_ns_ = wall(now).ns;
  monotonic_at_start_ns_ = monotonic(now).ns;
  start_ = now;
  rate_ppb_ = rate_ppb;
}

void LocalClock::step(TrueTime now, Duration delta) {
  wall_at_start_ns_ = wall(now).ns + delta.ns;
  monotonic_at_start_ns_ = monotonic(now).ns;
  start_ = now;
}

}  // namespace hasim
