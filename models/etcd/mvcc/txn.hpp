#pragma once
// Applying KV requests to the MVCC store as etcd's server does
// (server/etcdserver/txn/txn.go Range, Put, DeleteRange, Txn), and the API layer's checks
// of a request before it is proposed (server/etcdserver/api/v3rpc/key.go checkTxnRequest,
// checkIntervals).
//
// A Txn: every compare (its own and those of nested txns on the chosen path) is evaluated
// against the store as it is before the txn; then the ranges of the chosen ops are checked
// (a revision above the current one is ErrFutureRev, below the compact revision
// ErrCompacted, and then nothing is written); then the chosen branch runs in one write txn,
// so all its writes share one revision. A compare over an interval holds only if it holds
// for every key in it; over no key at all it is compared with an empty KeyValue (version,
// revisions and lease 0), except a VALUE compare, which then fails.
//
// kube-apiserver's etcd3 store (staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go,
// through etcd's client/v3/kubernetes OptimisticPut and OptimisticDelete) writes only
// through such txns: create = If(mod_revision(key) = 0) Then(Put), with no Else; update and
// delete = If(mod_revision(key) = rv) Then(Put | Delete) Else(Get) (GetOnFailure).
#include <cstdint>

#include "models/etcd/mvcc/kv_store.hpp"
#include "models/etcd/mvcc/rpc.hpp"

namespace hasim::etcd::mvcc {

// Nesting is bounded so that the recursive walks over a TxnRequest stay bounded; upstream
// bounds a request by its size and op count instead.
inline constexpr int kMaxTxnDepth = 16;

template <typename Response>
struct Outcome {
  ServerError error = ServerError::none;
  Response response;
};

// The API layer's checks (before the request enters raft): the longest of compares,
// success and failure within max_txn_ops (a nested txn within what is left), no empty key
// in an op or a compare, and no branch writing a key twice: two puts, or a put inside a
// deleted interval (a key put in both branches of a nested txn is fine). As upstream's
// interval check, a "from key" delete (range_end one zero byte) is taken literally there,
// so it conflicts with no put.
ServerError check_txn_request(const TxnRequest& request,
                              std::int64_t max_txn_ops = kDefaultMaxTxnOps);
bool is_txn_readonly(const TxnRequest& request);
bool compare_kv(const Compare& compare, const KeyValue& kv);

Outcome<RangeResponse> apply_range(const KvStore& store, const RangeRequest& request);
Outcome<PutResponse> apply_put(KvStore& store, const PutRequest& request);
Outcome<DeleteRangeResponse> apply_delete_range(KvStore& store, const DeleteRangeRequest& request);
Outcome<TxnResponse> apply_txn(KvStore& store, const TxnRequest& request);

}  // namespace hasim::etcd::mvcc
