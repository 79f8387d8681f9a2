// Properties of the MVCC store and its watches (models/etcd/mvcc) against a naive
// reference that keeps every revision as a whole map: after any sequence of puts,
// deletes, multi-write txns and compactions, Range at every revision still served agrees
// with the reference, and older ones fail with ErrCompacted; a watcher that was there from
// the start sees exactly the reference's events (or a prefix, then a compaction notice, if
// it fell behind one); a watcher started later from R replays exactly the events from R on,
// with the prevKv the reference had, or is told of the compaction when R is below it.
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <map>

#include "models/etcd/mvcc/apply.hpp"
#include "models/etcd/mvcc/codec.hpp"
#include "models/etcd/mvcc/key_range.hpp"
#include "models/etcd/mvcc/txn.hpp"
#include "models/etcd/mvcc/watch.hpp"

using namespace hasim::etcd::mvcc;

namespace {

// One write of a txn: a put of key, or a delete of [key, end).
struct Write {
  bool del = false;
  std::string key;
  std::string end;
  std::string value;
};

// The naive store: at[rev] is the whole keyspace at revision rev.
struct Reference {
  std::vector<std::map<std::string, KeyValue>> at = std::vector<std::map<std::string, KeyValue>>(2);
  std::vector<Event> events;
  std::int64_t compact = -1;

  std::int64_t rev() const { return static_cast<std::int64_t>(at.size()) - 1; }

  void txn(const std::vector<Write>& writes) {
    const auto& before = at.back();
    auto next = before;
    const std::int64_t rev_next = rev() + 1;
    std::vector<Event> changes;
    for (const Write& w : writes) {
      if (!w.del) {
        const auto old = before.find(w.key);
        KeyValue kv{w.key, rev_next, rev_next, 1, w.value, 0};
        if (old != before.end()) {
          kv.create_revision = old->second.create_revision;
          kv.version = old->second.version + 1;
        }
        next[w.key] = kv;
        changes.push_back(Event{EventType::put, kv, std::nullopt});
        continue;
      }
      for (const auto& [key, kv] : before) {
        if (!range_contains(w.key, w.end, key) || next.count(key) == 0) continue;
        next.erase(key);
        changes.push_back(Event{EventType::del, KeyValue{key, 0, rev_next, 0, "", 0}, {}});
      }
    }
    if (changes.empty()) return;  // nothing written: no revision
    at.push_back(std::move(next));
    events.insert(events.end(), changes.begin(), changes.end());
  }

  std::vector<KeyValue> range(std::int64_t rev_at, const std::string& key,
                              const std::string& end) const {
    std::vector<KeyValue> out;
    for (const auto& [k, kv] : at[static_cast<std::size_t>(rev_at)]) {
      if (range_contains(key, end, k)) out.push_back(kv);
    }
    return out;
  }
};

const std::vector<std::string> kKeys{"a", "a/1", "a/2", "b", "c"};

rc::Gen<std::string> gen_key() { return rc::gen::elementOf(kKeys); }

// A txn of up to three writes to distinct keys (the API refuses overlapping writes), or a
// delete of a prefix or of everything from a key.
std::vector<Write> gen_txn() {
  std::vector<Write> writes;
  if (*rc::gen::inRange(0, 6) == 0) {
    Write w{true, *gen_key(), "", ""};
    w.end = *rc::gen::element(prefix_range_end(w.key), std::string(kFromKey));
    writes.push_back(w);
    return writes;
  }
  const auto count = *rc::gen::inRange<std::size_t>(1, 4);
  const auto keys = *rc::gen::unique<std::vector<std::string>>(count, gen_key());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const bool del = *rc::gen::inRange(0, 4) == 0;
    writes.push_back(Write{del, keys[i], "", *rc::gen::element<std::string>("x", "yy", "")});
  }
  return writes;
}

void apply_to_store(KvStore& s, const std::vector<Write>& writes) {
  TxnWrite txn(s);
  for (const Write& w : writes) {
    if (w.del) {
      txn.delete_range(w.key, w.end);
    } else {
      txn.put(w.key, w.value);
    }
  }
  txn.end();
}

