#include "models/druid/sidecar_gc.hpp"

#include <limits>

#include "sim/assert.hpp"

namespace hasim::druid::sidecar {
namespace {

constexpr std::int64_t kHour = std::int64_t{3'600'000'000'000};
constexpr std::int64_t kDay = 24 * kHour;

// Floor division, for times before the epoch (a clock set back).
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  HASIM_ASSERT(b > 0);
  const std::int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

int hour_of_day(LocalTime t) { return static_cast<int>(floor_div(t.ns, kHour) % 24 + 24) % 24; }

// Go's int(d.Hours() / n): the float's truncation toward zero, as integer division (equal
// but for rounding of durations beyond 2^53 ns, about 104 days).
std::int64_t whole(Duration d, std::int64_t unit) { return d.ns / unit; }

}  // namespace

std::string_view name(GcPolicy policy) {
  return policy == GcPolicy::Exponential ? "Exponential" : "LimitBased";
}

std::optional<GcPolicy> parse_gc_policy(std::string_view text) {
  if (text == "Exponential") return GcPolicy::Exponential;
  if (text == "LimitBased") return GcPolicy::LimitBased;
  return std::nullopt;
}

std::vector<std::size_t> full_snapshot_indexes(const std::vector<GcEntry>& listing) {
  std::vector<std::size_t> indexes{0};
  for (std::size_t i = 1; i < listing.size(); ++i) {
    if (listing[i].kind == SnapshotKind::Full) indexes.push_back(i);
  }
  HASIM_ASSERT(!indexes.empty() && indexes.size() <= listing.size() + 1);
  return indexes;
}

std::vector<GcStream> gc_streams(const std::vector<GcEntry>& listing, GcPolicy policy) {
  std::vector<GcStream> streams;
  if (listing.empty()) return streams;
  const std::vector<std::size_t> idx = full_snapshot_indexes(listing);
  const std::size_t n = idx.size();
  if (policy == GcPolicy::LimitBased) {
    // Oldest first: stream k is [idx[k], idx[k+1]), its head idx[k]; the latest is kept.
    for (std::size_t k = 0; k + 1 < n; ++k) streams.push_back({idx[k], idx[k + 1], idx[k], 0});
  } else {
    // Newest first, from the second-to-last stream: [idx[k-1], idx[k]), judged against idx[k].
    for (std::size_t k = n - 1; k > 0; --k) {
      streams.push_back({idx[k - 1], idx[k], idx[k - 1], idx[k]});
    }
  }
  HASIM_ASSERT(streams.size() + 1 == n);
  return streams;
}

std::vector<std::size_t> deltas_to_collect(const std::vector<GcEntry>& listing,
                                           const GcStream& stream, LocalTime now,
                                           Duration retention) {
  HASIM_ASSERT(stream.begin <= stream.end && stream.end <= listing.size());
  const LocalTime cutoff = now - retention;
  std::vector<std::size_t> deltas;
  for (std::size_t i = stream.end; i > stream.begin; --i) {
    const GcEntry& e = listing[i - 1];
    if (e.kind == SnapshotKind::Incr && e.created_on < cutoff) deltas.push_back(i - 1);
  }
  return deltas;
}

bool limit_based_collects(std::size_t k, std::size_t fulls, std::int64_t maxBackups) {
  HASIM_ASSERT(k < fulls && maxBackups >= 0);
  return static_cast<std::int64_t>(k) < static_cast<std::int64_t>(fulls) - maxBackups;
}

ExponentialGc::ExponentialGc(LocalTime now)
    : now_(now), eod_{floor_div(now.ns, kDay) * kDay + kDay - 1'000'000'000} {}

bool ExponentialGc::collects(const GcEntry& snap, const GcEntry& next) {
  const Duration age = eod_ - next.created_on;
  std::int64_t threshold = 0;
  if (age.ns < kDay) {
    // Of the current day: one an hour, and every one of the current hour.
    threshold = hour_of_day(next.created_on) == hour_of_day(now_) ? 0 : 1;
  } else if (age.ns < 8 * kDay) {
    threshold = 24;
  } else if (age.ns < 35 * kDay) {
    if (!trackingWeek_) {
      // The week ends the day before: eod moves back a day once, for what follows too.
      eod_ = eod_ - Duration{kDay};
      trackingWeek_ = true;
    }
    threshold = 24 * 7;
  } else {
    threshold = std::numeric_limits<std::int32_t>::max();  // older than 4 weeks: goes
  }
  if (threshold == 0) return false;
  const Duration toNext = eod_ - next.created_on;
  const Duration toSnap = eod_ - snap.created_on;
  const std::int64_t hourChange = whole(toNext, kHour) - whole(toSnap, kHour);
  const std::int64_t dayChange = whole(toNext, kDay) - whole(toSnap, kDay);
  const std::int64_t weekChange = whole(toNext, 7 * kDay) - whole(toSnap, 7 * kDay);
  // Kept when the two fall in different windows of the threshold's size.
  const bool keep = hourChange / threshold != 0 || dayChange * 24 / threshold != 0 ||
                    weekChange * 24 * 7 / threshold != 0;
  return !keep;
}

}  // namespace hasim::druid::sidecar
