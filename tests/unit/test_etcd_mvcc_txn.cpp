// Txn over the MVCC store (models/etcd/mvcc/txn.hpp, server/etcdserver/txn/txn.go): the
// three txns kube-apiserver's etcd3 store writes with, compares on every target and
// result, range compares, one revision per txn, the checks that refuse a txn before it is
// proposed or before it writes, and Range's limit/count/keys-only answers.
#include <catch2/catch.hpp>

#include "models/etcd/mvcc/key_range.hpp"
#include "models/etcd/mvcc/txn.hpp"

using namespace hasim::etcd::mvcc;

namespace {

RangeRequest get(std::string key) {
  RangeRequest r;
  r.key = std::move(key);
  return r;
}

Compare compare(CompareTarget target, CompareResult result, std::string key, std::int64_t number,
                std::string value = "") {
  Compare c;
  c.target = target;
  c.result = result;
  c.key = std::move(key);
  c.number = number;
  c.value = std::move(value);
  return c;
}

// store.go: the guarded write kube-apiserver sends, with its Else(Get(key)).
TxnRequest guarded(std::string key, std::int64_t mod_revision, RequestOp then) {
  TxnRequest t;
  t.compare.push_back(compare_mod_revision(key, CompareResult::equal, mod_revision));
  t.success.push_back(std::move(then));
  t.failure.push_back(op_range(get(std::move(key))));
  return t;
}

bool holds(KvStore& s, const Compare& c) {
  TxnRequest t;
  t.compare.push_back(c);
  return apply_txn(s, t).response.succeeded;
}

}  // namespace

TEST_CASE("kube-apiserver create: If mod_revision = 0 Then Put", "[etcd-mvcc]") {
  // OptimisticPut(key, data, 0) without GetOnFailure: no Else branch.
  const auto create = [](const std::string& value) {
    TxnRequest t = guarded("/registry/pods/a", 0, op_put("/registry/pods/a", value));
    t.failure.clear();
    return t;
  };
  KvStore s;
  auto first = apply_txn(s, create("v1"));
  REQUIRE(first.error == ServerError::none);
  CHECK(first.response.succeeded);
  CHECK(first.response.revision == 2);  // the new object's resourceVersion
  REQUIRE(first.response.responses.size() == 1);
  CHECK(first.response.responses[0].put.revision == 2);
  // A second create finds the object: the apiserver answers AlreadyExists.
  auto again = apply_txn(s, create("v2"));
  CHECK_FALSE(again.response.succeeded);
  CHECK(again.response.responses.empty());
  CHECK(again.response.revision == 2);  // nothing written
  CHECK(s.range("/registry/pods/a", "", {}).kvs[0].value == "v1");
  // With an Else(Get), the failed create would show what is there.
  auto shown = apply_txn(s, guarded("/registry/pods/a", 0, op_put("/registry/pods/a", "v3")));
  REQUIRE(shown.response.responses[0].range.kvs.size() == 1);
  CHECK(shown.response.responses[0].range.kvs[0].value == "v1");
  CHECK(s.current_revision() == 2);
}

TEST_CASE("kube-apiserver update: If mod_revision = rv Then Put Else Get", "[etcd-mvcc]") {
  KvStore s;
  const std::int64_t rv = s.put("/registry/pods/a", "v1");
  s.put("/registry/other", "x");
  auto ok = apply_txn(s, guarded("/registry/pods/a", rv, op_put("/registry/pods/a", "v2")));
  CHECK(ok.response.succeeded);
  CHECK(ok.response.revision == 4);
  auto stale = apply_txn(s, guarded("/registry/pods/a", rv, op_put("/registry/pods/a", "v3")));
  CHECK_FALSE(stale.response.succeeded);  // Conflict: the apiserver retries from the Get
  const RangeResponse& current = stale.response.responses[0].range;
  REQUIRE(current.kvs.size() == 1);
  CHECK(current.kvs[0] == KeyValue{"/registry/pods/a", 2, 4, 2, "v2", 0});
  CHECK(current.revision == 4);
}

TEST_CASE("kube-apiserver delete: If mod_revision = rv Then Delete Else Get", "[etcd-mvcc]") {
  KvStore s;
  const std::int64_t rv = s.put("/registry/pods/a", "v1");
  s.put("/registry/pods/a", "v2");  // someone else's update
  auto stale = apply_txn(s, guarded("/registry/pods/a", rv, op_delete("/registry/pods/a")));
  CHECK_FALSE(stale.response.succeeded);
  CHECK(stale.response.responses[0].range.kvs[0].mod_revision == 3);
  auto ok = apply_txn(s, guarded("/registry/pods/a", 3, op_delete("/registry/pods/a")));
  CHECK(ok.response.succeeded);
  CHECK(ok.response.responses[0].delete_range.deleted == 1);
  CHECK(ok.response.revision == 4);
  CHECK(s.range("/registry/pods/a", "", {}).kvs.empty());
}

