#include "models/druid/sidecar_cron.hpp"

#include <array>
#include <chrono>

#include "sim/assert.hpp"

namespace hasim::druid::sidecar {

namespace {

constexpr std::int64_t kMinuteNs = 60'000'000'000;
constexpr std::int64_t kMinutesPerDay = 1440;

struct Bounds {
  int min;
  int max;
};

bool fail(std::string* error, std::string message) {
  if (error != nullptr) *error = std::move(message);
  return false;
}

// A small decimal number (cron fields are at most 2 digits; 3 keeps "100" an error below).
std::optional<int> parse_number(std::string_view text) {
  if (text.empty() || text.size() > 3) return std::nullopt;
  int value = 0;
  for (const char c : text) {  // at most 3 iterations
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

// One comma-separated item, as robfig's getRange: `*`/`?` or N or N-M, then maybe /step.
bool parse_item(std::string_view item, Bounds b, std::uint64_t& bits, bool& star,
                std::string* error) {
  const std::size_t slash = item.find('/');
  const std::string_view range = item.substr(0, slash);
  int start = b.min;
  int end = b.max;
  bool starred = false;
  if (range == "*" || range == "?") {
    starred = true;
  } else {
    const std::size_t dash = range.find('-');
    const auto low = parse_number(range.substr(0, dash));
    const auto high = dash == std::string_view::npos ? low : parse_number(range.substr(dash + 1));
    if (!low || !high)
      return fail(error, "bad number in cron field item '" + std::string(item) + "'");
    start = *low;
    end = *high;
    // "N/step" means N through the maximum.
    if (slash != std::string_view::npos && dash == std::string_view::npos) end = b.max;
  }
  int step = 1;
  if (slash != std::string_view::npos) {
    const auto parsed = parse_number(item.substr(slash + 1));
    if (!parsed || *parsed == 0) return fail(error, "bad step in '" + std::string(item) + "'");
    step = *parsed;
  }
  if (start < b.min || end > b.max || start > end) {
    return fail(error, "cron item '" + std::string(item) + "' is out of range");
  }
  for (int v = start; v <= end; v += step) bits |= std::uint64_t{1} << v;  // <= 60 values
  if (starred && step == 1) star = true;
  return true;
}

bool parse_field(std::string_view field, Bounds b, std::uint64_t& bits, bool& star,
                 std::string* error) {
  bits = 0;
  star = false;
  std::size_t pos = 0;
  for (int items = 0; items <= 64; ++items) {  // a field has far fewer items than 64
    const std::size_t comma = field.find(',', pos);
    const std::string_view item = field.substr(pos, comma - pos);
    if (item.empty()) return fail(error, "empty item in cron field '" + std::string(field) + "'");
    if (!parse_item(item, b, bits, star, error)) return false;
    if (comma == std::string_view::npos) return true;
    pos = comma + 1;
  }
  return fail(error, "too many items in cron field");
}

bool has(std::uint64_t bits, unsigned value) { return ((bits >> value) & 1U) != 0; }

struct Civil {
  int year;
  unsigned month;
  unsigned day;
  unsigned weekday;  // Sunday = 0
};

Civil civil_from_days(std::int64_t days) {
  const std::chrono::sys_days sd{std::chrono::days{days}};
  const std::chrono::year_month_day ymd{sd};
  return Civil{static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
               static_cast<unsigned>(ymd.day()), std::chrono::weekday{sd}.c_encoding()};
}

bool day_matches(const CronSchedule& s, const Civil& c) {
  if (!has(s.month, c.month)) return false;
  const bool dom = has(s.dom, c.day);
  const bool dow = has(s.dow, c.weekday);
  // robfig dayMatches: a starred day field makes the test a conjunction.
  if (s.dom_star || s.dow_star) return dom && dow;
  return dom || dow;
}

}  // namespace

std::optional<CronSchedule> parse_cron(std::string_view spec, std::string* error) {
  std::array<std::string_view, 5> fields;
  int count = 0;
  std::size_t pos = 0;
  while (pos < spec.size()) {  // each pass consumes at least one character
    while (pos < spec.size() && (spec[pos] == ' ' || spec[pos] == '\t')) ++pos;
    if (pos == spec.size()) break;
    const std::size_t begin = pos;
    while (pos < spec.size() && spec[pos] != ' ' && spec[pos] != '\t') ++pos;
    if (count == 5) {
      fail(error, "a standard cron spec has 5 fields");
      return std::nullopt;
    }
    fields[static_cast<std::size_t>(count++)] = spec.substr(begin, pos - begin);
  }
  if (count != 5) {
    fail(error, "a standard cron spec has 5 fields");
    return std::nullopt;
  }
  CronSchedule s;
  bool unused_star = false;
  if (!parse_field(fields[0], {0, 59}, s.minute, unused_star, error) ||
      !parse_field(fields[1], {0, 23}, s.hour, unused_star, error) ||
      !parse_field(fields[2], {1, 31}, s.dom, s.dom_star, error) ||
      !parse_field(fields[3], {1, 12}, s.month, unused_star, error) ||
      !parse_field(fields[4], {0, 6}, s.dow, s.dow_star, error)) {
    return std::nullopt;
  }
  HASIM_ASSERT(s.minute != 0 && s.hour != 0 && s.dom != 0 && s.month != 0 && s.dow != 0);
  return s;
}

bool cron_matches(const CronSchedule& s, LocalTime t) {
  HASIM_ASSERT(t.ns >= 0 && t.ns % kMinuteNs == 0);
  const std::int64_t minute_index = t.ns / kMinuteNs;
  const std::int64_t minute_of_day = minute_index % kMinutesPerDay;
  const Civil c = civil_from_days(minute_index / kMinutesPerDay);
  return day_matches(s, c) && has(s.hour, static_cast<unsigned>(minute_of_day / 60)) &&
         has(s.minute, static_cast<unsigned>(minute_of_day % 60));
}

std::optional<LocalTime> cron_next(const CronSchedule& s, LocalTime t) {
  HASIM_ASSERT(t.ns >= 0);
  // robfig starts at the next whole second and the schedule's second field is 0, so the
  // answer is the first matching minute boundary strictly after t.
  const std::int64_t first_minute = t.ns / kMinuteNs + 1;
  const std::int64_t first_day = first_minute / kMinutesPerDay;
  const int year_limit = civil_from_days(first_day).year + 5;
  // At most 6 years of days are visited; only matching days scan their minutes.
  const std::int64_t last_day = first_day + 6 * 366;
  for (std::int64_t day = first_day; day <= last_day; ++day) {
    const Civil c = civil_from_days(day);
    if (c.year > year_limit) return std::nullopt;
    if (!day_matches(s, c)) continue;
    const std::int64_t from = day == first_day ? first_minute % kMinutesPerDay : 0;
    for (std::int64_t m = from; m < kMinutesPerDay; ++m) {
      if (has(s.hour, static_cast<unsigned>(m / 60)) &&
          has(s.minute, static_cast<unsigned>(m % 60))) {
        const LocalTime next{(day * kMinutesPerDay + m) * kMinuteNs};
        HASIM_ASSERT(next > t && cron_matches(s, next));
        return next;
      }
    }
  }
  return std::nullopt;
}

}  // namespace hasim::druid::sidecar
