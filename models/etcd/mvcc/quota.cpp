#include "models/etcd/mvcc/quota.hpp"

#include <algorithm>

#include "sim/assert.hpp"

namespace hasim::etcd::mvcc {
namespace {

std::int64_t cost_put(const PutRequest& put) {
  return kKvOverheadBytes + static_cast<std::int64_t>(put.key.size()) +
         static_cast<std::int64_t>(put.value.size());
}

std::int64_t cost_branch(const std::vector<RequestOp>& ops) {
  std::int64_t sum = 0;
  for (const RequestOp& op : ops) {
    if (op.type == RequestOp::Type::put) sum += cost_put(op.put);
  }
  return sum;
}

}  // namespace

std::int64_t quota_cost(const InternalRaftRequest& request) {
  switch (request.type) {
    case InternalRaftRequest::Type::put:
      return cost_put(request.put);
    case InternalRaftRequest::Type::txn:
      return std::max(cost_branch(request.txn.success), cost_branch(request.txn.failure));
    default:
      return 0;
  }
}

BackendQuota::BackendQuota(std::int64_t quota_backend_bytes) {
  if (quota_backend_bytes < 0) {
    enabled_ = false;
  } else if (quota_backend_bytes > 0) {
    max_bytes_ = quota_backend_bytes;
  }
  HASIM_ASSERT(max_bytes_ > 0);
}

bool BackendQuota::available(const KvStore& store, const InternalRaftRequest& request) const {
  if (!enabled_) return true;
  const std::int64_t cost = quota_cost(request);
  if (cost == 0) return true;  // nothing that grows the store
  HASIM_ASSERT(cost > 0);
  return store.db_size() + cost < max_bytes_;
}

std::optional<AlarmRequest> quota_check(const BackendQuota& quota, const KvStore& store,
                                        const InternalRaftRequest& request,
                                        std::uint64_t member_id) {
  if (quota.available(store, request)) return std::nullopt;
  AlarmRequest alarm;
  alarm.action = AlarmAction::activate;
  alarm.member_id = member_id;
  alarm.alarm = AlarmType::nospace;
  return alarm;
}

}  // namespace hasim::etcd::mvcc
