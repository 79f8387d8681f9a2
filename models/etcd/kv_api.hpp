#pragma once
// The etcd KV service as a client reaches a member (api/etcdserverpb rpc.proto service KV:
// Range, Put, DeleteRange, Txn, Compact), one request and one response message each, and
// the texts of the errors the server layer answers with (server/etcdserver/errors/errors.go;
// mvcc's and the API layer's own come from models/etcd/mvcc/rpc.hpp grpc_error_text).
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "models/etcd/membership.hpp"
#include "models/etcd/mvcc/rpc.hpp"
#include "models/etcd/mvcc/watch.hpp"
#include "sim/env.hpp"

namespace hasim::etcd {

namespace kv_error {
inline constexpr std::string_view kTimeout = "etcdserver: request timed out";
inline constexpr std::string_view kTimeoutLeaderFail =
    "etcdserver: request timed out, possibly due to previous leader failure";
inline constexpr std::string_view kLeaderChanged = "etcdserver: leader changed";
inline constexpr std::string_view kNoLeader = member_error::kNoLeader;
inline constexpr std::string_view kTooManyRequests = "etcdserver: too many requests";
// raft.ErrProposalDropped, which etcd passes through as it is (a leader transfer in flight).
inline constexpr std::string_view kProposalDropped = "raft proposal dropped";
}  // namespace kv_error

// The KV service's calls, and two of the Maintenance service's (api/etcdserverpb rpc.proto
// service Maintenance) carried on the same request and response messages: Alarm
// (v3_server.go Alarm: an InternalRaftRequest through raft, answered when applied) and
// Defragment (v3rpc/maintenance.go Defragment: the member's backend.defrag(), answered when
// it returns; kv_server.hpp says what it stalls) and Snapshot (v3rpc/maintenance.go Snapshot:
// the member streams its own backend, at its current revision, without raft; it waits while
// a defragmentation holds the backend).
enum class KvOp : std::uint8_t { range, put, delete_range, txn, compact, alarm, defragment,
                                 snapshot };
std::string_view kv_op_name(KvOp op);  // "kv-range", "kv-put", ..., "kv-defragment"

// One client call. Only the member of `op` is read. `require_leader` is clientv3's
// WithRequireLeader: the member refuses with "etcdserver: no leader" when it knows none
// (v3rpc/interceptor.go); kube-apiserver sets it on its watches.
struct KvRequest final : MessageBody {
  std::string_view type() const override { return kv_op_name(op); }
  std::uint64_t client_id = 0;  // the client's own id for the call, echoed in the response
  KvOp op = KvOp::range;
  bool require_leader = false;
  mvcc::RangeRequest range;  // range.serializable: read locally, not through ReadIndex
  mvcc::PutRequest put;
  mvcc::DeleteRangeRequest delete_range;
  mvcc::TxnRequest txn;
  mvcc::CompactionRequest compaction;
  mvcc::AlarmRequest alarm;  // op alarm: GET, or DEACTIVATE of one member's alarm
};

// etcdserverpb.ResponseHeader.
struct ResponseHeader {
  std::uint64_t cluster_id = 0;  // EtcdMember: its cluster's (member.hpp bootstrap_cluster_id)
  std::uint64_t member_id = 0;
  std::uint64_t raft_term = 0;
  std::int64_t revision = 0;
};

struct KvResponse final : MessageBody {
  std::string_view type() const override { return "kv-response"; }
  bool ok() const { return error.empty(); }
  std::uint64_t client_id = 0;
  KvOp op = KvOp::range;
  std::string error;  // the text the client reads; empty when the call succeeded
  ResponseHeader header;
  mvcc::RangeResponse range;
  mvcc::PutResponse put;
  mvcc::DeleteRangeResponse delete_range;
  mvcc::TxnResponse txn;
  // op alarm: the alarms listed (GET) or disarmed (DEACTIVATE), by member (AlarmResponse).
  std::map<std::uint64_t, mvcc::AlarmType> alarms;
  // op snapshot: the backend streamed (models/etcd/kv_snapshot.hpp encode_store) and its
  // size, the file's (backend.Snapshot: the whole bbolt file, free pages and all).
  std::string snapshot;
  std::int64_t snapshot_size = 0;
};

// A watch stream's create or cancel (etcdserverpb WatchCreateRequest, WatchCancelRequest):
// one watch per message; `watch_id` is the client's name for it, echoed in every response.
struct KvWatch final : MessageBody {
  std::string_view type() const override { return cancel ? "kv-watch-cancel" : "kv-watch"; }
  std::uint64_t watch_id = 0;
  bool cancel = false;
  mvcc::WatchRequest request;
};

// etcdserverpb WatchResponse: `created` answers the create; later ones carry events, or
// compact_revision and canceled when the start revision was compacted (v3rpc/watch.go).
struct KvWatchResponse final : MessageBody {
  std::string_view type() const override { return "kv-watch-response"; }
  std::uint64_t watch_id = 0;
  bool created = false;
  ResponseHeader header;
  mvcc::WatchResponse watch;
};

// What `etcdctl endpoint status` shows of a member (etcdserverpb StatusResponse;
// server/etcdserver/api/v3rpc/maintenance.go Status).
struct KvStatus {
  std::uint64_t member_id = 0;   // the raft ID
  std::uint64_t cluster_id = 0;  // the header's: etcd-backup-restore's member Lease reads it
  bool is_learner = false;       // StatusResponse.IsLearner (etcd >= 3.4): cluster.IsLearner()
  std::uint64_t leader = 0;  // 0: none known
  std::uint64_t raft_term = 0;
  std::uint64_t raft_index = 0;  // committed
  std::uint64_t raft_applied_index = 0;
  std::int64_t db_size = 0;
  std::int64_t db_size_in_use = 0;
  std::int64_t db_size_quota = 0;  // 0: the quota is off
  bool nospace_alarm = false;      // the cluster's NOSPACE alarm is raised
};

// The Maintenance service's Status call, answered at once from the member's own state.
struct KvStatusRequest final : MessageBody {
  std::string_view type() const override { return "kv-status"; }
  std::uint64_t client_id = 0;
};

struct KvStatusResponse final : MessageBody {
  std::string_view type() const override { return "kv-status-response"; }
  std::uint64_t client_id = 0;
  ResponseHeader header;
  KvStatus status;
};

}  // namespace hasim::etcd
