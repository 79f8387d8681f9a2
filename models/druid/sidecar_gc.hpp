#pragma once
// Garbage collection of old backups by the leading sidecar, as pure functions
// (etcd-backup-restore pkg/snapshot/snapshotter/garbagecollector.go RunGarbageCollector):
// every garbage-collection period while the snapshotter runs, the store is listed and cut
// into snap streams (a full snapshot and the deltas after it; the first stream starts at the
// listing's first entry, whatever its kind), then:
//  - in every stream but the latest, the deltas older than deltaSnapshotRetentionPeriod go,
//    newest first; a stream where a delete failed keeps its full snapshot this pass, and its
//    delta deletes stop after DeltaSnapshotGCErrorThreshold failures;
//  - LimitBased (druid's default): the full snapshots beyond the newest maxBackups go;
//  - Exponential (backup-restore's own default): the newest stream is kept; of older full
//    snapshots, one per hour is kept for the current day, one per day for the week ending the
//    day before, one per week for the four weeks before that, none older.
// The listing and the deletes are the caller's (the sidecar); this file decides what goes.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "models/druid/sidecar_snapshot.hpp"
#include "sim/time.hpp"

namespace hasim::druid::sidecar {

enum class GcPolicy { Exponential, LimitBased };
std::string_view name(GcPolicy policy);  // "Exponential", "LimitBased" (brtypes)
std::optional<GcPolicy> parse_gc_policy(std::string_view text);

// pkg/types/snapshotter.go; druid's defaultMaxBackupsLimitBasedGC is 7 too.
inline constexpr Duration kDefaultGarbageCollectionPeriod = minutes(1);
inline constexpr std::int64_t kDefaultMaxBackups = 7;
inline constexpr int kDeltaSnapshotGCErrorThreshold = 5;

// What GC reads of a listed snapshot (brtypes.Snapshot), in list order.
struct GcEntry {
  SnapshotKind kind = SnapshotKind::Full;
  LocalTime created_on{};  // nanoseconds since 1970-01-01T00:00:00 UTC (sidecar_cron.hpp)
};

// getFullSnapshotIndexList: 0, then the index of every full snapshot after the first entry.
std::vector<std::size_t> full_snapshot_indexes(const std::vector<GcEntry>& listing);

// One stream a pass visits, in the policy's order: the entries [begin, end) and the full
// snapshot the policy judges (`head`, within the stream) once its deltas are collected.
struct GcStream {
  std::size_t begin = 0, end = 0;
  std::size_t head = 0;
  std::size_t newer = 0;  // Exponential: the full snapshot that starts the next stream
};
std::vector<GcStream> gc_streams(const std::vector<GcEntry>& listing, GcPolicy policy);

// GarbageCollectDeltaSnapshots: the deltas of a stream created before now - retention, in the
// order they are deleted (newest first).
std::vector<std::size_t> deltas_to_collect(const std::vector<GcEntry>& listing,
                                           const GcStream& stream, LocalTime now,
                                           Duration retention);

// LimitBased: whether the k-th stream's full snapshot (k counted from the oldest) goes.
bool limit_based_collects(std::size_t k, std::size_t fulls, std::int64_t maxBackups);

// Exponential: judged stream by stream, newest first, for the streams whose deltas were all
// deleted; `eod` moves back a day when the week tracking starts, as upstream's does.
class ExponentialGc {
 public:
  explicit ExponentialGc(LocalTime now);
  // Whether `next` (the older full snapshot) goes, given `snap`, the newer one after it.
  bool collects(const GcEntry& snap, const GcEntry& next);

 private:
  LocalTime now_;
  LocalTime eod_;
  bool trackingWeek_ = false;
};

}  // namespace hasim::druid::sidecar
