#include "models/druid/sidecar_snapshot.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "sim/assert.hpp"

namespace hasim::druid::sidecar {

namespace {

constexpr std::int64_t kDefaultFullSnapMaxTimeWindowHours = 24;  // defaultFullSnapMaxTimeWindow

std::vector<std::string_view> fields(std::string_view spec) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  // Bounded by the spec's length: each turn consumes at least one character.
  while (i < spec.size()) {
    while (i < spec.size() && (spec[i] == ' ' || spec[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < spec.size() && spec[i] != ' ' && spec[i] != '\t') ++i;
    if (i > start) out.push_back(spec.substr(start, i - start));
  }
  return out;
}

// strconv.ParseFloat of what follows "/" in the hour field, for whole numbers only (a
// fractional step never comes out of a valid cron hour field).
std::optional<std::int64_t> parse_step(std::string_view text) {
  if (text.empty() || text.size() > 6) return std::nullopt;
  std::int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

}  // namespace

std::string_view name(SnapshotKind kind) { return kind == SnapshotKind::Full ? "Full" : "Incr"; }

std::string snapshot_name(SnapshotKind kind, std::int64_t start_revision,
                          std::int64_t last_revision, LocalTime created_on, bool is_final) {
  HASIM_ASSERT(start_revision >= 0 && last_revision >= start_revision);
  // CreatedOn.Unix(): whole seconds, rounded down (also before the epoch).
  std::int64_t unix_seconds = created_on.ns / 1'000'000'000;
  if (created_on.ns < 0 && created_on.ns % 1'000'000'000 != 0) --unix_seconds;
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "%s-%08lld-%08lld-%lld%s", std::string(name(kind)).c_str(),
                static_cast<long long>(start_revision), static_cast<long long>(last_revision),
                static_cast<long long>(unix_seconds), is_final ? ".final" : "");
  return buffer;
}

std::int64_t full_snapshot_max_time_window_hours(std::string_view schedule_spec) {
  const std::vector<std::string_view> f = fields(schedule_spec);
  if (f.size() < 5) return kDefaultFullSnapMaxTimeWindowHours;
  const std::string_view hour = f[1], dom = f[2], dow = f[4];
  if (dow != "*") return kDefaultFullSnapMaxTimeWindowHours * 7;
  const std::size_t slash = hour.find('/');
  if (dom == "*" && slash != std::string_view::npos) {
    // ParseFloat of everything after the first "/": a failure keeps the default.
    if (const auto step = parse_step(hour.substr(slash + 1))) return *step;
  }
  return kDefaultFullSnapMaxTimeWindowHours;
}

bool full_snapshot_required_at_startup(const std::optional<PrevFullSnapshot>& prev,
                                       bool prev_full_succeeded, const CronSchedule& schedule,
                                       std::int64_t window_hours, LocalTime now) {
  HASIM_ASSERT(window_hours >= 0);
  const Duration window = hours(window_hours);
  // time.Since(...).Hours() > timeWindow: strictly.
  if (!prev || prev->is_final || now - prev->created_on > window || !prev_full_succeeded) {
    return true;
  }
  const std::optional<LocalTime> next = cron_next(schedule, now);
  if (!next) return true;  // no activation ahead: nothing will take one in time
  // GetPrevScheduledSnapTime: the next activation, window hours earlier.
  const bool missed = *next - window != prev->created_on;
  if (!missed) return false;
  // IsNextFullSnapshotBeyondTimeWindow: the wait plus the age exceed the window.
  return (*next - now) + (now - prev->created_on) > window;
}

Duration delta_snapshot_timer(Duration delta_snapshot_period) {
  return delta_snapshot_period >= kDeltaSnapshotIntervalThreshold ? delta_snapshot_period
                                                                  : kDefaultDeltaSnapshotInterval;
}

DeltaPlan plan_delta(std::int64_t prev_last_revision, std::int64_t events,
                     std::int64_t last_event_revision) {
  HASIM_ASSERT(events >= 0 && prev_last_revision >= 0);
  if (events == 0) return DeltaPlan{};
  HASIM_ASSERT(last_event_revision > prev_last_revision);
  return DeltaPlan{true, prev_last_revision + 1, last_event_revision};
}

bool delta_memory_limit_reached(std::int64_t event_bytes, std::int64_t memory_limit) {
  HASIM_ASSERT(event_bytes >= 0 && memory_limit > 0);
  return event_bytes >= memory_limit;
}

Duration next_backoff_time(ExponentialBackoff& backoff) {
  if (backoff.attempt > ExponentialBackoff::kAttemptLimit) return ExponentialBackoff::kThreshold;
  ++backoff.attempt;
  backoff.current = Duration{backoff.current.ns * ExponentialBackoff::kMultiplier};
  HASIM_ASSERT(backoff.current.ns > 0);
  return backoff.current;
}

void reset_backoff(ExponentialBackoff& backoff) {
  backoff = ExponentialBackoff{};
  HASIM_ASSERT(!backoff.start && backoff.attempt == 0);
}

}  // namespace hasim::druid::sidecar