// Drives a watcher's loops until it has caught up (or is gone); returns what it got.
std::vector<WatchResponse> settle(WatchableStore& w, WatchId id) {
  std::vector<WatchResponse> got;
  for (int round = 0; round < 10000; ++round) {
    const auto drained = w.drain(id);
    got.insert(got.end(), drained.begin(), drained.end());
    if (!w.watching(id)) return got;
    if (w.state(id) == WatcherState::synced && w.pending(id) == 0) return got;
    w.sync_victims();
    w.sync_watchers();
  }
  RC_FAIL("the watcher did not catch up");
  return got;
}

std::vector<Event> events_of(const std::vector<WatchResponse>& responses) {
  std::vector<Event> out;
  for (const WatchResponse& r : responses) out.insert(out.end(), r.events.begin(), r.events.end());
  return out;
}

WatchableStoreConfig gen_config() {
  WatchableStoreConfig config;
  config.chan_buf_len = *rc::gen::inRange<std::size_t>(1, 4);
  config.watch_batch_max_revs = *rc::gen::inRange<std::int64_t>(1, 4);
  config.max_watchers_per_sync = *rc::gen::inRange<std::size_t>(1, 3);
  return config;
}

void check_ranges(const KvStore& s, const Reference& ref) {
  RC_ASSERT(s.current_revision() == ref.rev());
  RC_ASSERT(s.compact_revision() == ref.compact);
  for (std::int64_t rev = 1; rev <= ref.rev(); ++rev) {
    RangeOptions options;
    options.rev = rev;
    for (const std::string& key : kKeys) {
      for (const std::string& end : {std::string(), prefix_range_end(key), std::string(kFromKey)}) {
        const RangeResult rr = s.range(key, end, options);
        if (rev < ref.compact) {
          RC_ASSERT(rr.error == MvccError::compacted);
          continue;
        }
        RC_ASSERT(rr.error == MvccError::none);
        RC_ASSERT(rr.kvs == ref.range(rev, key, end));
      }
    }
  }
}

// A watcher there from the start sees the reference's events, or a prefix of them and then
// a compaction notice if it fell behind a compaction while it was a victim.
void check_early_watcher(const std::vector<WatchResponse>& got, const Reference& ref) {
  const std::vector<Event> events = events_of(got);
  RC_ASSERT(events.size() <= ref.events.size());
  RC_ASSERT(std::equal(events.begin(), events.end(), ref.events.begin()));
  const bool canceled = !got.empty() && got.back().canceled;
  if (!canceled) {
    RC_ASSERT(events.size() == ref.events.size());
    return;
  }
  RC_ASSERT(got.back().compact_revision > (events.empty() ? 0 : events.back().kv.mod_revision));
}

void check_late_watcher(const std::vector<WatchResponse>& got, const Reference& ref,
                        std::int64_t start) {
  if (start < ref.compact) {
    RC_ASSERT(got.size() == 1u);
    RC_ASSERT(got[0].canceled);
    RC_ASSERT(got[0].compact_revision == ref.compact);
    return;
  }
  std::vector<Event> expected;
  for (Event ev : ref.events) {
    if (ev.kv.mod_revision < start) continue;
    const std::int64_t prev_rev = ev.kv.mod_revision - 1;
    const bool create = ev.type == EventType::put && ev.kv.version == 1;
    if (!create && prev_rev >= ref.compact) {
      const auto& before = ref.at[static_cast<std::size_t>(prev_rev)];
      if (const auto it = before.find(ev.kv.key); it != before.end()) ev.prev_kv = it->second;
    }
    expected.push_back(ev);
  }
  RC_ASSERT(events_of(got) == expected);
}

}  // namespace

