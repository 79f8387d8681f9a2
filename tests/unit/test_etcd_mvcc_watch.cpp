// Watches over the MVCC store (models/etcd/mvcc/watch.hpp, watchable_store.go): synced
// watchers see each write txn as one response, unsynced ones catch up from the backend in
// batches, a watcher behind the compact revision is told so and cancelled, full queues make
// victims that are retried, prevKv is looked up at mod_revision - 1.
#include <catch2/catch.hpp>

#include "models/etcd/mvcc/apply.hpp"
#include "models/etcd/mvcc/codec.hpp"
#include "models/etcd/mvcc/key_range.hpp"
#include "models/etcd/mvcc/watch.hpp"

using namespace hasim::etcd::mvcc;

namespace {

WatchRequest watch_of(std::string key, std::string range_end, std::int64_t start = 0) {
  WatchRequest r;
  r.key = std::move(key);
  r.range_end = std::move(range_end);
  r.start_revision = start;
  return r;
}

std::vector<std::int64_t> revisions_of(const std::vector<WatchResponse>& responses) {
  std::vector<std::int64_t> out;
  for (const WatchResponse& r : responses) {
    for (const Event& ev : r.events) out.push_back(ev.kv.mod_revision);
  }
  return out;
}

}  // namespace

TEST_CASE("a synced watcher gets one response per write txn in its interval", "[etcd-mvcc]") {
  KvStore s;
  WatchableStore w(s);
  const WatchId id = w.watch(watch_of("p/", prefix_range_end("p/")));
  CHECK(w.state(id) == WatcherState::synced);
  s.put("p/a", "1");
  s.put("q", "x");  // outside the prefix
  {
    TxnWrite txn(s);
    txn.put("p/b", "2");
    txn.put("p/c", "3");
    txn.end();
  }
  s.delete_range("p/a", "");
  const auto got = w.drain(id);
  REQUIRE(got.size() == 3);
  CHECK(got[0].revision == 2);
  CHECK(got[0].events[0].kv == KeyValue{"p/a", 2, 2, 1, "1", 0});
  CHECK(got[1].revision == 4);
  REQUIRE(got[1].events.size() == 2);  // one txn, one response
  CHECK(got[1].events[1].kv.key == "p/c");
  CHECK(got[2].events[0].type == EventType::del);
  CHECK(got[2].events[0].kv.mod_revision == 5);
  CHECK(got[2].events[0].kv.key == "p/a");
  CHECK(w.drain(id).empty());
}

TEST_CASE("prevKv comes with updates and deletes, not creates", "[etcd-mvcc]") {
  KvStore s;
  WatchableStore w(s);
  WatchRequest r = watch_of("k", "");
  r.prev_kv = true;
  const WatchId id = w.watch(r);
  s.put("k", "1");
  s.put("k", "2");
  s.delete_range("k", "");
  const auto got = w.drain(id);
  REQUIRE(got.size() == 3);
  CHECK_FALSE(got[0].events[0].prev_kv);
  REQUIRE(got[1].events[0].prev_kv);
  CHECK(got[1].events[0].prev_kv->value == "1");
  REQUIRE(got[2].events[0].prev_kv);
  CHECK(got[2].events[0].prev_kv->value == "2");
}

TEST_CASE("a watcher from a past revision catches up from history, then follows", "[etcd-mvcc]") {
  KvStore s;
  for (int i = 0; i < 5; ++i) s.put("k", std::to_string(i));  // revisions 2..6
  WatchableStore w(s);
  const WatchId id = w.watch(watch_of("k", "", 4));
  CHECK(w.state(id) == WatcherState::unsynced);
  s.put("k", "late");  // revision 7: not sent to an unsynced watcher yet
  CHECK(w.pending(id) == 0);
  w.sync_watchers();
  CHECK(w.state(id) == WatcherState::synced);
  auto got = w.drain(id);
  REQUIRE(got.size() == 1);
  CHECK(got[0].revision == 7);
  CHECK(revisions_of(got) == std::vector<std::int64_t>{4, 5, 6, 7});
  s.put("k", "next");
  CHECK(revisions_of(w.drain(id)) == std::vector<std::int64_t>{8});
}

TEST_CASE("a watcher from a future revision waits for it", "[etcd-mvcc]") {
  KvStore s;
  WatchableStore w(s);
  const WatchId id = w.watch(watch_of("k", "", 4));
  s.put("k", "2");
  s.put("k", "3");
  s.put("k", "4");
  CHECK(revisions_of(w.drain(id)) == std::vector<std::int64_t>{4});
}

TEST_CASE("a watcher below the compact revision is told so and cancelled", "[etcd-mvcc]") {
  KvStore s;
  for (int i = 0; i < 5; ++i) s.put("k", std::to_string(i));
  REQUIRE(s.compact(5) == MvccError::none);
  WatchableStore w(s);
  const WatchId behind = w.watch(watch_of("k", "", 3));
  const WatchId at = w.watch(watch_of("k", "", 5));  // the compact revision is still there
  w.sync_watchers();
  const auto got = w.drain(behind);
  REQUIRE(got.size() == 1);
  CHECK(got[0].compact_revision == 5);
  CHECK(got[0].revision == 0);  // upstream sends no revision with it
  CHECK(got[0].canceled);
  CHECK(got[0].events.empty());
  CHECK_FALSE(w.watching(behind));
  CHECK(revisions_of(w.drain(at)) == std::vector<std::int64_t>{5, 6});
}

