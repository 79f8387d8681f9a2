// The KV store's share of a raft snapshot (models/etcd/kv_snapshot.hpp): a restored store
// answers as the original at every revision it keeps, with its compaction, size and alarms.
#include <catch2/catch.hpp>

#include "models/etcd/kv_snapshot.hpp"
#include "models/etcd/mvcc/codec.hpp"

using namespace hasim::etcd;
using namespace hasim::etcd::mvcc;

TEST_CASE("a store nobody wrote carries nothing; a written one round-trips", "[etcd][kv]") {
  KvStore store;
  Applier applier(store);
  CHECK(store_empty(store, applier));
  for (int i = 0; i < 6; ++i) store.put("k" + std::to_string(i % 3), "v" + std::to_string(i));
  store.delete_range("k1", "");
  store.put("k1", "again");
  REQUIRE(store.compact(5) == MvccError::none);
  InternalRaftRequest alarm;
  alarm.type = InternalRaftRequest::Type::alarm;
  alarm.alarm = AlarmRequest{AlarmAction::activate, 2, AlarmType::nospace};
  applier.apply(alarm);
  CHECK_FALSE(store_empty(store, applier));

  const std::string data = encode_store(store, applier);
  KvStore copy;
  Applier copied(copy);
  REQUIRE(decode_store(data, copy, copied));
  CHECK(copy.current_revision() == store.current_revision());
  CHECK(copy.compact_revision() == 5);
  CHECK(copy.db_size() == store.db_size());
  CHECK(copy.db_size_in_use() == store.db_size_in_use());
  CHECK(copied.nospace_members() == std::set<std::uint64_t>{2});
  CHECK(copy.index().keys().size() == store.index().keys().size());
  for (std::int64_t rev = 5; rev <= store.current_revision(); ++rev) {
    CHECK(copy.hash_kv(rev).hash == store.hash_kv(rev).hash);
    const RangeResult a = store.range("k", "l", RangeOptions{0, rev, false});
    const RangeResult b = copy.range("k", "l", RangeOptions{0, rev, false});
    CHECK(a.kvs == b.kvs);
  }
  CHECK(copy.range("k", "l", RangeOptions{0, 4, false}).error == MvccError::compacted);
  // The restored store goes on as the original would.
  CHECK(copy.put("k9", "x") == store.put("k9", "x"));
  // Truncated or foreign data is refused whole.
  KvStore other;
  Applier others(other);
  CHECK_FALSE(decode_store(data.substr(0, data.size() - 1), other, others));
  CHECK_FALSE(decode_store("m1-1", other, others));
  CHECK(store_empty(other, others));
}
