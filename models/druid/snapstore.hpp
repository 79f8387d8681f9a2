#pragma once
// The backup bucket of an etcd-druid cluster (etcd-backup-restore pkg/snapstore: one of S3,
// GCS, ABS, Swift, OSS, OCS or a local directory, all behind brtypes.SnapStore's Save, List
// and Fetch) and the object-storage service in front of it, a process on a node of its own.
//  - The bucket lives outside every node, so no node or disk fault loses a snapshot; an
//    outage of the service (its node down or cut off) makes it unreachable, and the
//    sidecar's calls time out.
//  - List orders snapshots as brtypes.SnapList's Less does: by last revision, then by
//    creation time (chunks, which hasim does not upload, aside).
//  - A delta keeps its watch events as events, not as the JSON upstream writes: what a
//    restore replays, and what the memory limit counts (an estimate of that JSON's size).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/druid/sidecar_snapshot.hpp"
#include "models/etcd/mvcc/kv_store.hpp"
#include "sim/env.hpp"

namespace hasim::druid {

// brtypes.Snapshot, and the object's content.
struct StoredSnapshot {
  sidecar::SnapshotKind kind = sidecar::SnapshotKind::Full;
  std::int64_t start_revision = 0;
  std::int64_t last_revision = 0;
  LocalTime created_on{};  // the sidecar's clock when it took the snapshot
  bool is_final = false;
  std::string name;  // sidecar::snapshot_name
  // Full: the member's backend as Maintenance Snapshot streamed it (kv_snapshot.hpp).
  std::string backend;
  // Incr: the events of revisions [start_revision, last_revision].
  std::vector<etcd::mvcc::Event> events;
  std::int64_t size = 0;  // bytes uploaded
};

// The snapshot without its content (what a listing returns), copied field by field so the
// backend is never copied.
StoredSnapshot metadata_of(const StoredSnapshot& snapshot);

// GetLatestFullSnapshotAndDeltaSnapList over a listing: the last full snapshot and the deltas
// listed after it, in list order (no full snapshot: every delta of the list).
struct LatestSnapshots {
  std::optional<StoredSnapshot> full;
  std::vector<StoredSnapshot> deltas;
};
LatestSnapshots latest_full_and_deltas(const std::vector<StoredSnapshot>& listing);

// What handleDeltaWatchEvents appends for one event: its JSON (the event with key, value,
// revisions and a timestamp) estimated as key + value + a fixed 200 bytes.
std::int64_t delta_event_bytes(const etcd::mvcc::Event& event);

class Snapstore {
 public:
  static constexpr std::size_t kMaxSnapshots = 100'000;  // a bound of the model
  void save(StoredSnapshot snapshot);
  // Sorted as brtypes.SnapList; `with_data` false leaves backends and events out (List).
  std::vector<StoredSnapshot> list(bool with_data) const;
  // Delete: the object named; deleting one that is gone succeeds, as an S3 DeleteObject does.
  void remove(std::string_view name);
  std::size_t size() const { return snapshots_.size(); }

 private:
  std::vector<StoredSnapshot> snapshots_;  // in upload order
};

enum class SnapstoreOp : std::uint8_t { save, list, fetch_latest, remove };

// One call to the object-storage service; `client_id` is echoed in the answer.
struct SnapstoreRequest final : MessageBody {
  std::string_view type() const override { return "snapstore-request"; }
  std::uint64_t client_id = 0;
  SnapstoreOp op = SnapstoreOp::list;
  StoredSnapshot snapshot;  // save; remove: its name
};

struct SnapstoreResponse final : MessageBody {
  std::string_view type() const override { return "snapstore-response"; }
  std::uint64_t client_id = 0;
  std::vector<StoredSnapshot> listed;  // list: metadata only; fetch_latest: with content
};

// The object-storage service: answers every call at once; an outage is its process or node
// being down (scenarios/druid: druid-backup-store-down).
class SnapstoreServer final : public Process {
 public:
  explicit SnapstoreServer(std::shared_ptr<Snapstore> bucket);
  void on_start(Env& env) override;
  void on_message(Env& env, ProcessId from, const Message& message) override;
  void on_timer(Env& env, TimerId timer, std::uint64_t tag) override;

 private:
  std::shared_ptr<Snapstore> bucket_;
};

}  // namespace hasim::druid
