// The KV server's watches (kv_server.hpp): the gRPC watch stream's server side
// (server/etcdserver/api/v3rpc/watch.go serverWatchStream: create, cancel, and the send
// loop) over the member's WatchableStore (models/etcd/mvcc/watch.hpp), whose sync loops
// (watchable_store.go syncWatchersLoop, syncVictimsLoop) run on the member's timers.
#include "models/etcd/kv_server.hpp"
#include "sim/assert.hpp"

namespace hasim::etcd {

void KvServer::on_watch(ProcessId from, const KvWatch& request, KvOutbox& out) {
  if (request.cancel) {
    for (auto it = watches_.begin(); it != watches_.end(); ++it) {
      if (it->second.client != from || it->second.watch_id != request.watch_id) continue;
      watchable_.cancel(it->first);
      auto r = std::make_shared<KvWatchResponse>();
      r->watch_id = request.watch_id;
      r->header = header();
      r->watch.canceled = true;
      out.events.emplace_back(from, std::move(r));
      watches_.erase(it);
      return;
    }
    return;
  }
  auto r = std::make_shared<KvWatchResponse>();
  r->watch_id = request.watch_id;
  r->header = header();
  if (watches_.size() >= kMaxWatches) {  // a bound of the model
    r->watch.canceled = true;
    out.events.emplace_back(from, std::move(r));
    return;
  }
  const mvcc::WatchId id = watchable_.watch(request.request);
  watches_[id] = WatchOwner{from, request.watch_id};
  r->created = true;
  out.events.emplace_back(from, std::move(r));
  flush_watches(out);  // a watcher from the current revision has nothing yet; others wait
  arm_watch_timers(out);
}

void KvServer::on_client_gone(ProcessId client) {
  for (auto it = watches_.begin(); it != watches_.end();) {
    if (it->second.client != client) {
      ++it;
      continue;
    }
    watchable_.cancel(it->first);
    it = watches_.erase(it);
  }
}

// The send loop: every watch's queued responses go out; a canceled one (its start revision
// was compacted) ends the watch.
void KvServer::flush_watches(KvOutbox& out) {
  for (auto it = watches_.begin(); it != watches_.end();) {
    bool canceled = false;
    for (mvcc::WatchResponse& w : watchable_.drain(it->first)) {
      auto r = std::make_shared<KvWatchResponse>();
      r->watch_id = it->second.watch_id;
      r->header = header();
      canceled = canceled || w.canceled;
      r->watch = std::move(w);
      out.events.emplace_back(it->second.client, std::move(r));
    }
    it = canceled ? watches_.erase(it) : std::next(it);
  }
}

void KvServer::watch_timer(std::uint64_t kind, KvOutbox& out) {
  if (defragmenting()) {  // syncWatchers' read txn waits for the backend; re-armed after
    (kind == kSyncWatchers ? syncArmed_ : victimsArmed_) = false;
    return;
  }
  if (kind == kSyncWatchers) {
    syncArmed_ = false;
    watchable_.sync_watchers();
  } else {
    HASIM_ASSERT(kind == kSyncVictims);
    victimsArmed_ = false;
    watchable_.sync_victims();
  }
  flush_watches(out);
  arm_watch_timers(out);
}

// The loops run while the member has watches (victims): a member nobody watches sets no
// timer, so runs without watch clients keep their events.
void KvServer::arm_watch_timers(KvOutbox& out) {
  if (!syncArmed_ && !watches_.empty()) {
    syncArmed_ = true;
    out.timers.emplace_back(kSyncWatchersInterval, kSyncWatchers << kTimerKindShift);
  }
  if (!victimsArmed_ && watchable_.count(mvcc::WatcherState::victim) > 0) {
    victimsArmed_ = true;
    out.timers.emplace_back(kSyncVictimsInterval, kSyncVictims << kTimerKindShift);
  }
}

}  // namespace hasim::etcd