TEST_CASE("compares on version, create, mod, value and lease", "[etcd-mvcc]") {
  KvStore s;
  s.put("k", "b");  // create 2
  s.put("k", "b");  // mod 3, version 2
  using T = CompareTarget;
  using C = CompareResult;
  CHECK(holds(s, compare(T::version, C::equal, "k", 2)));
  CHECK(holds(s, compare(T::version, C::greater, "k", 1)));
  CHECK(holds(s, compare(T::version, C::less, "k", 3)));
  CHECK(holds(s, compare(T::version, C::not_equal, "k", 1)));
  CHECK_FALSE(holds(s, compare(T::version, C::less, "k", 2)));
  CHECK(holds(s, compare(T::create, C::equal, "k", 2)));
  CHECK(holds(s, compare(T::mod, C::equal, "k", 3)));
  CHECK_FALSE(holds(s, compare(T::mod, C::greater, "k", 3)));
  CHECK(holds(s, compare(T::value, C::equal, "k", 0, "b")));
  CHECK(holds(s, compare(T::value, C::greater, "k", 0, "a")));
  CHECK(holds(s, compare(T::value, C::less, "k", 0, "bb")));
  CHECK(holds(s, compare(T::lease, C::equal, "k", 0)));  // leases are not modelled: 0
  s.put("bytes", "\xff");
  CHECK(holds(s, compare(T::value, C::greater, "bytes", 0, "a")));  // bytes are unsigned
  // A missing key compares as an empty KeyValue, except on its value.
  CHECK(holds(s, compare(T::version, C::equal, "missing", 0)));
  CHECK(holds(s, compare(T::create, C::equal, "missing", 0)));
  CHECK_FALSE(holds(s, compare(T::value, C::equal, "missing", 0, "")));
  CHECK_FALSE(holds(s, compare(T::value, C::not_equal, "missing", 0, "x")));
}

TEST_CASE("a compare over an interval must hold for every key in it", "[etcd-mvcc]") {
  KvStore s;
  s.put("p/a", "1");
  s.put("p/b", "1");
  s.put("p/b", "2");
  Compare c = compare(CompareTarget::version, CompareResult::equal, "p/", 1);
  c.range_end = prefix_range_end("p/");
  CHECK_FALSE(holds(s, c));  // p/b has version 2
  c.result = CompareResult::greater;
  c.number = 0;
  CHECK(holds(s, c));
  Compare none = compare(CompareTarget::create, CompareResult::equal, "q/", 0);
  none.range_end = prefix_range_end("q/");
  CHECK(holds(s, none));  // no key: compared with an empty KeyValue
}

TEST_CASE("a txn's writes share one revision; a read-only txn takes none", "[etcd-mvcc]") {
  KvStore s;
  s.put("old", "x");
  TxnRequest t;
  t.success = {op_put("a", "1"), op_put("b", "2"), op_delete("old"), op_range(get("a"))};
  auto out = apply_txn(s, t);
  REQUIRE(out.error == ServerError::none);
  CHECK(out.response.succeeded);  // no compares: success
  CHECK(out.response.revision == 3);
  CHECK(out.response.responses[0].put.revision == 3);
  CHECK(out.response.responses[1].put.revision == 3);
  CHECK(out.response.responses[2].delete_range.revision == 3);
  // The txn's own Range sees the store as it began (the index is written at the end).
  CHECK(out.response.responses[3].range.kvs.empty());
  CHECK(s.backend().count(Revision{3, 2}) == 1);
  TxnRequest reads;
  reads.success = {op_range(get("a"))};
  auto read = apply_txn(s, reads);
  CHECK(read.response.revision == 3);
  CHECK(s.current_revision() == 3);
}

TEST_CASE("nested txns take their own branch in the same revision", "[etcd-mvcc]") {
  KvStore s;
  s.put("flag", "on");
  TxnRequest inner;
  inner.compare.push_back(compare(CompareTarget::value, CompareResult::equal, "flag", 0, "off"));
  inner.success = {op_put("inner", "success")};
  inner.failure = {op_put("inner", "failure")};
  TxnRequest outer;
  outer.success = {op_put("outer", "1"), op_txn(inner)};
  REQUIRE(check_txn_request(outer) == ServerError::none);
  auto out = apply_txn(s, outer);
  REQUIRE(out.response.responses.size() == 2);
  REQUIRE(out.response.responses[1].txn.size() == 1);
  CHECK_FALSE(out.response.responses[1].txn[0].succeeded);
  CHECK(s.range("inner", "", {}).kvs[0].value == "failure");
  CHECK(s.range("inner", "", {}).kvs[0].mod_revision == 3);
  CHECK(s.range("outer", "", {}).kvs[0].mod_revision == 3);
}

TEST_CASE("a txn whose range cannot be served writes nothing", "[etcd-mvcc]") {
  KvStore s;
  s.put("a", "1");
  s.put("a", "2");
  RangeRequest future = get("a");
  future.revision = 10;
  TxnRequest t;
  t.success = {op_put("b", "1"), op_range(future)};
  auto out = apply_txn(s, t);
  CHECK(out.error == ServerError::future_rev);
  CHECK(grpc_error_text(out.error) == "etcdserver: mvcc: required revision is a future revision");
  CHECK(s.current_revision() == 3);
  REQUIRE(s.compact(3) == MvccError::none);
  RangeRequest old = get("a");
  old.revision = 2;
  t.success = {op_put("b", "1"), op_range(old)};
  out = apply_txn(s, t);
  CHECK(out.error == ServerError::compacted);
  CHECK(grpc_error_text(out.error) == "etcdserver: mvcc: required revision has been compacted");
  CHECK(s.range("b", "", {}).kvs.empty());
}

