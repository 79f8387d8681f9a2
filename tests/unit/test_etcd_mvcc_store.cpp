// etcd's MVCC store (models/etcd/mvcc): a key's generations and their compaction
// (key_index.go's own examples), Range over keys, prefixes and "from key" at any revision,
// the revision rules of write txns, compaction and its errors, and the database size.
#include <catch2/catch.hpp>

#include "models/etcd/mvcc/key_index.hpp"
#include "models/etcd/mvcc/key_range.hpp"
#include "models/etcd/mvcc/kv_store.hpp"

using namespace hasim::etcd::mvcc;

namespace {

std::vector<std::vector<Revision>> revs_of(const KeyIndex& ki) {
  std::vector<std::vector<Revision>> out;
  for (const Generation& g : ki.generations()) out.push_back(g.revs);
  return out;
}

// put(1.0) put(2.0) tombstone(3.0) put(4.0) tombstone(5.0): key_index.go's example.
KeyIndex upstream_example() {
  KeyIndex ki("foo");
  ki.put({1, 0});
  ki.put({2, 0});
  REQUIRE(ki.tombstone({3, 0}));
  ki.put({4, 0});
  REQUIRE(ki.tombstone({5, 0}));
  return ki;
}

std::vector<std::string> keys_of(const RangeResult& rr) {
  std::vector<std::string> out;
  for (const KeyValue& kv : rr.kvs) out.push_back(kv.key);
  return out;
}

}  // namespace

TEST_CASE("a key index keeps generations ended by tombstones", "[etcd-mvcc]") {
  KeyIndex ki = upstream_example();
  using R = std::vector<Revision>;
  CHECK(revs_of(ki) == std::vector<R>{R{{1, 0}, {2, 0}, {3, 0}}, R{{4, 0}, {5, 0}}, R{}});
  CHECK_FALSE(ki.get(0));
  CHECK(ki.get(1)->modified == Revision{1, 0});
  CHECK(ki.get(2)->ver == 2);
  CHECK(ki.get(2)->created == Revision{1, 0});
  CHECK_FALSE(ki.get(3));  // at the tombstone the key is gone
  CHECK(ki.get(4)->ver == 1);
  CHECK(ki.get(4)->created == Revision{4, 0});
  CHECK_FALSE(ki.get(5));
  CHECK_FALSE(ki.get(100));
  CHECK_FALSE(ki.tombstone({6, 0}));  // not live: ErrRevisionNotFound
}

TEST_CASE("compacting a key index keeps what etcd keeps", "[etcd-mvcc]") {
  using R = std::vector<Revision>;
  SECTION("compact(2) keeps the latest revision at or below 2") {
    KeyIndex ki = upstream_example();
    std::set<Revision> available;
    ki.compact(2, available);
    CHECK(revs_of(ki) == std::vector<R>{R{{2, 0}, {3, 0}}, R{{4, 0}, {5, 0}}, R{}});
    CHECK(available == std::set<Revision>{{2, 0}});
    CHECK(ki.get(2)->ver == 2);  // versions survive compaction
  }
  SECTION("compact(4) drops the ended generation") {
    KeyIndex ki = upstream_example();
    std::set<Revision> available;
    ki.compact(4, available);
    CHECK(revs_of(ki) == std::vector<R>{R{{4, 0}, {5, 0}}, R{}});
    CHECK(available == std::set<Revision>{{4, 0}});
  }
  SECTION("compact(5) keeps the tombstone at the compact revision") {
    KeyIndex ki = upstream_example();
    std::set<Revision> available;
    ki.compact(5, available);
    CHECK(revs_of(ki) == std::vector<R>{R{{5, 0}}, R{}});
    CHECK(available == std::set<Revision>{{5, 0}});
    CHECK_FALSE(ki.empty());
  }
  SECTION("compact(6) leaves nothing: the key leaves the index") {
    KeyIndex ki = upstream_example();
    std::set<Revision> available;
    ki.compact(6, available);
    CHECK(ki.empty());
    CHECK(available.empty());
  }
}

TEST_CASE("prefix and from-key range ends", "[etcd-mvcc]") {
  CHECK(prefix_range_end("abc") == "abd");
  CHECK(prefix_range_end("a\xff") == "b");
  CHECK(prefix_range_end("\xff\xff") == std::string(kFromKey));
  CHECK(range_contains("a", "", "a"));
  CHECK_FALSE(range_contains("a", "", "ab"));
  CHECK(range_contains("b", kFromKey, "zzz"));
  CHECK_FALSE(range_contains("b", kFromKey, "a"));
  CHECK(range_contains("a", "c", "b"));
  CHECK_FALSE(range_contains("a", "c", "c"));
}

