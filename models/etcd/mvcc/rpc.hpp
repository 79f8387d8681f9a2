#pragma once
// The KV API's requests and responses as the server applies them (api/etcdserverpb
// rpc.proto: RangeRequest, PutRequest, DeleteRangeRequest, Compare, RequestOp, TxnRequest,
// CompactionRequest, AlarmRequest, InternalRaftRequest), and the errors a client sees
// (server/etcdserver/errors/errors.go, api/v3rpc/rpctypes/error.go). Fields hasim's users
// do not exercise are left out: sort order, min/max revision filters, ignore_value,
// ignore_lease, leases, auth, and Compaction's `physical` (compaction here is always done
// by the time it returns).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/etcd/mvcc/kv_store.hpp"

namespace hasim::etcd::mvcc {

// Errors of the server layer. server_error_text gives the server's own text (for the mvcc
// errors, mvcc's), grpc_error_text what a client reads (rpctypes: "etcdserver: " first).
enum class ServerError : std::uint8_t {
  none,
  compacted,      // mvcc.ErrCompacted
  future_rev,     // mvcc.ErrFutureRev
  no_space,       // errors.ErrNoSpace: the NOSPACE alarm is raised or the quota is full
  duplicate_key,  // rpctypes.ErrGRPCDuplicateKey: a txn branch writes one key twice
  too_many_ops,   // rpctypes.ErrGRPCTooManyOps: more than --max-txn-ops (128) ops
  empty_key,      // rpctypes.ErrGRPCEmptyKey
};
std::string_view server_error_text(ServerError error);
std::string_view grpc_error_text(ServerError error);
ServerError from_mvcc(MvccError error);

inline constexpr std::int64_t kDefaultMaxTxnOps = 128;  // embed.DefaultMaxTxnOps

struct RangeRequest {
  std::string key;
  std::string range_end;  // key_range.hpp's convention
  std::int64_t limit = 0;
  std::int64_t revision = 0;  // 0: the current revision
  bool serializable = false;  // read locally, not through ReadIndex (the server's concern)
  bool keys_only = false;
  bool count_only = false;
  bool operator==(const RangeRequest&) const = default;
};

struct PutRequest {
  std::string key;
  std::string value;
  bool prev_kv = false;
  bool operator==(const PutRequest&) const = default;
};

struct DeleteRangeRequest {
  std::string key;
  std::string range_end;
  bool prev_kv = false;
  bool operator==(const DeleteRangeRequest&) const = default;
};

enum class CompareResult : std::uint8_t { equal, greater, less, not_equal };
enum class CompareTarget : std::uint8_t { version, create, mod, value, lease };

// One guard of a Txn: target(key) result operand; `number` is the operand of VERSION,
// CREATE, MOD and LEASE, `value` that of VALUE.
struct Compare {
  CompareResult result = CompareResult::equal;
  CompareTarget target = CompareTarget::mod;
  std::string key;
  std::string range_end;
  std::int64_t number = 0;
  std::string value;
  bool operator==(const Compare&) const = default;
};

struct TxnRequest;

// One op of a Txn branch. `txn` holds the nested TxnRequest (one element) of a txn op.
struct RequestOp {
  enum class Type : std::uint8_t { range, put, delete_range, txn };
  Type type = Type::range;
  RangeRequest range;
  PutRequest put;
  DeleteRangeRequest delete_range;
  std::vector<TxnRequest> txn;
  bool operator==(const RequestOp&) const;
};

struct TxnRequest {
  std::vector<Compare> compare;
  std::vector<RequestOp> success;
  std::vector<RequestOp> failure;
  bool operator==(const TxnRequest&) const = default;
};

struct RangeResponse {
  std::int64_t revision = 0;  // the header's
  std::vector<KeyValue> kvs;
  bool more = false;
  std::int64_t count = 0;
  bool operator==(const RangeResponse&) const = default;
};

struct PutResponse {
  std::int64_t revision = 0;
  std::optional<KeyValue> prev_kv;
  bool operator==(const PutResponse&) const = default;
};

struct DeleteRangeResponse {
  std::int64_t revision = 0;
  std::int64_t deleted = 0;
  std::vector<KeyValue> prev_kvs;
  bool operator==(const DeleteRangeResponse&) const = default;
};

struct TxnResponse;

struct ResponseOp {
  RequestOp::Type type = RequestOp::Type::range;
  RangeResponse range;
  PutResponse put;
  DeleteRangeResponse delete_range;
  std::vector<TxnResponse> txn;  // one element for a nested txn
  bool operator==(const ResponseOp&) const;
};

struct TxnResponse {
  std::int64_t revision = 0;
  bool succeeded = false;
  std::vector<ResponseOp> responses;
  bool operator==(const TxnResponse&) const = default;
};

inline bool RequestOp::operator==(const RequestOp& other) const {
  return type == other.type && range == other.range && put == other.put &&
         delete_range == other.delete_range && txn == other.txn;
}

inline bool ResponseOp::operator==(const ResponseOp& other) const {
  return type == other.type && range == other.range && put == other.put &&
         delete_range == other.delete_range && txn == other.txn;
}

// Compaction (CompactionRequest): the store keeps nothing below `revision` but what the
// index keeps.
struct CompactionRequest {
  std::int64_t revision = 0;
  bool operator==(const CompactionRequest&) const = default;
};

// Alarms (AlarmRequest, api/v3alarm): a member raises NOSPACE when its quota refuses a
// write; an operator disarms it (`etcdctl alarm disarm`). CORRUPT is not modelled.
enum class AlarmAction : std::uint8_t { get, activate, deactivate };
enum class AlarmType : std::uint8_t { none, nospace };
struct AlarmRequest {
  AlarmAction action = AlarmAction::get;
  std::uint64_t member_id = 0;
  AlarmType alarm = AlarmType::none;
  bool operator==(const AlarmRequest&) const = default;
};

// What one raft entry of the etcd server carries (etcdserverpb InternalRaftRequest): the
// request id the proposer waits on, and one request.
struct InternalRaftRequest {
  enum class Type : std::uint8_t { range, put, delete_range, txn, compaction, alarm };
  std::uint64_t id = 0;
  Type type = Type::range;
  RangeRequest range;
  PutRequest put;
  DeleteRangeRequest delete_range;
  TxnRequest txn;
  CompactionRequest compaction;
  AlarmRequest alarm;
  bool operator==(const InternalRaftRequest&) const = default;
};

// Helpers that build ops, as clientv3's OpGet / OpPut / OpDelete / OpTxn do.
RequestOp op_range(RangeRequest request);
RequestOp op_put(std::string key, std::string value);
RequestOp op_delete(std::string key, std::string range_end = "");
RequestOp op_txn(TxnRequest request);
Compare compare_mod_revision(std::string key, CompareResult result, std::int64_t rev);

}  // namespace hasim::etcd::mvcc
