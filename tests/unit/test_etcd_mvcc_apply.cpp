// Applying raft entries' requests to the MVCC store (models/etcd/mvcc/apply.hpp), the
// backend quota and the NOSPACE alarm (storage/quota.go, v3rpc/quota.go,
// apply/apply.go applierV3Capped), and the entry encoding's round trip (codec.hpp).
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include "models/etcd/mvcc/apply.hpp"
#include "models/etcd/mvcc/codec.hpp"
#include "models/etcd/mvcc/quota.hpp"

using namespace hasim::etcd::mvcc;

namespace {

InternalRaftRequest put_request(std::uint64_t id, std::string key, std::string value) {
  InternalRaftRequest r;
  r.id = id;
  r.type = InternalRaftRequest::Type::put;
  r.put.key = std::move(key);
  r.put.value = std::move(value);
  return r;
}

InternalRaftRequest alarm_request(AlarmAction action, std::uint64_t member) {
  InternalRaftRequest r;
  r.type = InternalRaftRequest::Type::alarm;
  r.alarm.action = action;
  r.alarm.member_id = member;
  r.alarm.alarm = AlarmType::nospace;
  return r;
}

InternalRaftRequest compaction_request(std::int64_t rev) {
  InternalRaftRequest r;
  r.type = InternalRaftRequest::Type::compaction;
  r.compaction.revision = rev;
  return r;
}

// The member's path for a write: the quota gate, then (when it refuses) the alarm through
// raft; otherwise the request through raft. Returns the error the client sees.
ServerError write(Applier& applier, KvStore& s, const BackendQuota& quota,
                  const InternalRaftRequest& request) {
  if (const auto alarm = quota_check(quota, s, request, 1)) {
    InternalRaftRequest raise;
    raise.type = InternalRaftRequest::Type::alarm;
    raise.alarm = *alarm;
    applier.apply(raise);
    return ServerError::no_space;
  }
  return applier.apply(request).error;
}

}  // namespace

TEST_CASE("quota costs and limits follow etcd's", "[etcd-mvcc]") {
  CHECK(quota_cost(put_request(1, "key", "value")) == 256 + 3 + 5);
  InternalRaftRequest txn;
  txn.type = InternalRaftRequest::Type::txn;
  txn.txn.success = {op_put("a", "1"), op_put("b", "22")};
  txn.txn.failure = {op_put("c", std::string(1000, 'x'))};
  CHECK(quota_cost(txn) == 256 + 1 + 1000);  // the larger branch
  CHECK(quota_cost(compaction_request(5)) == 0);
  CHECK(BackendQuota(0).max_bytes() == kDefaultQuotaBytes);
  CHECK(kDefaultQuotaBytes == 2147483648);
  CHECK_FALSE(BackendQuota(-1).enabled());
  KvStore s;
  CHECK(BackendQuota(-1).available(s, put_request(1, "k", std::string(1 << 20, 'v'))));
}

TEST_CASE("over quota: NOSPACE is raised, writes refused, reads served until disarmed",
          "[etcd-mvcc]") {
  KvStore s;
  Applier applier(s);
  const BackendQuota quota(kEmptyBackendBytes + 2000);
  const std::string big(400, 'v');
  int accepted = 0;
  ServerError error = ServerError::none;
  for (int i = 0; i < 10 && error == ServerError::none; ++i) {
    error = write(applier, s, quota, put_request(static_cast<std::uint64_t>(i), "k", big));
    if (error == ServerError::none) ++accepted;
  }
  CHECK(accepted == 3);  // 20 kB + 3 x 465 B + 657 B would reach the quota
  CHECK(error == ServerError::no_space);
  CHECK(grpc_error_text(error) == "etcdserver: mvcc: database space exceeded");
  CHECK(applier.nospace());
  CHECK(applier.nospace_members() == std::set<std::uint64_t>{1});
  // Capped: even a small put is refused at apply; reads and read-only txns are served.
  CHECK(applier.apply(put_request(20, "tiny", "")).error == ServerError::no_space);
  InternalRaftRequest read;
  read.type = InternalRaftRequest::Type::range;
  read.range.key = "k";
  CHECK(applier.apply(read).range.kvs.size() == 1);
  InternalRaftRequest txn;
  txn.type = InternalRaftRequest::Type::txn;
  txn.txn.success = {op_range(read.range)};
  CHECK(applier.apply(txn).error == ServerError::none);
  txn.txn.failure = {op_put("x", "y")};
  CHECK(applier.apply(txn).error == ServerError::no_space);
  // Recovery as the runbook does it: compact, defragment, disarm.
  const std::int64_t rev = s.current_revision();
  CHECK(applier.apply(compaction_request(rev)).error == ServerError::none);
  CHECK(s.db_size() > s.db_size_in_use());
  s.defrag();
  CHECK(applier.apply(put_request(21, "k", big)).error == ServerError::no_space);  // still armed
  auto disarm = applier.apply(alarm_request(AlarmAction::deactivate, 1));
  CHECK(disarm.alarms.count(1) == 1);
  CHECK_FALSE(applier.nospace());
  CHECK(write(applier, s, quota, put_request(22, "k", big)) == ServerError::none);
}

TEST_CASE("compaction through apply answers etcd's errors", "[etcd-mvcc]") {
  KvStore s;
  Applier applier(s);
  applier.apply(put_request(1, "a", "1"));
  applier.apply(put_request(2, "a", "2"));
  CHECK(applier.apply(compaction_request(10)).error == ServerError::future_rev);
  CHECK(applier.apply(compaction_request(2)).error == ServerError::none);
  const ApplyResult again = applier.apply(compaction_request(2));
  CHECK(again.error == ServerError::compacted);
  CHECK(server_error_text(again.error) == "mvcc: required revision has been compacted");
  CHECK(again.revision == 3);
}

