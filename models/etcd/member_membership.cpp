// The etcd member's membership handling (models/etcd/membership.hpp), kept apart from the
// Ready loop in member.cpp: the start-up refusal of a member that lost its data, member API
// requests, and what applying a conf change means for etcd beyond raft.
#include "models/etcd/member.hpp"
#include "models/etcd/trace_kinds.hpp"
#include "models/etcd/wal.hpp"
#include "sim/assert.hpp"

namespace hasim::etcd {

// bootstrapNewClusterNoWAL (etcdserver/bootstrap.go): a member of the initial cluster that
// starts without a WAL asks its peers whether it was bootstrapped before (isMemberBootstrapped:
// it has published client URLs) and refuses to start if so, "member %s has already been
// bootstrapped": it lost its data directory and must be removed and re-added. A standby
// member joins an existing cluster (bootstrapExistingClusterNoWAL), which has no such check.
bool EtcdMember::refuses_to_start(Env& env) {
  HASIM_ASSERT(api_ != nullptr);
  // An empty WAL after a power loss without fsync (the unsafeAckBeforeFsync mutation) is
  // not this: etcd's WAL directory is created and fsynced at the first start (wal.Create).
  if (standby() || !config_.dataDirLost || !api_->directory().started(id_)) return false;
  const bool empty = env.read(kVolume, kSnapFiles[0]).empty() &&
                     env.read(kVolume, kSnapFiles[1]).empty() &&
                     env.read(kVolume, wal_segment_name(0)).empty();
  if (!empty) return false;
  env.trace(trace_kind::kFatal,
            {{"member", static_cast<std::int64_t>(id_)},
             {"error", "member " + std::to_string(id_) + " has already been bootstrapped"}});
  env.exit(1);
  return true;
}

// rafthttp (http.go checkClusterCompatibilityFromHeader): a peer message whose
// X-Etcd-Cluster-ID is not the member's own is answered 412 and dropped, "request cluster
// ID mismatch": a member left running in the old cluster after a restore (or a restored one,
// heard by it) is not its peer any more. Traced once per peer and cluster.
bool EtcdMember::refuse_cluster(Env& env, const RaftMessage& message) {
  HASIM_ASSERT(message.cluster != wireCluster_);
  const raft::PeerId from = message.message.from;
  if (refusedPeers_.size() < peers_.size() && refusedPeers_.insert(from).second) {
    env.trace(trace_kind::kClusterMismatch,
              {{"member", static_cast<std::int64_t>(id_)},
               {"from", static_cast<std::int64_t>(from)},
               {"local-cluster", static_cast<std::int64_t>(wireCluster_)},
               {"remote-cluster", static_cast<std::int64_t>(message.cluster)}});
  }
  return true;
}

void EtcdMember::on_member_request(Env& env, ProcessId from, const MemberRequest& request) {
  HASIM_ASSERT(api_ != nullptr && node_ != nullptr);
  // The scenario's requests (posted by the world to the member that leads) as before.
  if (request.client_id == 0) return api_->handle(env, *node_, request);
  serve_member_client(env, from, request);
}

// etcd's applyConfChange: after raft's ApplyConfChange, the member list changes; a member
// that applied its own removal stops a second later (server.go: stopWithDelay(10*100ms)).
// etcd's raft config leaves StepDownOnRemoval off, so a removed leader leads until then.
void EtcdMember::conf_change_applied(Env& env, const raft::ConfChange& cc) {
  if (api_->applied(env, cc)) env.set_timer(milliseconds(1000), removal_.tag());
}

// createMergedSnapshotMessage (etcdserver/snapshot_merge.go): etcd does not send raft's
// stored snapshot but one at its applied index with the current ConfState and state. A
// member added after the stored snapshot was taken is in that ConfState, so it can restore
// it (raft refuses a snapshot whose ConfState lacks the recipient).
raft::Snapshot EtcdMember::merged_snapshot() {
  raft::Snapshot snap;
  snap.metadata.index = applied_;
  const auto term = storage_.term(applied_);
  HASIM_ASSERT(term.ok());
  snap.metadata.term = term.value;
  snap.metadata.confState = confState_;
  snap.data = state_machine_data();
  return snap;
}

}  // namespace hasim::etcd
