// etcd-backup-restore in mode `proposal` (seed 004, "Decision table for etcd-backup-restore
// during initialization", and "Scale down": "the superfluous members in the ETCD cluster will
// be cleaned up by the leading etcd-backup-restore sidecar"). Initialize reads the Etcd's
// status through the API server and the store, runs the table (proposal_init_table.hpp) and
// carries out its action with the calls upstream's sidecar already makes:
//  - a member that joins (cases 4, 5 and 8) is added as a learner and promoted by its own
//    sidecar's loop once etcd lets it: the seed's "with v3.4, the raft learner approach" for
//    adding a member. It starts on empty directories and gets the data from the leader as a
//    raft snapshot; the table's "restore only the latest full snapshot" would only spare the
//    leader that transfer, and hasim's etcd cannot start a joining member on a restored db;
//  - case 7 restores the latest full snapshot and its deltas into a one-member cluster (the
//    seed's embedded single-node etcd) and owes a full snapshot, which its snapshotter takes
//    first once it leads; with nothing in the store it starts a one-member cluster on empty
//    directories.
// What "data directory is valid and up-to-date" means: the validator passes and the Etcd's
// status lists this member. A data directory of a member the status no longer lists (after
// druid case 10 cleared it) belongs to a cluster that is gone; reading it as valid would leave
// a surviving member in no row of the table (init cases 6 and 8 both exclude it).
#include <algorithm>
#include <string>

#include "models/druid/backup_restore.hpp"
#include "models/druid/trace_kinds.hpp"
#include "models/etcd/wal.hpp"
#include "sim/assert.hpp"

namespace hasim::druid {

namespace P = proposal;

namespace {

bool has_wal(const Env& env) {
  const std::vector<std::string> files = env.files(etcd::EtcdMember::kVolume);
  return std::any_of(files.begin(), files.end(),
                     [](const std::string& f) { return f.rfind("wal-", 0) == 0; });
}

}  // namespace

// The Etcd first (its status, through the API server), then the store.
void BackupRestore::proposal_initialize(Env& env) {
  HASIM_ASSERT(config_.etcdStatus != nullptr && initializing_);
  const api::ObjectKey key{api::Kind::etcd, config_.leaseNamespace, config_.etcdName};
  api_->request(
      env, api_->new_context(), api::Verb::get, key, nullptr,
      [this](Env& e, const api::Response& response) {
        // Not found: druid has not written a status yet (hasim creates the Etcd
        // object with druid's first status write); its clusterSize is in the view.
        if (!api::is_success(response.status) && response.status != api::Status::not_found) {
          return finish_init(e, false, "cannot read the Etcd's status");
        }
        const EtcdStatusView status = config_.etcdStatus();
        read_snapstore(e, [this, status](Env& e2, const SnapstoreView& store) {
          proposal_decide(e2, status, store);
        });
      });
}

void BackupRestore::proposal_decide(Env& env, const EtcdStatusView& status,
                                    const SnapstoreView& store) {
  if (store.configured && !store.readable) {
    return finish_init(env, false, "the backup store cannot be listed");
  }
  P::InitObservation obs;
  obs.cluster_size = status.clusterSize;
  for (const EtcdStatusView::Member& m : status.members) {
    ++obs.members_total;
    obs.members_ready += m.ready ? 1 : 0;
    obs.status_has_self = obs.status_has_self || m.name == config_.pod->pod;
  }
  obs.wal_has_metadata = has_wal(env);
  obs.data_valid = obs.status_has_self && obs.wal_has_metadata &&
                   validate_data_dir(env, store) == sidecar::DataDirStatus::DataDirectoryValid;
  obs.backup_exists = store.configured && !store.empty;
  obs.backup_has_incrementals = obs.backup_exists && store.has_deltas;
  const bool scale_up = P::scale_up_member(obs);
  const P::InitAction action = scale_up ? P::scale_up_join(obs) : P::decide(obs);
  // The wrapper asks again every 2 s while Initialize fails: only a changed decision is traced.
  const std::string name = scale_up ? "scale-up-member" : std::string(P::name(action.from));
  const std::string seen = name + "/" + std::to_string(obs.members_total) + "/" +
                           std::to_string(obs.members_ready) + "/" +
                           std::to_string(obs.cluster_size);
  if (seen != lastInitCase_) {
    lastInitCase_ = seen;
    env.trace(trace_kind::kInitCase,
              {{"pod", config_.pod->pod},
               {"case", std::int64_t{P::seed_case_number(action.from)}},
               {"name", name},
               {"members", std::int64_t{obs.members_total}},
               {"ready", std::int64_t{obs.members_ready}},
               {"data", action.reuse_previous_config ? "reuse" : std::string(P::name(action.data))},
               {"state", action.reuse_previous_config
                             ? "reuse"
                             : std::string(P::name(action.initial_cluster_state))}});
  }
  proposal_act(env, action);
}

void BackupRestore::proposal_act(Env& env, const P::InitAction& action) {
  if (action.fail) return finish_init(env, false, "no row of the initialization table");
  proposalInitialCluster_ = 0;
  if (action.reuse_previous_config) {
    // The WAL holds the membership: etcd ignores initial-cluster-state on it.
    proposalState_ = proposalState_.value_or(sidecar::ClusterState::Existing);
    return finish_init(env, true, "existing data");
  }
  proposalState_ = action.initial_cluster_state == P::InitialClusterState::New
                       ? sidecar::ClusterState::New
                       : sidecar::ClusterState::Existing;
  if (action.remove_self) return remove_self(env, sidecar::default_backoff());  // then a learner
  if (action.add_self) return add_learner(env, sidecar::add_learner_backoff(), false);
  if (action.single_member_bootstrap && action.data == P::DataPreparation::RestoreFull) {
    fullSnapshotOwed_ = action.upload_full_snapshot;
    return restore_from_store(env);
  }
  wipe_data_dir(env);
  if (action.single_member_bootstrap) {
    proposalInitialCluster_ = 1;
    return finish_init(env, true, "one-member cluster on empty data");
  }
  // Cases 1 and 2: nothing persisted, nothing to prepare.
  HASIM_ASSERT(action.data != P::DataPreparation::RestoreFull);
  return finish_init(env, true, "fresh start");
}

// The leading sidecar, each poll: a member whose pod ordinal is at or beyond the ConfigMap's
// initial-cluster (a scale-down's leftover, druid case 12) is removed from etcd. Members are
// named after their pods ("etcd-main-3").
void BackupRestore::remove_superfluous(Env& env) {
  const int size = mounted_cluster_size();
  auto list = [](std::uint64_t id) { return member_request(etcd::MemberOp::list, 0, id); };
  call(env, list, pick_endpoint(env), [this, size](Env& e, const Answer& members) {
    if (!members.ok) return;
    const std::string prefix = config_.etcdName + "-";
    for (const etcd::MemberInfo& m : members.members) {
      if (m.name.rfind(prefix, 0) != 0) continue;
      if (std::stoi(m.name.substr(prefix.size())) < size) continue;
      const raft::PeerId id = m.id;
      auto remove = [id](std::uint64_t cid) {
        return member_request(etcd::MemberOp::remove, id, cid);
      };
      call(e, remove, pick_endpoint(e), [this, id](Env& e2, const Answer& a) {
        e2.trace(trace_kind::kMemberCall, {{"pod", config_.pod->pod},
                                           {"call", "member-remove-superfluous"},
                                           {"member", static_cast<std::int64_t>(id)},
                                           {"outcome", a.ok ? std::string("Removed") : a.error}});
      });
      return;  // one at a time: the next poll removes the next
    }
  });
}

}  // namespace hasim::druid
