#pragma once
// Applying committed InternalRaftRequests to a member's store (server/etcdserver/apply:
// applierV3backend, and applierV3Capped while the NOSPACE alarm is raised; api/v3alarm
// for the alarm list). Every member applies the same entries in the same order and so
// reaches the same store, revision and alarms.
//
// While any member's NOSPACE alarm is active, Put and any Txn that is not read-only are
// refused with ErrNoSpace; Range, DeleteRange, Compaction and alarm requests still apply
// (deleting, compacting and disarming are how an operator recovers). Disarming the last
// NOSPACE alarm lifts the cap.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "models/etcd/mvcc/kv_store.hpp"
#include "models/etcd/mvcc/rpc.hpp"

namespace hasim::etcd::mvcc {

struct ApplyResult {
  ServerError error = ServerError::none;
  InternalRaftRequest::Type type = InternalRaftRequest::Type::range;
  RangeResponse range;
  PutResponse put;
  DeleteRangeResponse delete_range;
  TxnResponse txn;
  std::int64_t revision = 0;  // the header of a compaction or alarm response
  // An alarm response: the alarms it activated, deactivated or (get) lists, by member.
  std::map<std::uint64_t, AlarmType> alarms;
};

class Applier {
 public:
  explicit Applier(KvStore& store) : store_(store) {}
  ApplyResult apply(const InternalRaftRequest& request);
  // A committed entry's data (codec.hpp): nothing if it is not an encoded request.
  std::optional<ApplyResult> apply_entry(std::string_view data);
  bool nospace() const { return !nospace_members_.empty(); }
  const std::set<std::uint64_t>& nospace_members() const { return nospace_members_; }
  const KvStore& store() const { return store_; }
  // A snapshot's alarm list (models/etcd/kv_snapshot.hpp).
  void restore_alarms(std::set<std::uint64_t> members) { nospace_members_ = std::move(members); }

 private:
  ApplyResult apply_alarm(const AlarmRequest& request);

  KvStore& store_;
  std::set<std::uint64_t> nospace_members_;  // members with an active NOSPACE alarm
};

}  // namespace hasim::etcd::mvcc