TEST_CASE("the MVCC store agrees with a store of whole snapshots", "[etcd-mvcc][property]") {
  rc::prop("ranges and watches match the reference", [] {
    KvStore s;
    Reference ref;
    WatchableStore watchable(s, gen_config());
    const WatchId early =
        watchable.watch(WatchRequest{kFromKey.data(), std::string(kFromKey), 0, false});
    std::vector<WatchResponse> early_got;
    const int steps = *rc::gen::inRange(1, 40);
    for (int step = 0; step < steps; ++step) {
      const int what = *rc::gen::inRange(0, 10);
      if (what == 0 && ref.rev() > ref.compact) {
        const auto rev = *rc::gen::inRange<std::int64_t>(std::max<std::int64_t>(ref.compact + 1, 1),
                                                         ref.rev() + 1);
        RC_ASSERT(s.compact(rev) == MvccError::none);
        ref.compact = rev;
      } else if (what == 1) {
        watchable.sync_watchers();
        watchable.sync_victims();
      } else if (what == 2) {
        const auto drained = watchable.drain(early);
        early_got.insert(early_got.end(), drained.begin(), drained.end());
      } else {
        const auto writes = gen_txn();
        apply_to_store(s, writes);
        ref.txn(writes);
      }
    }
    check_ranges(s, ref);
    const auto rest = settle(watchable, early);
    early_got.insert(early_got.end(), rest.begin(), rest.end());
    check_early_watcher(early_got, ref);
    const auto start = *rc::gen::inRange<std::int64_t>(1, ref.rev() + 2);
    WatchRequest late{kFromKey.data(), std::string(kFromKey), start, true};
    late.key = std::string(kFromKey);
    const WatchId late_id = watchable.watch(late);
    check_late_watcher(settle(watchable, late_id), ref, start);
  });
}

namespace {

// kube-apiserver's guarded write (etcd3/store.go): If(mod_revision(key) = rv) Then(op)
// Else(Get(key)), as a raft entry.
InternalRaftRequest guarded_write(std::uint64_t id, const std::string& key, std::int64_t rv,
                                  bool del, const std::string& value) {
  InternalRaftRequest r;
  r.id = id;
  r.type = InternalRaftRequest::Type::txn;
  r.txn.compare.push_back(compare_mod_revision(key, CompareResult::equal, rv));
  r.txn.success.push_back(del ? op_delete(key) : op_put(key, value));
  RangeRequest get;
  get.key = key;
  r.txn.failure.push_back(op_range(get));
  return r;
}

}  // namespace

TEST_CASE("guarded writes through raft entries succeed exactly when the revision matches",
          "[etcd-mvcc][property]") {
  rc::prop("compare-and-swap agrees with a map of the latest KeyValues", [] {
    KvStore s;
    Applier applier(s);
    std::map<std::string, KeyValue> latest;  // the reference
    const int steps = *rc::gen::inRange(1, 60);
    for (int step = 0; step < steps; ++step) {
      const std::string key = *gen_key();
      const auto it = latest.find(key);
      const std::int64_t current = it == latest.end() ? 0 : it->second.mod_revision;
      // Mostly the revision the client last read; sometimes a stale or made-up one.
      const std::int64_t rv = *rc::gen::weightedOneOf<std::int64_t>(
          {{3, rc::gen::just(current)}, {1, rc::gen::inRange<std::int64_t>(0, 8)}});
      const bool del = current != 0 && *rc::gen::inRange(0, 4) == 0;
      const std::string value = *rc::gen::element<std::string>("v1", "v2", "");
      const std::int64_t rev_before = s.current_revision();
      const auto result = applier.apply_entry(
          encode_request(guarded_write(static_cast<std::uint64_t>(step), key, rv, del, value)));
      RC_ASSERT(result.has_value());
      RC_ASSERT(result->error == ServerError::none);
      RC_ASSERT(result->txn.succeeded == (rv == current));
      if (!result->txn.succeeded) {
        // The Else(Get): what the client retries from.
        const auto& kvs = result->txn.responses.at(0).range.kvs;
        RC_ASSERT(kvs.size() == (current == 0 ? 0u : 1u));
        if (current != 0) RC_ASSERT(kvs[0] == latest.at(key));
        RC_ASSERT(s.current_revision() == rev_before);
        continue;
      }
      RC_ASSERT(s.current_revision() == rev_before + 1);
      RC_ASSERT(result->txn.revision == rev_before + 1);
      if (del) {
        latest.erase(key);
        continue;
      }
      KeyValue kv{key, rev_before + 1, rev_before + 1, 1, value, 0};
      if (current != 0) {
        kv.create_revision = latest.at(key).create_revision;
        kv.version = latest.at(key).version + 1;
      }
      latest[key] = kv;
    }
    const RangeResult all = s.range(std::string(kFromKey), std::string(kFromKey), {});
    RC_ASSERT(all.kvs.size() == latest.size());
    for (const KeyValue& kv : all.kvs) RC_ASSERT(kv == latest.at(kv.key));
  });
}
