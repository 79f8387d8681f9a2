#pragma once
// etcd's periodic auto-compactor (--auto-compaction-mode periodic; server/etcdserver/api/
// v3compactor/periodic.go) as a pure unit: no clock, no Env. Its loop records the store's
// revision every retry interval (a tenth of the period, at most 6 minutes), keeps a window of
// period / retry + 1 of them (revs[0] is the revision one period ago), and once a period has
// passed since the last success compacts at revs[0], then every min(period, 1h). It runs only
// while its member leads (server.go updateLeadership: Pause on a follower, Resume on the
// leader); a compaction is an ordinary request through raft.
#include <cstdint>
#include <deque>
#include <optional>

#include "sim/time.hpp"

namespace hasim::etcd {

class PeriodicCompactor {
 public:
  // `period`: --auto-compaction-retention; `now`: when Run started; `revision`: the store's.
  PeriodicCompactor(Duration period, LocalTime now, std::int64_t revision);

  Duration period() const { return period_; }
  // getRetryInterval: min(period, 1h) / 10.
  Duration retry_interval() const;
  // getCompactInterval: min(period, 1h).
  Duration compact_interval() const;
  // getRetentions: period / retry_interval + 1.
  std::size_t retentions() const;

  // The loop wakes (one retry interval after its last turn). Returns the revision to compact
  // now, or nullopt when it records `revision` and sleeps again (paused, too early, or nothing
  // new to compact). After a compaction the caller reports compacted() before the next wake.
  std::optional<std::int64_t> wake(LocalTime now, std::int64_t revision, bool paused);
  // The compaction's answer: success or ErrCompacted count as done. Then the loop records
  // `revision` (the store's now) and sleeps again.
  void compacted(LocalTime now, std::int64_t compacted_at, bool ok, std::int64_t revision);

  bool compacting() const { return compacting_; }
  const std::deque<std::int64_t>& revisions() const { return revs_; }

 private:
  void record(std::int64_t revision);

  Duration period_;
  std::deque<std::int64_t> revs_;
  std::int64_t lastRevision_ = 0;
  LocalTime lastSuccess_;
  Duration baseInterval_;
  bool compacting_ = false;
};

}  // namespace hasim::etcd