TEST_CASE("puts and deletes take revisions; range reads any revision", "[etcd-mvcc]") {
  KvStore s;
  CHECK(s.current_revision() == 1);
  CHECK(s.put("foo", "v1") == 2);
  CHECK(s.put("foo", "v2") == 3);
  CHECK(s.put("bar", "b") == 4);
  RangeResult rr = s.range("foo", "", {});
  REQUIRE(rr.kvs.size() == 1);
  CHECK(rr.kvs[0] == KeyValue{"foo", 2, 3, 2, "v2", 0});
  CHECK(rr.rev == 4);
  CHECK(rr.count == 1);
  RangeOptions at2;
  at2.rev = 2;
  rr = s.range("foo", "", at2);
  REQUIRE(rr.kvs.size() == 1);
  CHECK(rr.kvs[0] == KeyValue{"foo", 2, 2, 1, "v1", 0});
  CHECK(rr.rev == 4);  // the header is the current revision, not the one read
  CHECK(s.delete_range("foo", "") == 1);
  CHECK(s.current_revision() == 5);
  CHECK(s.range("foo", "", {}).kvs.empty());
  CHECK(s.delete_range("foo", "") == 0);
  CHECK(s.current_revision() == 5);  // deleting nothing writes nothing
  CHECK(s.put("foo", "v3") == 6);
  rr = s.range("foo", "", {});
  CHECK(rr.kvs[0] == KeyValue{"foo", 6, 6, 1, "v3", 0});  // a new generation
}

TEST_CASE("range over an interval, a prefix and from a key", "[etcd-mvcc]") {
  KvStore s;
  for (const char* key : {"a", "b/1", "b/2", "b/3", "c"}) s.put(key, "x");
  CHECK(keys_of(s.range("b/", prefix_range_end("b/"), {})) ==
        std::vector<std::string>{"b/1", "b/2", "b/3"});
  CHECK(keys_of(s.range("b/2", kFromKey, {})) == std::vector<std::string>{"b/2", "b/3", "c"});
  CHECK(keys_of(s.range(kFromKey, kFromKey, {})).size() == 5);  // every key
  CHECK(keys_of(s.range("a", "b/2", {})) == std::vector<std::string>{"a", "b/1"});
  RangeOptions limited;
  limited.limit = 2;
  RangeResult rr = s.range("a", kFromKey, limited);
  CHECK(keys_of(rr) == std::vector<std::string>{"a", "b/1"});
  CHECK(rr.count == 5);
  RangeOptions count_only;
  count_only.count = true;
  rr = s.range("b/", prefix_range_end("b/"), count_only);
  CHECK(rr.kvs.empty());
  CHECK(rr.count == 3);
}

TEST_CASE("a write txn takes one revision with sub revisions in order", "[etcd-mvcc]") {
  KvStore s;
  s.put("a", "0");
  {
    TxnWrite txn(s);
    CHECK(txn.put("x", "1") == 3);
    CHECK(txn.put("y", "2") == 3);
    CHECK(txn.delete_range("a", "") == std::pair<std::int64_t, std::int64_t>{1, 3});
    // Inside the txn the index still shows the store as it began.
    CHECK(keys_of(txn.range("a", kFromKey, {})) == std::vector<std::string>{"a"});
    txn.end();
  }
  CHECK(s.current_revision() == 3);
  CHECK(s.backend().count(Revision{3, 0}) == 1);
  CHECK(s.backend().count(Revision{3, 2}) == 1);
  CHECK(s.backend().at(Revision{3, 2}).tombstone);
  CHECK(keys_of(s.range("a", kFromKey, {})) == std::vector<std::string>{"x", "y"});
  {
    TxnWrite empty(s);
    CHECK(empty.delete_range("nothing", "") == std::pair<std::int64_t, std::int64_t>{0, 3});
    empty.end();
  }
  CHECK(s.current_revision() == 3);  // a txn with no writes keeps the revision
}

