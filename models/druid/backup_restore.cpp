// etcd-backup-restore's HTTP server (pkg/server/httpAPI.go) and Initialize
// (pkg/initializer/initializer.go) as the etcd container's wrapper drives them.
#include "models/druid/backup_restore.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "models/druid/sidecar_validator.hpp"
#include "models/druid/trace_kinds.hpp"
#include "models/etcd/kv_api.hpp"
#include "sim/assert.hpp"

namespace hasim::druid {

BackupRestore::BackupRestore(BackupRestoreConfig config) : config_(std::move(config)) {
  HASIM_ASSERT(config_.pod != nullptr && config_.directory != nullptr);
  HASIM_ASSERT(config_.serviceEndpoints != nullptr && config_.clusterSize != nullptr);
}

// A hibernated Etcd's ConfigMap lists no member (initial-cluster is empty), and no pod of it
// runs then; a container that still starts reads it as one member.
int BackupRestore::mounted_cluster_size() const {
  const int size = std::max(1, config_.clusterSize());
  HASIM_ASSERT(size >= 1);
  return size;
}

BackupRestore::~BackupRestore() = default;

void BackupRestore::on_start(Env& env) {
  HASIM_ASSERT(env.self() == config_.pod->backupRestore);
  tags_ = env.tag_space("backup-restore");
  config_.apiserver.timer_tags = env.tag_space("api-client");
  api_ = std::make_unique<api::ApiClient>(config_.apiserver);
  originalClusterSize_ = mounted_cluster_size();
  // runServer: member-lease renewal runs from the start, then the leading-sidecar loop.
  schedule_heartbeat(env);
  env.set_timer(config_.reelectionPeriod, tags_.tag(local_tag(kLeading, 0)));
}

// serveInitializationStatus: a finished status is served once, then reads New again.
void BackupRestore::serve_status(Env& env) {
  auto response = std::make_shared<InitStatusResponse>();
  response->status = status_;
  env.send(config_.pod->etcd, std::move(response));
  if (status_ == InitStatus::Successful || status_ == InitStatus::Failed) status_ = InitStatus::New;
}

// serveConfig: the ID etcd starts with, and getClusterState's answer.
void BackupRestore::serve_config(Env& env) {
  auto reply = [this](Env& e, sidecar::ClusterState state) {
    auto response = std::make_shared<EtcdConfigResponse>();
    response->member_id = configured_member_id(e);
    response->state = state;
    e.send(config_.pod->etcd, std::move(response));
  };
  if (config_.mode == DruidMode::proposal) {
    auto response = std::make_shared<EtcdConfigResponse>();
    response->member_id = configured_member_id(env);
    response->state = proposalState_.value_or(sidecar::ClusterState::Existing);
    response->initial_cluster_size = proposalInitialCluster_;
    return env.send(config_.pod->etcd, std::move(response));
  }
  const int size = mounted_cluster_size();
  if (size == 1) {
    return reply(env, sidecar::get_cluster_state(1, sidecar::LearnerRead::Unreadable));
  }
  auto list = [](std::uint64_t id) {
    auto request = std::make_shared<etcd::MemberRequest>(etcd::MemberOp::list, 0, nullptr);
    request->client_id = id;
    return request;
  };
  // IsLearnerPresent: one MemberList; an error means "new" (getClusterState).
  call(
      env, list, pick_endpoint(env),
      [size, reply](Env& e, const Answer& answer) {
        sidecar::LearnerRead learner = sidecar::LearnerRead::Unreadable;
        if (answer.ok) {
          learner = sidecar::LearnerRead::Absent;
          for (const etcd::MemberInfo& m : answer.members) {
            if (m.is_learner) learner = sidecar::LearnerRead::Present;
          }
        }
        reply(e, sidecar::get_cluster_state(size, learner));
      },
      kEtcdConnectionTimeout);
}

void BackupRestore::initialize(Env& env, ValidationMode mode) {
  HASIM_ASSERT(!initializing_);
  initializing_ = true;
  // hasim's files never tear; a db that fails bbolt's check (druid-data-corrupt) is what only
  // the full validation finds.
  initMode_ = mode;
  if (!has_etcd_data(env)) config_.pod->dataCorrupt = false;  // the corrupt files are gone
  initClusterSize_ = mounted_cluster_size();
  if (config_.mode == DruidMode::proposal) return proposal_initialize(env);
  if (initClusterSize_ == 1) {
    return validate_and_decide(env, sidecar::MemberListRead::Unreadable,
                               sidecar::MemberLeaseRead::HolderNil);
  }
  member_presence(env, [this](Env& e, sidecar::MemberListRead list) { after_presence(e, list); });
}

// WasMemberInCluster: the member list when etcd answers, else the member Lease.
void BackupRestore::after_presence(Env& env, sidecar::MemberListRead list) {
  if (list != sidecar::MemberListRead::Unreadable) {
    return validate_and_decide(env, list, sidecar::MemberLeaseRead::HolderNil);
  }
  read_member_lease(env, [this, list](Env& e, sidecar::MemberLeaseRead lease) {
    validate_and_decide(e, list, lease);
  });
}

void BackupRestore::validate_and_decide(Env& env, sidecar::MemberListRead list,
                                        sidecar::MemberLeaseRead lease) {
  read_snapstore(env, [this, list, lease](Env& e, const SnapstoreView& store) {
    decide(e, list, lease, store);
  });
}

// Validate: the sanity check (the single-node revision check takes the db at the latest
// backup's revision: hasim's data directory never falls behind its own backups).
sidecar::DataDirStatus BackupRestore::validate_data_dir(Env& env,
                                                        const SnapstoreView& store) const {
  sidecar::SanityObservation sanity;
  sanity.data_dir = has_etcd_data(env) ? sidecar::PathStat::Exists : sidecar::PathStat::Missing;
  sanity.structure = sanity.data_dir;
  sanity.snapstore_configured = store.configured;
  sanity.original_cluster_size = initClusterSize_;
  sanity.snapstore = !store.readable ? sidecar::SnapstoreRevision::Unreadable
                     : store.empty   ? sidecar::SnapstoreRevision::NoSnapshots
                                     : sidecar::SnapstoreRevision::Found;
  sanity.latest_snapshot_revision = store.latest_revision;
  sanity.db_revision = store.latest_revision;
  sidecar::ValidationInput input;
  input.sanity = sidecar::sanity_check(sanity);
  input.original_cluster_size = initClusterSize_;
  input.backup_bucket_empty = !store.configured || store.empty;
  if (initMode_ == ValidationMode::full) {
    const bool corrupt = config_.pod->dataCorrupt && has_etcd_data(env);
    input.full_mode = corrupt ? sidecar::CorruptionCheck::Corrupt : sidecar::CorruptionCheck::Clean;
  }
  return sidecar::validate(input);
}

// Validate, then Initialize's decision.
void BackupRestore::decide(Env& env, sidecar::MemberListRead list, sidecar::MemberLeaseRead lease,
                           const SnapstoreView& store) {
  sidecar::InitObservation obs;
  obs.original_cluster_size = initClusterSize_;
  obs.member_list = list;
  // Upstream reads the list a second time for IsClusterScaledUp; one read serves both here.
  obs.member_list_scale_up_check = list;
  obs.member_lease = lease;
  obs.data_dir_status = validate_data_dir(env, store);
  obs.snapstore = !store.configured ? sidecar::SnapstoreRead::NotConfigured
                  : !store.readable ? sidecar::SnapstoreRead::Unreadable
                  : store.empty     ? sidecar::SnapstoreRead::Empty
                                    : sidecar::SnapstoreRead::HasSnapshots;
  obs.data_dir_exists = has_etcd_data(env);
  const sidecar::InitDecision decision = sidecar::decide_initialize(obs);
  env.trace(trace_kind::kInitDecision,
            {{"pod", config_.pod->pod},
             {"action", std::string(sidecar::name(decision.action))},
             {"data_dir", std::string(sidecar::name(obs.data_dir_status))},
             {"was_member", decision.member_heartbeat_present ? "true" : "false"}});
  act(env, decision);
}

void BackupRestore::act(Env& env, const sidecar::InitDecision& decision) {
  switch (decision.action) {
    case sidecar::InitAction::UseExistingData:
      return finish_init(env, true, "existing data");
    case sidecar::InitAction::FreshStart:
      if (decision.wipe_data_dir) wipe_data_dir(env);
      return finish_init(env, true, "fresh start");
    case sidecar::InitAction::ScaleUpAddLearner:
      return add_learner(env, sidecar::add_learner_backoff(), false);
    case sidecar::InitAction::MemberRepair:
      return remove_self(env, sidecar::default_backoff());
    case sidecar::InitAction::RestoreFromSnapshots:
      HASIM_ASSERT(config_.backup.has_value());
      return restore_from_store(env);
    case sidecar::InitAction::Fatal:
      return finish_init(env, false, sidecar::name(decision.fatal));
  }
}

void BackupRestore::finish_init(Env& env, bool ok, std::string_view why) {
  HASIM_ASSERT(initializing_);
  initializing_ = false;
  status_ = ok ? InitStatus::Successful : InitStatus::Failed;
  env.trace(trace_kind::kInitDone, {{"pod", config_.pod->pod},
                                    {"status", std::string(name(status_))},
                                    {"why", std::string(why)}});
}

// The data directory (<data-dir>, i.e. every file of etcd's) goes; the wrapper's exit-code
// file lives beside it and stays.
void BackupRestore::wipe_data_dir(Env& env) {
  config_.pod->dataCorrupt = false;
  for (const std::string& file : env.files(etcd::EtcdMember::kVolume)) {
    if (file != kExitCodeFile) env.remove(etcd::EtcdMember::kVolume, file);
  }
}

raft::PeerId BackupRestore::configured_member_id(Env& env) const {
  const std::vector<std::string>& records = env.read(etcd::EtcdMember::kVolume, kMemberIdFile);
  if (records.empty()) return static_cast<raft::PeerId>(config_.pod->ordinal) + 1;
  return std::stoull(records.back());
}

void BackupRestore::on_message(Env& env, ProcessId from, const Message& message) {
  const MessageBody& body = *message;
  if (api_ != nullptr && api_->on_message(env, message)) return;
  if (from == config_.pod->etcd) {
    if (message_as<InitStatusRequest>(body) != nullptr) return serve_status(env);
    if (const auto* start = message_as<InitStartRequest>(body)) {
      if (status_ != InitStatus::New || initializing_) return;
      status_ = InitStatus::Progress;
      return initialize(env, start->mode);
    }
    if (message_as<EtcdConfigRequest>(body) != nullptr) return serve_config(env);
  }
  Answer result;
  if (const auto* kv = message_as<etcd::KvResponse>(body)) {
    result.ok = kv->ok();
    result.error = kv->error;
    result.revision = kv->header.revision;
    result.backend = kv->snapshot;
    result.backendSize = kv->snapshot_size;
    return answer(env, kv->client_id, result);
  }
  if (const auto* watch = message_as<etcd::KvWatchResponse>(body)) return on_watch(env, *watch);
  if (const auto* store = message_as<SnapstoreResponse>(body)) {
    result.ok = true;
    result.listed = store->listed;
    return answer(env, store->client_id, result);
  }
  if (const auto* status = message_as<etcd::KvStatusResponse>(body)) {
    result.ok = true;
    result.status = status->status;
    return answer(env, status->client_id, result);
  }
  if (const auto* member = message_as<etcd::MemberResponse>(body)) {
    result.ok = member->ok;
    result.error = member->error;
    result.members = member->members;
    return answer(env, member->client_id, result);
  }
}

}  // namespace hasim::druid
