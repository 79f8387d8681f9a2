#include "models/etcd/mvcc/txn.hpp"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "sim/assert.hpp"

namespace hasim::etcd::mvcc {
namespace {

// --- Range (executeRange) ---

RangeOptions range_options(const RangeRequest& request) {
  RangeOptions options;
  // One more than asked, to learn whether there is more.
  options.limit = request.limit > 0 ? request.limit + 1 : 0;
  options.rev = request.revision;
  options.count = request.count_only;
  return options;
}

RangeResponse finish_range(RangeResult rr, const RangeRequest& request) {
  HASIM_ASSERT(rr.error == MvccError::none);
  RangeResponse out;
  if (request.limit > 0 && static_cast<std::int64_t>(rr.kvs.size()) > request.limit) {
    rr.kvs.resize(static_cast<std::size_t>(request.limit));
    out.more = true;
  }
  out.revision = rr.rev;
  out.count = rr.count;
  out.kvs = std::move(rr.kvs);
  if (request.keys_only) {
    for (KeyValue& kv : out.kvs) kv.value.clear();
  }
  return out;
}

// --- Compares (applyCompare, compareKV) ---

bool apply_compare(const TxnWrite& view, const Compare& compare) {
  const RangeResult rr = view.range(compare.key, compare.range_end, RangeOptions{});
  if (rr.error != MvccError::none) return false;
  // A missing value cannot be told from an empty one on the wire, so VALUE fails.
  if (rr.kvs.empty()) return compare.target != CompareTarget::value && compare_kv(compare, {});
  for (const KeyValue& kv : rr.kvs) {
    if (!compare_kv(compare, kv)) return false;
  }
  return true;
}

bool apply_compares(const TxnWrite& view, const std::vector<Compare>& compares) {
  for (const Compare& c : compares) {
    if (!apply_compare(view, c)) return false;
  }
  return true;
}

const std::vector<RequestOp>& chosen_ops(const TxnRequest& request, bool succeeded) {
  return succeeded ? request.success : request.failure;
}

// compareToPath: the outcome of this txn's compares, then, in op order, the paths of the
// nested txns of the branch taken (pre-order), all read before anything is written.
void compare_to_path(const TxnWrite& view, const TxnRequest& request, std::vector<bool>& path,
                     int depth) {
  HASIM_ASSERT(depth < kMaxTxnDepth);
  const bool succeeded = apply_compares(view, request.compare);
  path.push_back(succeeded);
  for (const RequestOp& op : chosen_ops(request, succeeded)) {
    if (op.type == RequestOp::Type::txn) compare_to_path(view, op.txn.front(), path, depth + 1);
  }
}

ServerError check_range(const TxnWrite& view, const RangeRequest& request,
                        std::int64_t compact_rev) {
  if (request.revision == 0) return ServerError::none;
  if (request.revision > view.rev()) return ServerError::future_rev;
  if (request.revision < compact_rev) return ServerError::compacted;
  return ServerError::none;
}

// checkTxn along the path: a range that must fail fails the txn before it writes.
ServerError check_txn(const TxnWrite& view, const TxnRequest& request,
                      const std::vector<bool>& path, std::size_t& pos, std::int64_t compact_rev,
                      int depth) {
  HASIM_ASSERT(depth < kMaxTxnDepth);
  HASIM_ASSERT(pos < path.size());
  const bool succeeded = path[pos++];
  for (const RequestOp& op : chosen_ops(request, succeeded)) {
    ServerError error = ServerError::none;
    if (op.type == RequestOp::Type::range) error = check_range(view, op.range, compact_rev);
    if (op.type == RequestOp::Type::txn) {
      error = check_txn(view, op.txn.front(), path, pos, compact_rev, depth + 1);
    }
    if (error != ServerError::none) return error;
  }
  return ServerError::none;
}

// --- Writes (put, deleteRange) ---

PutResponse put_in(TxnWrite& txn, const PutRequest& request) {
  PutResponse out;
  if (request.prev_kv) {
    RangeResult rr = txn.range(request.key, "", RangeOptions{});
    HASIM_ASSERT(rr.error == MvccError::none);
    if (!rr.kvs.empty()) out.prev_kv = std::move(rr.kvs.front());
  }
  out.revision = txn.put(request.key, request.value);
  HASIM_ASSERT(out.revision == txn.rev() + 1);
  return out;
}

DeleteRangeResponse delete_in(TxnWrite& txn, const DeleteRangeRequest& request) {
  DeleteRangeResponse out;
  if (request.prev_kv) {
    RangeResult rr = txn.range(request.key, request.range_end, RangeOptions{});
    HASIM_ASSERT(rr.error == MvccError::none);
    out.prev_kvs = std::move(rr.kvs);
  }
  std::tie(out.deleted, out.revision) = txn.delete_range(request.key, request.range_end);
  return out;
}

// A Put or DeleteRange outside a txn: a write txn of its own (txn.go Put, DeleteRange).
template <typename Response, typename Write>
Outcome<Response> apply_single_write(KvStore& store, Write write) {
  TxnWrite txn(store);
  Outcome<Response> out;
  out.response = write(txn);
  txn.end();
  HASIM_ASSERT(store.current_revision() == out.response.revision);
  return out;
}

// executeTxn along the path. The checks above leave no op that can fail here (upstream
// panics on a failing op of a txn that writes).
void execute_txn(TxnWrite& txn, const TxnRequest& request, const std::vector<bool>& path,
                 std::size_t& pos, TxnResponse& out, int depth) {
  HASIM_ASSERT(depth < kMaxTxnDepth);
  HASIM_ASSERT(pos < path.size());
  out.succeeded = path[pos++];
  for (const RequestOp& op : chosen_ops(request, out.succeeded)) {
    ResponseOp& resp = out.responses.emplace_back();
    resp.type = op.type;
    switch (op.type) {
      case RequestOp::Type::range:
        resp.range = finish_range(
            txn.range(op.range.key, op.range.range_end, range_options(op.range)), op.range);
        break;
      case RequestOp::Type::put:
        resp.put = put_in(txn, op.put);
        break;
      case RequestOp::Type::delete_range:
        resp.delete_range = delete_in(txn, op.delete_range);
        break;
      case RequestOp::Type::txn:
        execute_txn(txn, op.txn.front(), path, pos, resp.txn.emplace_back(), depth + 1);
        break;
    }
  }
}

// --- API checks (v3rpc/key.go) ---

ServerError check_ops(const TxnRequest& request, std::int64_t max_txn_ops, int depth);

ServerError check_op(const RequestOp& op, std::int64_t max_txn_ops, int depth) {
  switch (op.type) {
    case RequestOp::Type::range:
      return op.range.key.empty() ? ServerError::empty_key : ServerError::none;
    case RequestOp::Type::put:
      return op.put.key.empty() ? ServerError::empty_key : ServerError::none;
    case RequestOp::Type::delete_range:
      return op.delete_range.key.empty() ? ServerError::empty_key : ServerError::none;
    case RequestOp::Type::txn:
      HASIM_ASSERT(op.txn.size() == 1);
      return check_ops(op.txn.front(), max_txn_ops, depth + 1);
  }
  return ServerError::none;
}

// checkTxnRequest: the longest of compares, success and failure counts against the
// budget, and a nested txn gets what is left of it.
ServerError check_ops(const TxnRequest& request, std::int64_t max_txn_ops, int depth) {
  if (depth >= kMaxTxnDepth) return ServerError::too_many_ops;
  const std::size_t longest =
      std::max({request.compare.size(), request.success.size(), request.failure.size()});
  const auto opc = static_cast<std::int64_t>(longest);
  if (opc > max_txn_ops) return ServerError::too_many_ops;
  for (const Compare& c : request.compare) {
    if (c.key.empty()) return ServerError::empty_key;
  }
  for (const auto* branch : {&request.success, &request.failure}) {
    for (const RequestOp& op : *branch) {
      const ServerError error = check_op(op, max_txn_ops - opc, depth);
      if (error != ServerError::none) return error;
    }
  }
  return ServerError::none;
}

// The intervals a branch deletes, as upstream's interval tree holds them: a point for an
// empty range_end, else [key, range_end) compared as bytes. Like upstream (which does not
// apply mkGteRange here), a "from key" end of one zero byte is taken literally.
struct DeleteIntervals {
  std::vector<std::pair<std::string, std::string>> dels;
  bool intersects(const std::string& key) const {
    for (const auto& [begin, end] : dels) {
      if (end.empty() ? key == begin : (begin <= key && key < end)) return true;
    }
    return false;
  }
  void merge(const DeleteIntervals& other) {
    dels.insert(dels.end(), other.dels.begin(), other.dels.end());
  }
};

ServerError check_intervals(const std::vector<RequestOp>& ops, int depth,
                            std::set<std::string>& puts, DeleteIntervals& dels);

// A nested txn's puts against what the branch holding it writes; a key put by both of its
// branches is fine (only one runs).
ServerError check_nested_intervals(const TxnRequest& nested, int depth, std::set<std::string>& puts,
                                   DeleteIntervals& dels) {
  std::set<std::string> puts_then;
  std::set<std::string> puts_else;
  DeleteIntervals dels_then;
  DeleteIntervals dels_else;
  ServerError error = check_intervals(nested.success, depth, puts_then, dels_then);
  if (error == ServerError::none)
    error = check_intervals(nested.failure, depth, puts_else, dels_else);
  if (error != ServerError::none) return error;
  for (const std::string& key : puts_then) {
    if (puts.count(key) != 0 || dels.intersects(key)) return ServerError::duplicate_key;
    puts.insert(key);
  }
  for (const std::string& key : puts_else) {
    if (puts.count(key) != 0 && puts_then.count(key) == 0) return ServerError::duplicate_key;
    if (dels.intersects(key)) return ServerError::duplicate_key;
    puts.insert(key);
  }
  dels.merge(dels_then);
  dels.merge(dels_else);
  return ServerError::none;
}

// checkIntervals: this level's deletes first, then the nested txns, then this level's puts.
ServerError check_intervals(const std::vector<RequestOp>& ops, int depth,
                            std::set<std::string>& puts, DeleteIntervals& dels) {
  HASIM_ASSERT(depth < kMaxTxnDepth);
  for (const RequestOp& op : ops) {
    if (op.type == RequestOp::Type::delete_range) {
      dels.dels.emplace_back(op.delete_range.key, op.delete_range.range_end);
    }
  }
  for (const RequestOp& op : ops) {
    if (op.type != RequestOp::Type::txn) continue;
    const ServerError error = check_nested_intervals(op.txn.front(), depth + 1, puts, dels);
    if (error != ServerError::none) return error;
  }
  for (const RequestOp& op : ops) {
    if (op.type != RequestOp::Type::put) continue;
    if (puts.count(op.put.key) != 0 || dels.intersects(op.put.key)) {
      return ServerError::duplicate_key;
    }
    puts.insert(op.put.key);
  }
  return ServerError::none;
}

}  // namespace

bool compare_kv(const Compare& compare, const KeyValue& kv) {
  const auto sign = [](auto a, auto b) { return a < b ? -1 : (a > b ? 1 : 0); };
  std::int64_t field = 0;  // the KeyValue's number the compare looks at
  switch (compare.target) {
    case CompareTarget::value:
      break;
    case CompareTarget::create:
      field = kv.create_revision;
      break;
    case CompareTarget::mod:
      field = kv.mod_revision;
      break;
    case CompareTarget::version:
      field = kv.version;
      break;
    case CompareTarget::lease:
      field = kv.lease;
      break;
  }
  // Values compare as bytes (bytes.Compare); std::string compares chars as unsigned.
  const int result = compare.target == CompareTarget::value
                         ? sign(kv.value.compare(compare.value), 0)
                         : sign(field, compare.number);
  switch (compare.result) {
    case CompareResult::equal:
      return result == 0;
    case CompareResult::not_equal:
      return result != 0;
    case CompareResult::greater:
      return result > 0;
    case CompareResult::less:
      return result < 0;
  }
  return true;
}

ServerError check_txn_request(const TxnRequest& request, std::int64_t max_txn_ops) {
  if (const ServerError e = check_ops(request, max_txn_ops, 0); e != ServerError::none) return e;
  for (const auto* branch : {&request.success, &request.failure}) {
    std::set<std::string> puts;
    DeleteIntervals dels;
    if (const ServerError e = check_intervals(*branch, 0, puts, dels); e != ServerError::none) {
      return e;
    }
  }
  return ServerError::none;
}

bool is_txn_readonly(const TxnRequest& request) {
  for (const auto* branch : {&request.success, &request.failure}) {
    for (const RequestOp& op : *branch) {
      if (op.type != RequestOp::Type::range) return false;
    }
  }
  return true;
}

Outcome<RangeResponse> apply_range(const KvStore& store, const RangeRequest& request) {
  Outcome<RangeResponse> out;
  RangeResult rr = store.range(request.key, request.range_end, range_options(request));
  out.error = from_mvcc(rr.error);
  if (out.error == ServerError::none) out.response = finish_range(std::move(rr), request);
  return out;
}

Outcome<PutResponse> apply_put(KvStore& store, const PutRequest& request) {
  return apply_single_write<PutResponse>(store,
                                         [&](TxnWrite& txn) { return put_in(txn, request); });
}

Outcome<DeleteRangeResponse> apply_delete_range(KvStore& store, const DeleteRangeRequest& request) {
  return apply_single_write<DeleteRangeResponse>(
      store, [&](TxnWrite& txn) { return delete_in(txn, request); });
}

Outcome<TxnResponse> apply_txn(KvStore& store, const TxnRequest& request) {
  TxnWrite txn(store);
  std::vector<bool> path;
  compare_to_path(txn, request, path, 0);
  Outcome<TxnResponse> out;
  std::size_t pos = 0;
  out.error = check_txn(txn, request, path, pos, store.compact_revision(), 0);
  if (out.error != ServerError::none) {
    txn.end();
    return out;
  }
  pos = 0;
  execute_txn(txn, request, path, pos, out.response, 0);
  HASIM_ASSERT(pos == path.size());
  const std::int64_t rev = txn.changes().empty() ? txn.rev() : txn.rev() + 1;
  txn.end();
  out.response.revision = rev;
  HASIM_ASSERT(store.current_revision() == rev);
  return out;
}

}  // namespace hasim::etcd::mvcc