namespace {

rc::Gen<std::string> gen_key() {
  return rc::gen::resize(
      4, rc::gen::container<std::string>(rc::gen::element<char>('a', 'b', '\0', '\xff')));
}

RequestOp gen_leaf() {
  const std::string key = *gen_key();
  const std::string end = *gen_key();
  const bool flag = *rc::gen::arbitrary<bool>();
  switch (*rc::gen::inRange(0, 3)) {
    case 0: {
      RequestOp op = op_put(key, end);
      op.put.prev_kv = flag;
      return op;
    }
    case 1: {
      RequestOp op = op_delete(key, end);
      op.delete_range.prev_kv = flag;
      return op;
    }
    default: {
      RangeRequest r;
      r.key = key;
      r.range_end = end;
      r.limit = *rc::gen::arbitrary<std::int64_t>();
      r.revision = *rc::gen::arbitrary<std::int64_t>();
      r.keys_only = flag;
      r.count_only = !flag;
      r.serializable = *rc::gen::arbitrary<bool>();
      return op_range(r);
    }
  }
}

// An op, a nested txn of ops at most `depth` levels down.
RequestOp gen_op(int depth) {
  if (depth >= 2 || *rc::gen::inRange(0, 4) != 0) return gen_leaf();
  TxnRequest t;
  Compare c;
  c.result = static_cast<CompareResult>(*rc::gen::inRange(0, 4));
  c.target = static_cast<CompareTarget>(*rc::gen::inRange(0, 5));
  c.key = *gen_key();
  c.range_end = *gen_key();
  c.number = *rc::gen::arbitrary<std::int64_t>();
  c.value = *gen_key();
  t.compare.push_back(c);
  const int n = *rc::gen::inRange(0, 3);
  for (int i = 0; i < n; ++i) t.success.push_back(gen_op(depth + 1));
  t.failure.push_back(gen_leaf());
  return op_txn(std::move(t));
}

}  // namespace

TEST_CASE("raft entry encoding round-trips every request", "[etcd-mvcc]") {
  rc::prop("decode(encode(request)) == request", [] {
    InternalRaftRequest r;
    r.id = *rc::gen::arbitrary<std::uint64_t>();
    r.type = static_cast<InternalRaftRequest::Type>(*rc::gen::inRange(0, 6));
    const RequestOp op = gen_leaf();
    r.range = op.range;
    r.put = op.put;
    r.delete_range = op.delete_range;
    // Only the member of the request's type travels: clear the others.
    InternalRaftRequest expected;
    expected.id = r.id;
    expected.type = r.type;
    switch (r.type) {
      case InternalRaftRequest::Type::range:
        expected.range = r.range;
        break;
      case InternalRaftRequest::Type::put:
        expected.put = r.put;
        break;
      case InternalRaftRequest::Type::delete_range:
        expected.delete_range = r.delete_range;
        break;
      case InternalRaftRequest::Type::txn: {
        expected.txn.compare.push_back(compare_mod_revision(op.put.key, CompareResult::equal, 3));
        const int n = *rc::gen::inRange(0, 4);
        for (int i = 0; i < n; ++i) expected.txn.success.push_back(gen_op(0));
        expected.txn.failure = {op};
        r.txn = expected.txn;
        break;
      }
      case InternalRaftRequest::Type::compaction:
        expected.compaction.revision = r.compaction.revision = *rc::gen::arbitrary<std::int64_t>();
        break;
      case InternalRaftRequest::Type::alarm:
        r.alarm = AlarmRequest{AlarmAction::activate, r.id, AlarmType::nospace};
        expected.alarm = r.alarm;
        break;
    }
    const std::string data = encode_request(r);
    const auto decoded = decode_request(data);
    RC_ASSERT(decoded.has_value());
    RC_ASSERT(*decoded == expected);
    RC_ASSERT(encode_request(*decoded) == data);  // deterministic
    // Every strict prefix is refused, and so is trailing data.
    const std::size_t cut = *rc::gen::inRange<std::size_t>(0, data.size());
    RC_ASSERT_FALSE(decode_request(data.substr(0, cut)).has_value());
    RC_ASSERT_FALSE(decode_request(data + "x").has_value());
  });
}

TEST_CASE("decoding refuses other data", "[etcd-mvcc]") {
  CHECK_FALSE(decode_request(""));
  CHECK_FALSE(decode_request("hello"));
  std::string data = encode_request(put_request(7, "k", "v"));
  data[9] = 9;  // no such request type
  CHECK_FALSE(decode_request(data));
  const auto ok = decode_request(encode_request(put_request(7, "k", "v")));
  REQUIRE(ok);
  CHECK(ok->id == 7);
  CHECK(ok->put.value == "v");
}

TEST_CASE("committed entries apply through their encoding", "[etcd-mvcc]") {
  KvStore s;
  Applier applier(s);
  const auto applied = applier.apply_entry(encode_request(put_request(1, "k", "v")));
  REQUIRE(applied);
  CHECK(applied->put.revision == 2);
  CHECK(s.range("k", "", {}).kvs.at(0).value == "v");
  CHECK_FALSE(applier.apply_entry("an opaque entry"));
  CHECK(s.current_revision() == 2);
}
