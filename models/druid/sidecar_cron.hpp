#pragma once
// The part of robfig/cron/v3 (ParseStandard + SpecSchedule.Next) that etcd-backup-restore's
// defragmentation schedule needs (pkg/server/backuprestoreserver.go parses
// --defragmentation-schedule with cron.ParseStandard; default "0 0 */3 * *",
// pkg/server/types.go). Five fields: minute hour day-of-month month day-of-week. Each field
// is a comma list of `*`, `?`, `N`, `N-M`, each optionally `/step` (`N/step` = N-max/step).
// Names (JAN, MON), descriptors (@daily) and TZ= prefixes are not supported.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/time.hpp"

namespace hasim::druid::sidecar {

struct CronSchedule {
  std::uint64_t minute = 0;  // bit i set: minute i matches
  std::uint64_t hour = 0;
  std::uint64_t dom = 0;    // bits 1..31
  std::uint64_t month = 0;  // bits 1..12
  std::uint64_t dow = 0;    // bits 0..6, Sunday = 0
  // robfig's star bit: the field was `*`/`?` with no step > 1. If either day field is
  // starred a day must match both; otherwise either (Vixie cron's rule).
  bool dom_star = false;
  bool dow_star = false;
};

std::optional<CronSchedule> parse_cron(std::string_view spec, std::string* error = nullptr);

// The first activation strictly after `t` (whole minutes, second 0), or nullopt when none
// comes before the end of the year five years after t's (robfig gives up there too).
// LocalTime is read as nanoseconds since 1970-01-01T00:00:00 UTC: the sidecar's cron runs in
// the pod's local zone, which is UTC. `t` must not be before the epoch.
std::optional<LocalTime> cron_next(const CronSchedule& schedule, LocalTime t);

// Whether minute boundary `t` (a whole minute) is an activation; the naive definition
// cron_next is tested against.
bool cron_matches(const CronSchedule& schedule, LocalTime t);

}  // namespace hasim::druid::sidecar