TEST_CASE("a delete at the compact revision is still replayed", "[etcd-mvcc]") {
  KvStore s;
  s.put("k", "1");
  s.delete_range("k", "");  // revision 3
  REQUIRE(s.compact(3) == MvccError::none);
  WatchableStore w(s);
  const WatchId id = w.watch(watch_of("k", "", 3));
  w.sync_watchers();
  const auto got = w.drain(id);
  REQUIRE(got.size() == 1);
  CHECK(got[0].events[0].type == EventType::del);
  CHECK(got[0].events[0].kv.mod_revision == 3);
}

TEST_CASE("catching up goes in batches of watch_batch_max_revs revisions", "[etcd-mvcc]") {
  KvStore s;
  for (int i = 0; i < 5; ++i) s.put("k", std::to_string(i));  // revisions 2..6
  WatchableStoreConfig config;
  config.watch_batch_max_revs = 2;
  WatchableStore w(s, config);
  const WatchId id = w.watch(watch_of("k", "", 2));
  w.sync_watchers();
  CHECK(w.state(id) == WatcherState::unsynced);
  w.sync_watchers();
  CHECK(w.state(id) == WatcherState::unsynced);
  w.sync_watchers();
  CHECK(w.state(id) == WatcherState::synced);
  const auto got = w.drain(id);
  REQUIRE(got.size() == 3);
  CHECK(revisions_of({got[0]}) == std::vector<std::int64_t>{2, 3});
  CHECK(revisions_of({got[2]}) == std::vector<std::int64_t>{6});
}

TEST_CASE("sync_watchers takes at most max_watchers_per_sync watchers", "[etcd-mvcc]") {
  KvStore s;
  s.put("k", "1");
  WatchableStoreConfig config;
  config.max_watchers_per_sync = 2;
  WatchableStore w(s, config);
  for (int i = 0; i < 3; ++i) w.watch(watch_of("k", "", 2));
  w.sync_watchers();
  CHECK(w.count(WatcherState::unsynced) == 1);
  CHECK(w.state(2) == WatcherState::unsynced);  // the lowest ids go first
  w.sync_watchers();
  CHECK(w.count(WatcherState::synced) == 3);
}

TEST_CASE("a full queue makes a victim, retried by sync_victims", "[etcd-mvcc]") {
  KvStore s;
  WatchableStoreConfig config;
  config.chan_buf_len = 1;
  WatchableStore w(s, config);
  const WatchId id = w.watch(watch_of("k", ""));
  s.put("k", "1");
  s.put("k", "2");  // the queue is full: a victim holding revision 3
  CHECK(w.state(id) == WatcherState::victim);
  CHECK(w.pending(id) == 1);
  s.put("k", "3");  // a victim is not notified
  w.sync_victims();
  CHECK(w.state(id) == WatcherState::victim);  // still full
  CHECK(revisions_of(w.drain(id)) == std::vector<std::int64_t>{2});
  w.sync_victims();
  CHECK(w.state(id) == WatcherState::unsynced);  // revision 4 came meanwhile
  auto got = w.drain(id);
  REQUIRE(got.size() == 1);
  CHECK(got[0].revision == 3);  // what it had observed when held
  w.sync_watchers();
  CHECK(w.state(id) == WatcherState::synced);
  CHECK(revisions_of(w.drain(id)) == std::vector<std::int64_t>{4});
}

TEST_CASE("progress notifications go to synced watchers only", "[etcd-mvcc]") {
  KvStore s;
  s.put("k", "1");
  WatchableStore w(s);
  const WatchId synced = w.watch(watch_of("k", ""));
  const WatchId behind = w.watch(watch_of("k", "", 2));
  CHECK(w.request_progress(synced));
  CHECK_FALSE(w.request_progress(behind));
  const auto got = w.drain(synced);
  REQUIRE(got.size() == 1);
  CHECK(got[0].events.empty());
  CHECK(got[0].revision == 2);
  CHECK(w.cancel(behind));
  CHECK_FALSE(w.watching(behind));
}

TEST_CASE("writes applied from raft entries reach the watchers", "[etcd-mvcc]") {
  KvStore s;
  WatchableStore w(s);
  Applier applier(s);
  const WatchId id = w.watch(watch_of("k", ""));
  InternalRaftRequest put;
  put.id = 1;
  put.type = InternalRaftRequest::Type::txn;
  put.txn.success = {op_put("k", "1"), op_put("other", "x")};
  REQUIRE(applier.apply_entry(encode_request(put)));
  const auto got = w.drain(id);
  REQUIRE(got.size() == 1);
  REQUIRE(got[0].events.size() == 1);  // only the watched key
  CHECK(got[0].events[0].kv.key == "k");
  CHECK(got[0].revision == 2);
}