TEST_CASE("ranges and compactions outside [compact, current] fail with etcd's errors",
          "[etcd-mvcc]") {
  KvStore s;
  for (int i = 0; i < 5; ++i) s.put("k", std::to_string(i));  // revisions 2..6
  RangeOptions future;
  future.rev = 7;
  CHECK(s.range("k", "", future).error == MvccError::future_rev);
  CHECK(mvcc_error_text(MvccError::future_rev) == "mvcc: required revision is a future revision");
  CHECK(s.compact(7) == MvccError::future_rev);
  CHECK(s.compact(4) == MvccError::none);
  CHECK(s.compact_revision() == 4);
  RangeOptions old;
  old.rev = 3;
  CHECK(s.range("k", "", old).error == MvccError::compacted);
  CHECK(mvcc_error_text(MvccError::compacted) == "mvcc: required revision has been compacted");
  old.rev = 4;  // the compact revision itself is still readable
  REQUIRE(s.range("k", "", old).kvs.size() == 1);
  CHECK(s.range("k", "", old).kvs[0].value == "2");
  CHECK(s.range("k", "", old).kvs[0].version == 3);
  CHECK(s.compact(4) == MvccError::compacted);
  CHECK(s.compact(3) == MvccError::compacted);
  CHECK(s.backend().size() == 3);  // revisions 4, 5 and 6 of "k"
}

TEST_CASE("db size grows per revision kept and shrinks only by defragmentation", "[etcd-mvcc]") {
  KvStore s;
  CHECK(s.db_size() == kEmptyBackendBytes);
  const std::int64_t per_put = kRecordOverheadBytes + 1 + 10;
  for (int i = 0; i < 10; ++i) s.put("k", std::string(10, 'v'));
  CHECK(s.db_size_in_use() == kEmptyBackendBytes + 10 * per_put);
  CHECK(s.db_size() == s.db_size_in_use());
  REQUIRE(s.compact(s.current_revision()) == MvccError::none);
  CHECK(s.db_size_in_use() == kEmptyBackendBytes + per_put);  // the latest revision is kept
  CHECK(s.db_size() == kEmptyBackendBytes + 10 * per_put);    // freed pages stay in the file
  s.put("k", std::string(10, 'v'));  // reuses a free page: the file does not grow
  CHECK(s.db_size() == kEmptyBackendBytes + 10 * per_put);
  s.defrag();
  CHECK(s.db_size() == kEmptyBackendBytes + 2 * per_put);
  CHECK(s.db_size() == s.db_size_in_use());
}

TEST_CASE("keep leaves out a tombstone at the revision, as HashKV needs", "[etcd-mvcc]") {
  const KeyIndex ki = upstream_example();
  std::set<Revision> kept;
  ki.keep(5, kept);
  CHECK(kept.empty());  // compact(5) would keep 5.0(t); keep does not
  ki.keep(4, kept);
  CHECK(kept == std::set<Revision>{{4, 0}});
  kept.clear();
  ki.keep(2, kept);
  CHECK(kept == std::set<Revision>{{2, 0}});
}

TEST_CASE("HashKV agrees on stores that applied the same writes and compactions", "[etcd-mvcc]") {
  const auto build = [](const std::string& last_value) {
    KvStore s;
    s.put("a", "1");
    s.put("b", "2");
    s.delete_range("a", "");
    s.put("a", last_value);
    return s;
  };
  KvStore one = build("3");
  KvStore two = build("3");
  const KvStore other = build("4");
  CHECK(one.hash_kv(0).hash == two.hash_kv(0).hash);
  CHECK(one.hash_kv(0).revision == 5);
  CHECK(one.hash_kv(0).hash != other.hash_kv(0).hash);
  CHECK(one.hash_kv(4).hash == other.hash_kv(4).hash);  // they differ only at revision 5
  CHECK(one.hash_kv(3).hash != one.hash_kv(4).hash);
  CHECK(one.hash_kv(6).error == MvccError::future_rev);
  REQUIRE(one.compact(4) == MvccError::none);
  REQUIRE(two.compact(4) == MvccError::none);
  CHECK(one.hash_kv(3).error == MvccError::compacted);
  CHECK(one.hash_kv(5).hash == two.hash_kv(5).hash);
  CHECK(one.hash_kv(5).compact_revision == 4);
}

TEST_CASE("a copy of a store is a snapshot without the original's observer", "[etcd-mvcc]") {
  struct Count final : TxnObserver {
    int txns = 0;
    void on_txn_end(std::int64_t, const std::vector<Event>&) override { ++txns; }
  } count;
  KvStore s;
  s.set_observer(&count);
  s.put("k", "1");
  KvStore copy = s;
  copy.put("k", "2");
  CHECK(count.txns == 1);
  CHECK(s.range("k", "", {}).kvs[0].value == "1");
  CHECK(copy.range("k", "", {}).kvs[0].version == 2);
  s.put("k", "3");
  CHECK(count.txns == 2);
}
