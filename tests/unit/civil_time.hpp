#pragma once
// LocalTime of a UTC civil date and time, for tests of units that read LocalTime as
// nanoseconds since the Unix epoch (the sidecar's cron and snapshot schedule).
#include <chrono>
#include <cstdint>

#include "sim/time.hpp"

namespace hasim::testing {

inline LocalTime utc(int y, unsigned mo, unsigned d, int hh = 0, int mm = 0, int ss = 0) {
  using namespace std::chrono;
  const sys_days day{year{y} / month{mo} / d};
  const std::int64_t days_since = day.time_since_epoch().count();
  return LocalTime{(days_since * 86400 + hh * 3600 + mm * 60 + ss) * 1'000'000'000LL};
}

}  // namespace hasim::testing
