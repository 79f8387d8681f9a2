#include "models/etcd/periodic_compactor.hpp"

#include <algorithm>

#include "sim/assert.hpp"

namespace hasim::etcd {

namespace {
constexpr std::int64_t kRetryDivisor = 10;
}

PeriodicCompactor::PeriodicCompactor(Duration period, LocalTime now, std::int64_t revision)
    : period_(period), lastSuccess_(now), baseInterval_(period) {
  HASIM_ASSERT(period.ns >= kRetryDivisor);
  record(revision);  // the loop's first turn records before it sleeps
}

Duration PeriodicCompactor::compact_interval() const { return std::min(period_, hours(1)); }

Duration PeriodicCompactor::retry_interval() const {
  return Duration{compact_interval().ns / kRetryDivisor};
}

std::size_t PeriodicCompactor::retentions() const {
  return static_cast<std::size_t>(period_.ns / retry_interval().ns) + 1;
}

void PeriodicCompactor::record(std::int64_t revision) {
  revs_.push_back(revision);
  if (revs_.size() > retentions()) revs_.pop_front();  // revs[0]: the revision a period ago
  HASIM_ASSERT(!revs_.empty() && revs_.size() <= retentions());
}

std::optional<std::int64_t> PeriodicCompactor::wake(LocalTime now, std::int64_t revision,
                                                    bool paused) {
  HASIM_ASSERT(!compacting_);
  const std::int64_t rev = revs_.front();
  if (paused || now - lastSuccess_ < baseInterval_ || rev == lastRevision_) {
    record(revision);
    return std::nullopt;
  }
  // The first compaction waits a whole period; later ones every compact interval.
  if (baseInterval_ == period_) baseInterval_ = compact_interval();
  compacting_ = true;
  return rev;
}

void PeriodicCompactor::compacted(LocalTime now, std::int64_t compacted_at, bool ok,
                                  std::int64_t revision) {
  HASIM_ASSERT(compacting_);
  compacting_ = false;
  if (ok) {
    lastRevision_ = compacted_at;
    lastSuccess_ = now;
  }
  record(revision);
}

}  // namespace hasim::etcd
