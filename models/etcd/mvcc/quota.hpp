#pragma once
// The backend quota (server/storage/quota.go) and the API layer's gate in front of it
// (server/etcdserver/api/v3rpc/quota.go). A Put costs kKvOverheadBytes + key + value; a Txn
// the larger of its two branches' Put costs (puts of nested txns are not counted, as
// upstream's costTxn reads only a branch's own ops); anything else costs nothing and always
// passes. A write passes while dbSize + cost < quota; dbSize is the file size, which
// compaction alone does not reduce (kv_store.hpp), so a member over quota needs compaction
// and defragmentation before the alarm can usefully be disarmed.
//
// When the gate refuses a write, the client gets ErrGRPCNoSpace and the member proposes an
// AlarmRequest (ACTIVATE, NOSPACE, itself): the alarm goes through raft, and once applied,
// every member refuses writes (apply.hpp).
#include <cstdint>
#include <optional>

#include "models/etcd/mvcc/kv_store.hpp"
#include "models/etcd/mvcc/rpc.hpp"

namespace hasim::etcd::mvcc {

inline constexpr std::int64_t kDefaultQuotaBytes = std::int64_t{2} * 1024 * 1024 * 1024;
inline constexpr std::int64_t kMaxQuotaBytes = std::int64_t{8} * 1024 * 1024 * 1024;
inline constexpr std::int64_t kKvOverheadBytes = 256;

std::int64_t quota_cost(const InternalRaftRequest& request);

class BackendQuota {
 public:
  // --quota-backend-bytes: 0 is the default (2 GiB), a negative value turns the quota off.
  explicit BackendQuota(std::int64_t quota_backend_bytes);
  bool enabled() const { return enabled_; }
  std::int64_t max_bytes() const { return max_bytes_; }
  bool available(const KvStore& store, const InternalRaftRequest& request) const;

 private:
  bool enabled_ = true;
  std::int64_t max_bytes_ = kDefaultQuotaBytes;
};

// quotaKVServer's check: nothing when the request may be proposed; otherwise the alarm the
// member proposes (and the client is answered ServerError::no_space).
std::optional<AlarmRequest> quota_check(const BackendQuota& quota, const KvStore& store,
                                        const InternalRaftRequest& request,
                                        std::uint64_t member_id);

}  // namespace hasim::etcd::mvcc