TEST_CASE("the API refuses duplicate keys, too many ops and empty keys", "[etcd-mvcc]") {
  TxnRequest dup;
  dup.success = {op_put("a", "1"), op_put("a", "2")};
  CHECK(check_txn_request(dup) == ServerError::duplicate_key);
  CHECK(grpc_error_text(ServerError::duplicate_key) ==
        "etcdserver: duplicate key given in txn request");
  TxnRequest put_in_delete;
  put_in_delete.success = {op_delete("a", "c"), op_put("b", "1")};
  CHECK(check_txn_request(put_in_delete) == ServerError::duplicate_key);
  TxnRequest branches;  // one key in each branch: only one branch runs
  branches.success = {op_put("a", "1")};
  branches.failure = {op_put("a", "2")};
  CHECK(check_txn_request(branches) == ServerError::none);
  TxnRequest nested_dup;
  TxnRequest inner;
  inner.success = {op_put("a", "2")};
  nested_dup.success = {op_put("a", "1"), op_txn(inner)};
  CHECK(check_txn_request(nested_dup) == ServerError::duplicate_key);
  TxnRequest many;
  for (int i = 0; i < 129; ++i) many.success.push_back(op_put("k" + std::to_string(i), ""));
  CHECK(check_txn_request(many) == ServerError::too_many_ops);
  CHECK(check_txn_request(many, 129) == ServerError::none);
  TxnRequest nested_budget;  // 100 ops here leave 28 for the nested txn
  TxnRequest inner_ops;
  for (int i = 0; i < 29; ++i) inner_ops.success.push_back(op_range(get("r")));
  for (int i = 0; i < 99; ++i) nested_budget.success.push_back(op_range(get("r")));
  nested_budget.success.push_back(op_txn(inner_ops));
  CHECK(check_txn_request(nested_budget) == ServerError::too_many_ops);
  nested_budget.success.back().txn.front().success.pop_back();
  CHECK(check_txn_request(nested_budget) == ServerError::none);
  TxnRequest empty;
  empty.success = {op_put("", "1")};
  CHECK(check_txn_request(empty) == ServerError::empty_key);
  TxnRequest empty_compare;
  empty_compare.compare.push_back(compare_mod_revision("", CompareResult::equal, 0));
  CHECK(check_txn_request(empty_compare) == ServerError::empty_key);
  TxnRequest both_nested;  // a nested txn may put one key in both branches
  TxnRequest either;
  either.success = {op_put("a", "1")};
  either.failure = {op_put("a", "2")};
  both_nested.success = {op_txn(either)};
  CHECK(check_txn_request(both_nested) == ServerError::none);
  TxnRequest from_key;  // upstream's interval check takes the "\0" end literally
  from_key.success = {op_delete("a", std::string(kFromKey)), op_put("b", "1")};
  CHECK(check_txn_request(from_key) == ServerError::none);
  CHECK(grpc_error_text(ServerError::empty_key) == "etcdserver: key is not provided");
}

TEST_CASE("Range answers: limit and more, count only, keys only", "[etcd-mvcc]") {
  KvStore s;
  for (const char* key : {"a", "b", "c"}) s.put(key, "value");
  RangeRequest r = get("a");
  r.range_end = std::string(kFromKey);
  r.limit = 2;
  auto out = apply_range(s, r).response;
  CHECK(out.kvs.size() == 2);
  CHECK(out.more);
  CHECK(out.count == 3);
  r.limit = 3;
  CHECK_FALSE(apply_range(s, r).response.more);
  r.count_only = true;
  out = apply_range(s, r).response;
  CHECK(out.kvs.empty());
  CHECK(out.count == 3);
  r.count_only = false;
  r.keys_only = true;
  out = apply_range(s, r).response;
  CHECK(out.kvs[0].value.empty());
  CHECK(out.kvs[0].mod_revision == 2);
  r.revision = 9;
  CHECK(apply_range(s, r).error == ServerError::future_rev);
}

TEST_CASE("prevKv on put and delete", "[etcd-mvcc]") {
  KvStore s;
  PutRequest p;
  p.key = "a";
  p.value = "1";
  p.prev_kv = true;
  CHECK_FALSE(apply_put(s, p).response.prev_kv);
  p.value = "2";
  auto put = apply_put(s, p).response;
  REQUIRE(put.prev_kv);
  CHECK(put.prev_kv->value == "1");
  CHECK(put.revision == 3);
  DeleteRangeRequest d;
  d.key = "a";
  d.prev_kv = true;
  auto del = apply_delete_range(s, d).response;
  CHECK(del.deleted == 1);
  REQUIRE(del.prev_kvs.size() == 1);
  CHECK(del.prev_kvs[0].value == "2");
  CHECK(del.revision == 4);
}
