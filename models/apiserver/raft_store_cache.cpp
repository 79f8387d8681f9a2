// RaftStore's watch cache, its etcd watch with the connection's keepalive, and /readyz's
// etcd check (raft_store.hpp).
#include <algorithm>

#include "models/apiserver/object_codec.hpp"
#include "models/apiserver/raft_store.hpp"
#include "models/apiserver/trace_kinds.hpp"
#include "models/etcd/mvcc/key_range.hpp"
#include "sim/assert.hpp"

namespace hasim::api {
namespace {

// RaftStore's own timers (store_tags_).
enum StoreTimer : std::uint64_t {
  kRelist = 1,       // list again after a failed list
  kRewatch = 2,      // open the watch again after it failed
  kPing = 3,         // the next keepalive ping
  kPingTimeout = 4,  // the ping in flight went unanswered
  kReadiness = 5,    // the next /readyz etcd check
};

// The key /readyz's etcd check reads (factory/etcd3.go: path.Join("/", prefix, "health")).
constexpr std::string_view kHealthKey = "/registry/health";

}  // namespace

// The cacher's reflector: a consistent list of everything under /registry, then a watch from
// the list's revision + 1.
void RaftStore::start_cache() {
  cache_ready_ = false;
  Etcd3Effects fx;
  begin(client_.list(std::string(kRegistryPrefix), 0, now_ns(), fx),
        Pending{Purpose::cache_list, {}});
  run(std::move(fx));
}

void RaftStore::cache_listed(const StorageResult& result) {
  if (!result.ok()) {
    env_->set_timer(config_.relist_backoff, store_tags_.tag(kRelist));
    return;
  }
  reset_cache(result.resource_version);
  open_watch();
  if (!ping_armed_) {
    ping_armed_ = true;
    env_->set_timer(config_.keepalive_time, store_tags_.tag(kPing));
  }
}

// The cache starts over at `revision`: watchers of the apiserver that saw less must re-list
// (events_after answers false for them: cacher.go terminateAllWatchers).
void RaftStore::reset_cache(std::int64_t revision) {
  HASIM_ASSERT(revision > 0);
  events_.clear();
  cache_revision_ = static_cast<std::uint64_t>(revision);
  cache_floor_ = cache_revision_;
  cache_ready_ = true;
}

void RaftStore::open_watch() {
  HASIM_ASSERT(cache_ready_ && !watching_);
  auto watch = std::make_shared<etcd::KvWatch>();
  watch->watch_id = ++watch_id_;
  watch->request.key = std::string(kRegistryPrefix);
  watch->request.range_end = etcd::mvcc::prefix_range_end(kRegistryPrefix);
  watch->request.start_revision = static_cast<std::int64_t>(cache_revision_) + 1;
  watch->request.prev_kv = true;  // deletions carry the last state (etcd3/watcher.go)
  watching_ = true;
  env_->send(endpoints_.at(config_.client.endpoints[watch_endpoint_]), std::move(watch));
}

void RaftStore::on_watch_response(const etcd::KvWatchResponse& response) {
  if (!watching_ || response.watch_id != watch_id_) return;  // an abandoned watch's
  const etcd::mvcc::WatchResponse& w = response.watch;
  if (w.canceled) return watch_failed(w.compact_revision > 0);
  for (const etcd::mvcc::Event& event : w.events) append_event(event);
  const auto seen = static_cast<std::uint64_t>(std::max<std::int64_t>(w.revision, 0));
  cache_revision_ = std::max(cache_revision_, seen);
}

void RaftStore::append_event(const etcd::mvcc::Event& event) {
  StoreEvent out;
  out.revision = static_cast<std::uint64_t>(event.kv.mod_revision);
  HASIM_ASSERT(out.revision > cache_revision_ || events_.empty() ||
               out.revision >= events_.back().revision);
  if (event.type == etcd::mvcc::EventType::put) {
    out.type = event.kv.version == 1 ? WatchEventType::added : WatchEventType::modified;
    out.object = decode(event.kv);
  } else {
    // A deletion is the last state at the deletion's revision (etcd3/watcher.go transform).
    out.type = WatchEventType::deleted;
    Object last;
    if (event.prev_kv.has_value()) {
      last = *decode(*event.prev_kv);
    } else {
      const std::optional<ObjectKey> key = parse_etcd_key(event.kv.key);
      HASIM_ASSERT(key.has_value());
      last.key = *key;
    }
    last.resourceVersion = out.revision;
    out.object = std::make_shared<const Object>(std::move(last));
  }
  cache_revision_ = std::max(cache_revision_, out.revision);
  events_.push_back(std::move(out));
  if (events_.size() > config_.cache_capacity) {
    cache_floor_ = events_.front().revision;
    events_.pop_front();
  }
}

// The watch ended. Compacted past what the cache has seen: the cache lists again. Otherwise
// the client resumes it from the next revision, on the next endpoint, after the back-off.
void RaftStore::watch_failed(bool compacted) {
  watching_ = false;
  ++watch_id_;  // whatever the old watch still sends is ignored
  if (compacted) return start_cache();
  watch_endpoint_ = (watch_endpoint_ + 1) % config_.client.endpoints.size();
  env_->set_timer(config_.relist_backoff, store_tags_.tag(kRewatch));
}

// HTTP/2 keepalive on the watch's connection.
void RaftStore::ping() {
  if (watching_ && !ping_open_) {
    ping_open_ = true;
    auto status = std::make_shared<etcd::KvStatusRequest>();
    status->client_id = ++ping_id_;
    env_->send(endpoints_.at(config_.client.endpoints[watch_endpoint_]), std::move(status));
    ping_timeout_ = env_->set_timer(config_.keepalive_timeout, store_tags_.tag(kPingTimeout));
  }
  env_->set_timer(config_.keepalive_time, store_tags_.tag(kPing));
}

void RaftStore::on_ping_answer(std::uint64_t id) {
  if (!ping_open_ || id != ping_id_) return;
  ping_open_ = false;
  if (ping_timeout_) env_->cancel_timer(*ping_timeout_);
  ping_timeout_.reset();
}

void RaftStore::check_readiness() {
  if (!readiness_open_) {
    readiness_open_ = true;
    Etcd3Effects fx;
    begin(client_.get(std::string(kHealthKey), now_ns(), config_.readycheck_timeout, fx),
          Pending{Purpose::readiness, {}});
    run(std::move(fx));
  }
  env_->set_timer(config_.readiness_period, store_tags_.tag(kReadiness));
}

// The check passes when etcd answered, found or not (etcd3.go: only a call error fails it).
void RaftStore::readiness_checked(const StorageResult& result) {
  readiness_open_ = false;
  std::optional<std::string> now;
  if (!result.ok() && result.error != StorageError::key_not_found) {
    now = "etcd: " + (result.etcd_error.empty() ? std::string(to_string(result.error))
                                                : result.etcd_error);
  }
  if (now == not_ready_) return;
  not_ready_ = now;
  env_->trace(trace_kind::kApiserverReadyz,
              {{"ready", std::int64_t{!now.has_value()}}, {"reason", now.value_or("")}});
}

void RaftStore::on_store_timer(std::uint64_t local) {
  switch (local) {
    case kRelist:
      return start_cache();
    case kRewatch:
      if (!watching_ && cache_ready_) open_watch();
      return;
    case kPing:
      return ping();
    case kPingTimeout: {
      ping_timeout_.reset();
      if (!ping_open_) return;
      ping_open_ = false;
      // The transport is closed: every call on it fails, the watch moves on.
      return connection_lost(config_.client.endpoints[watch_endpoint_]);
    }
    case kReadiness:
      return check_readiness();
    default:
      HASIM_ASSERT(false);
  }
}

// Nothing to record: the apiserver pulls events itself after every message or timer this
// store takes (ApiServer::store_moved), so there is nobody to wake.
void RaftStore::subscribe(ProcessId) {}

bool RaftStore::events_after(std::uint64_t after, std::vector<StoreEvent>& out) const {
  // Until its first list the cache has no history to serve a watch from: kube-apiserver's
  // cacher answers "storage is (re)initializing" (cacher.go Watch, while not ready) and the
  // reflector lists again. Registering the watch instead would leave it deaf: the cache's
  // first revision lies past every revision the apiserver has seen.
  if (!cache_ready_) return false;
  if (after >= cache_revision_) return true;
  if (after < cache_floor_) return false;
  const auto first = std::upper_bound(
      events_.begin(), events_.end(), after,
      [](std::uint64_t rev, const StoreEvent& event) { return rev < event.revision; });
  out.insert(out.end(), first, events_.end());
  return true;
}

std::optional<std::string> RaftStore::not_ready() const { return not_ready_; }

}  // namespace hasim::api
