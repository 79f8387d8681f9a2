#include "models/etcd/mvcc/watch.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "models/etcd/mvcc/key_range.hpp"
#include "sim/assert.hpp"

namespace hasim::etcd::mvcc {
namespace {

bool is_create(const Event& ev) { return ev.type == EventType::put && ev.kv.version == 1; }

}  // namespace

WatchableStore::WatchableStore(KvStore& store, WatchableStoreConfig config)
    : store_(store), config_(config) {
  HASIM_ASSERT(config_.chan_buf_len > 0);
  HASIM_ASSERT(config_.max_watchers_per_sync > 0);
  HASIM_ASSERT(config_.watch_batch_max_revs > 0);
  store_.set_observer(this);
}

WatchableStore::~WatchableStore() { store_.set_observer(nullptr); }

WatchId WatchableStore::watch(const WatchRequest& request) {
  const WatchId id = next_id_++;
  Watcher w;
  w.key = request.key;
  w.range_end = request.range_end;
  const std::int64_t cur = store_.current_revision();
  if (request.start_revision == 0 || request.start_revision > cur) {
    w.state = WatcherState::synced;
    w.min_rev = std::max(cur + 1, request.start_revision);
  } else {
    w.state = WatcherState::unsynced;  // catches up in sync_watchers
    w.min_rev = request.start_revision;
  }
  watchers_.emplace(id, std::move(w));
  channels_[id].prev_kv = request.prev_kv;
  HASIM_ASSERT(watchers_.size() <= channels_.size());
  return id;
}

bool WatchableStore::cancel(WatchId id) {
  channels_.erase(id);
  return watchers_.erase(id) != 0;
}

WatcherState WatchableStore::state(WatchId id) const {
  const auto it = watchers_.find(id);
  HASIM_ASSERT(it != watchers_.end());
  return it->second.state;
}

std::size_t WatchableStore::count(WatcherState state) const {
  return static_cast<std::size_t>(std::count_if(
      watchers_.begin(), watchers_.end(), [&](const auto& w) { return w.second.state == state; }));
}

std::size_t WatchableStore::pending(WatchId id) const {
  const auto it = channels_.find(id);
  return it == channels_.end() ? 0 : it->second.responses.size();
}

bool WatchableStore::send(WatchId id, WatchResponse response) {
  // w.send: a non-blocking send on a bounded channel.
  Channel& channel = channels_.at(id);
  if (channel.responses.size() >= config_.chan_buf_len) return false;
  response.watch_id = id;
  channel.responses.push_back(std::move(response));
  HASIM_ASSERT(channel.responses.size() <= config_.chan_buf_len);
  return true;
}

std::vector<WatchResponse> WatchableStore::drain(WatchId id) {
  const auto it = channels_.find(id);
  if (it == channels_.end()) return {};
  std::vector<WatchResponse> out(std::make_move_iterator(it->second.responses.begin()),
                                 std::make_move_iterator(it->second.responses.end()));
  it->second.responses.clear();
  if (it->second.prev_kv) {
    for (WatchResponse& response : out) fill_prev_kv(response);
  }
  // A watch cancelled by compaction is gone once its last response is taken.
  if (watchers_.count(id) == 0) channels_.erase(it);
  return out;
}

void WatchableStore::fill_prev_kv(WatchResponse& response) const {
  for (Event& ev : response.events) {
    if (is_create(ev)) continue;
    RangeOptions options;
    options.rev = ev.kv.mod_revision - 1;
    RangeResult rr = store_.range(ev.kv.key, "", options);
    if (rr.error == MvccError::none && !rr.kvs.empty()) ev.prev_kv = std::move(rr.kvs.front());
  }
}

void WatchableStore::on_txn_end(std::int64_t rev, const std::vector<Event>& events) {
  HASIM_ASSERT(!events.empty());
  // notify: each synced watcher gets the txn's matching events in one response.
  for (auto& [id, w] : watchers_) {
    if (w.state != WatcherState::synced) continue;
    std::vector<Event> matched;
    for (const Event& ev : events) {
      HASIM_ASSERT(ev.kv.mod_revision == rev);
      if (ev.kv.mod_revision >= w.min_rev && range_contains(w.key, w.range_end, ev.kv.key)) {
        matched.push_back(ev);
      }
    }
    if (matched.empty()) continue;
    WatchResponse response;
    response.events = matched;
    response.revision = rev;
    w.min_rev = rev + 1;  // upstream moves it on whether or not the send succeeds
    if (send(id, std::move(response))) continue;
    // The queue is full: hold the batch and retry it in sync_victims.
    w.state = WatcherState::victim;
    w.held = std::move(matched);
    w.held_more = 0;
  }
}

bool WatchableStore::request_progress(WatchId id) {
  const auto it = watchers_.find(id);
  if (it == watchers_.end() || it->second.state != WatcherState::synced) return false;
  WatchResponse response;
  response.revision = store_.current_revision();
  return send(id, std::move(response));
}

void WatchableStore::sync_victims() {
  const std::int64_t cur = store_.current_revision();
  for (auto& [id, w] : watchers_) {
    if (w.state != WatcherState::victim) continue;
    WatchResponse response;
    response.events = w.held;
    response.revision = w.min_rev - 1;             // observed up to, not including, min_rev
    if (!send(id, std::move(response))) continue;  // still a victim
    w.held.clear();
    if (w.held_more != 0) w.min_rev = w.held_more;
    w.held_more = 0;
    w.state = w.min_rev <= cur ? WatcherState::unsynced : WatcherState::synced;
  }
}

std::vector<WatchId> WatchableStore::choose_unsynced(std::int64_t compact_rev) {
  // Upstream picks from a Go map (no order); hasim takes the lowest ids, deterministically.
  std::vector<WatchId> chosen;
  for (auto it = watchers_.begin();
       it != watchers_.end() && chosen.size() < config_.max_watchers_per_sync;) {
    const auto current = it++;
    if (current->second.state != WatcherState::unsynced) continue;
    if (current->second.min_rev >= compact_rev) {
      chosen.push_back(current->first);
      continue;
    }
    WatchResponse response;  // revision 0, as upstream's compaction response has
    response.compact_revision = compact_rev;
    response.canceled = true;  // v3rpc cancels a watch told of compaction
    if (send(current->first, std::move(response))) watchers_.erase(current);
  }
  return chosen;
}

std::vector<Event> WatchableStore::history(std::int64_t min_rev, std::int64_t max_rev,
                                           const std::vector<WatchId>& ids) const {
  std::vector<Event> events;
  const auto& backend = store_.backend();
  for (auto it = backend.lower_bound(Revision{min_rev, 0});
       it != backend.end() && it->first.main <= max_rev; ++it) {
    const std::string& key = it->second.kv.key;
    const bool wanted = std::any_of(ids.begin(), ids.end(), [&](WatchId id) {
      const Watcher& w = watchers_.at(id);
      return range_contains(w.key, w.range_end, key);
    });
    if (!wanted) continue;
    Event& ev = events.emplace_back();  // kvsToEvents
    ev.kv = it->second.kv;
    ev.type = it->second.tombstone ? EventType::del : EventType::put;
    if (it->second.tombstone) ev.kv.mod_revision = it->first.main;
  }
  return events;
}

void WatchableStore::add_to_batch(Batch& batch, const Event& event) const {
  // eventBatch.add: count distinct revisions; past the limit note where to resume.
  if (batch.more_rev != 0) return;
  if (!batch.events.empty() && event.kv.mod_revision > batch.events.back().kv.mod_revision) {
    if (batch.revs + 1 > config_.watch_batch_max_revs) {
      batch.more_rev = event.kv.mod_revision;
      return;
    }
    ++batch.revs;
  }
  if (batch.events.empty()) batch.revs = 1;
  batch.events.push_back(event);
}

void WatchableStore::deliver_synced_batch(WatchId id, Batch& batch, std::int64_t cur_rev) {
  Watcher& w = watchers_.at(id);
  w.min_rev = batch.more_rev != 0 ? batch.more_rev : cur_rev + 1;
  if (batch.events.empty()) {
    w.state = WatcherState::synced;  // nothing it has not seen: synced
    return;
  }
  WatchResponse response;
  response.events = batch.events;
  response.revision = cur_rev;
  if (!send(id, std::move(response))) {
    w.state = WatcherState::victim;
    w.held = std::move(batch.events);
    w.held_more = batch.more_rev;
    return;
  }
  w.state = batch.more_rev != 0 ? WatcherState::unsynced : WatcherState::synced;
}

void WatchableStore::sync_watchers() {
  HASIM_ASSERT(!store_.write_open());
  const std::int64_t cur = store_.current_revision();
  const std::vector<WatchId> chosen = choose_unsynced(store_.compact_revision());
  if (chosen.empty()) return;
  std::int64_t min_rev = std::numeric_limits<std::int64_t>::max();
  for (const WatchId id : chosen) min_rev = std::min(min_rev, watchers_.at(id).min_rev);
  const std::vector<Event> events = history(min_rev, cur, chosen);
  for (const WatchId id : chosen) {
    const Watcher& w = watchers_.at(id);
    Batch batch;
    for (const Event& ev : events) {
      if (ev.kv.mod_revision >= w.min_rev && range_contains(w.key, w.range_end, ev.kv.key)) {
        add_to_batch(batch, ev);
      }
    }
    deliver_synced_batch(id, batch, cur);
  }
}

}  // namespace hasim::etcd::mvcc
