#pragma once
// Watches over the MVCC store (server/storage/mvcc/watchable_store.go, watcher_group.go,
// watcher.go; the gRPC side's cancel-on-compaction and prevKv from
// server/etcdserver/api/v3rpc/watch.go). Pull-based: the store queues responses per watch
// and the owner takes them with drain(); nothing calls out.
//
// Modelled as upstream:
//  - A watcher watches a key or an interval (key_range.hpp) from a start revision. Start 0
//    or above the current revision: it is *synced* and sees every later write as it ends
//    (notify), one response per write txn carrying that txn's matching events and revision.
//    Otherwise it is *unsynced*: sync_watchers() takes up to max_watchers_per_sync (512)
//    unsynced watchers, reads the backend's records from their lowest next revision up to
//    the current revision, and sends each its events as one response (revision = the
//    current revision) of at most watch_batch_max_revs (1000) distinct revisions; a
//    watcher with more left stays unsynced from the first revision not sent, the others
//    become synced. (Upstream's syncWatchersLoop runs it on a timer, and again at once
//    while it makes progress; here the caller decides when.)
//  - A chosen unsynced watcher whose next revision is below the compact revision gets one
//    response with compact_revision set (and revision 0), canceled, and is removed.
//  - Every queue is bounded: chan_buf_len (128) responses per watch (upstream's buffer is
//    per gRPC stream, shared by its watches; hasim gives each watch its own). A synced
//    watcher whose queue is full when a write ends becomes a *victim*: the batch is held,
//    and sync_victims() (upstream's syncVictimsLoop: every 10 ms while there are victims)
//    retries it with the revision the watcher had observed; once sent, the watcher rejoins
//    the synced or the unsynced group by whether it has seen the current revision. A
//    compaction response that does not fit is retried at the next sync; a progress
//    response that does not fit is dropped.
//  - prevKv is looked up when a response is drained (upstream: when the gRPC send loop
//    sends it), at mod_revision - 1, for every event but a create (a PUT of version 1);
//    if that revision is compacted by then, the event goes without it.
// Not modelled: filters (NOPUT, NODELETE), fragmenting large responses, periodic progress
// notifications (request_progress sends one on demand), restore after a snapshot.
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "models/etcd/mvcc/kv_store.hpp"

namespace hasim::etcd::mvcc {

using WatchId = std::int64_t;

struct WatchableStoreConfig {
  std::size_t chan_buf_len = 128;            // v3rpc/watch.go, mvcc/watcher.go chanBufLen
  std::size_t max_watchers_per_sync = 512;   // watchable_store.go maxWatchersPerSync
  std::int64_t watch_batch_max_revs = 1000;  // watcher_group.go watchBatchMaxRevs
};

struct WatchRequest {
  std::string key;
  std::string range_end;
  std::int64_t start_revision = 0;  // 0: from the next write
  bool prev_kv = false;
};

struct WatchResponse {
  WatchId watch_id = 0;
  std::vector<Event> events;  // empty in a progress or compaction response
  std::int64_t revision = 0;  // the store revision the watcher has seen up to
  std::int64_t compact_revision = 0;
  bool canceled = false;
  bool operator==(const WatchResponse&) const = default;
};

enum class WatcherState : std::uint8_t { synced, unsynced, victim };

class WatchableStore final : public TxnObserver {
 public:
  explicit WatchableStore(KvStore& store, WatchableStoreConfig config = {});
  ~WatchableStore() override;
  WatchableStore(const WatchableStore&) = delete;
  WatchableStore& operator=(const WatchableStore&) = delete;

  WatchId watch(const WatchRequest& request);
  bool cancel(WatchId id);
  // Takes the watch's queued responses, oldest first (the send loop).
  std::vector<WatchResponse> drain(WatchId id);
  std::size_t pending(WatchId id) const;
  bool watching(WatchId id) const { return watchers_.count(id) != 0; }
  WatcherState state(WatchId id) const;
  std::size_t count(WatcherState state) const;

  void sync_watchers();
  void sync_victims();
  // A progress notification (revision, no events) if the watcher is synced.
  bool request_progress(WatchId id);

  void on_txn_end(std::int64_t rev, const std::vector<Event>& events) override;

 private:
  struct Watcher {
    std::string key;
    std::string range_end;
    std::int64_t min_rev = 0;  // the next revision it has to see
    WatcherState state = WatcherState::synced;
    std::vector<Event> held;     // a victim's batch, not yet sent
    std::int64_t held_more = 0;  // its more_rev
  };
  struct Channel {
    bool prev_kv = false;
    std::deque<WatchResponse> responses;
  };
  struct Batch {
    std::vector<Event> events;
    std::int64_t revs = 0;
    std::int64_t more_rev = 0;  // the first revision left out when the batch was full
  };

  bool send(WatchId id, WatchResponse response);
  std::vector<WatchId> choose_unsynced(std::int64_t compact_rev);
  std::vector<Event> history(std::int64_t min_rev, std::int64_t max_rev,
                             const std::vector<WatchId>& ids) const;
  void add_to_batch(Batch& batch, const Event& event) const;
  void deliver_synced_batch(WatchId id, Batch& batch, std::int64_t cur_rev);
  void fill_prev_kv(WatchResponse& response) const;

  KvStore& store_;
  WatchableStoreConfig config_;
  std::map<WatchId, Watcher> watchers_;
  std::map<WatchId, Channel> channels_;
  WatchId next_id_ = 0;
};

}  // namespace hasim::etcd::mvcc
