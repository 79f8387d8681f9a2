#include "models/etcd/mvcc/apply.hpp"

#include "models/etcd/mvcc/codec.hpp"
#include "models/etcd/mvcc/txn.hpp"
#include "sim/assert.hpp"

namespace hasim::etcd::mvcc {

ApplyResult Applier::apply(const InternalRaftRequest& request) {
  ApplyResult out;
  out.type = request.type;
  const std::int64_t rev_before = store_.current_revision();
  switch (request.type) {
    case InternalRaftRequest::Type::range: {
      auto got = apply_range(store_, request.range);
      out.error = got.error;
      out.range = std::move(got.response);
      break;
    }
    case InternalRaftRequest::Type::put: {
      if (nospace()) {  // applierV3Capped.Put
        out.error = ServerError::no_space;
        break;
      }
      out.put = apply_put(store_, request.put).response;
      break;
    }
    case InternalRaftRequest::Type::delete_range:
      out.delete_range = apply_delete_range(store_, request.delete_range).response;
      break;
    case InternalRaftRequest::Type::txn: {
      if (nospace() && !is_txn_readonly(request.txn)) {  // applierV3Capped.Txn
        out.error = ServerError::no_space;
        break;
      }
      auto got = apply_txn(store_, request.txn);
      out.error = got.error;
      out.txn = std::move(got.response);
      break;
    }
    case InternalRaftRequest::Type::compaction:
      out.error = from_mvcc(store_.compact(request.compaction.revision));
      out.revision = store_.current_revision();
      break;
    case InternalRaftRequest::Type::alarm:
      out = apply_alarm(request.alarm);
      break;
  }
  // Only a write that succeeded moves the revision, and by at most one.
  HASIM_ASSERT(store_.current_revision() - rev_before <= 1);
  if (out.error != ServerError::none) HASIM_ASSERT(store_.current_revision() == rev_before);
  return out;
}

std::optional<ApplyResult> Applier::apply_entry(std::string_view data) {
  const auto request = decode_request(data);
  if (!request) return std::nullopt;
  return apply(*request);
}

ApplyResult Applier::apply_alarm(const AlarmRequest& request) {
  ApplyResult out;
  out.type = InternalRaftRequest::Type::alarm;
  out.revision = store_.current_revision();
  switch (request.action) {
    case AlarmAction::get:
      for (const std::uint64_t member : nospace_members_) out.alarms[member] = AlarmType::nospace;
      break;
    case AlarmAction::activate:
      if (request.alarm != AlarmType::nospace) break;
      // The response lists the alarm only if it was newly raised.
      if (nospace_members_.insert(request.member_id).second) {
        out.alarms[request.member_id] = AlarmType::nospace;
      }
      break;
    case AlarmAction::deactivate:
      if (request.alarm != AlarmType::nospace) break;
      if (nospace_members_.erase(request.member_id) != 0) {
        out.alarms[request.member_id] = AlarmType::nospace;
      }
      break;
  }
  return out;
}

}  // namespace hasim::etcd::mvcc
