#include "models/druid/etcd_wrapper.hpp"

#include <utility>

#include "models/druid/trace_kinds.hpp"
#include "models/etcd/kv_api.hpp"
#include "sim/assert.hpp"

namespace hasim::druid {

std::string_view name(InitStatus status) {
  switch (status) {
    case InitStatus::New:
      return "New";
    case InitStatus::Progress:
      return "Progress";
    case InitStatus::Successful:
      return "Successful";
    case InitStatus::Failed:
      return "Failed";
  }
  HASIM_ASSERT(false && "unknown value");
  return {};
}

std::string_view name(ValidationMode mode) {
  return mode == ValidationMode::sanity ? "sanity" : "full";
}

EtcdWrapper::EtcdWrapper(EtcdWrapperConfig config) : config_(std::move(config)) {
  HASIM_ASSERT(config_.pod != nullptr);
}

EtcdWrapper::~EtcdWrapper() = default;

void EtcdWrapper::on_start(Env& env) {
  HASIM_ASSERT(env.self() == config_.pod->etcd);
  tags_ = env.tag_space("etcd-wrapper");
  config_.pod->etcdReady = false;  // a new container answers /readyz only once it has asked
  // app.Start: the readiness query runs from the start, before etcd does (it fails until
  // then); the initializer's loop runs first in Setup, so here both start together.
  query_ready(env);
  poll(env);
}

// One turn of initializer.Run's loop: GET the status, then sleep a second.
void EtcdWrapper::poll(Env& env) {
  HASIM_ASSERT(member_ == nullptr);
  env.send(config_.pod->backupRestore, std::make_shared<InitStatusRequest>());
  env.set_timer(kInitPollInterval, tags_.tag(kPoll));
}

void EtcdWrapper::on_status(Env& env, InitStatus status) {
  status_ = status;
  if (status != InitStatus::New) return;
  // A signal captured at the last exit means a clean stop: a sanity check suffices.
  const bool signalled = !env.read(etcd::EtcdMember::kVolume, kExitCodeFile).empty();
  auto start = std::make_shared<InitStartRequest>();
  start->mode = signalled ? ValidationMode::sanity : ValidationMode::full;
  env.send(config_.pod->backupRestore, std::move(start));
}

void EtcdWrapper::ask_config(Env& env) {
  HASIM_ASSERT(configAttempts_ < kConfigAttempts);
  ++configAttempts_;
  env.send(config_.pod->backupRestore, std::make_shared<EtcdConfigRequest>());
  env.set_timer(kInitPollInterval, tags_.tag(kConfigRetry));
}

void EtcdWrapper::start_etcd(Env& env, const EtcdConfigResponse& answer) {
  HASIM_ASSERT(member_ == nullptr && answer.member_id > 0);
  etcd::EtcdConfig config = config_.etcd;
  config.name = config_.pod->pod;  // --name: druid's etcd config names a member by its pod
  // etcd refuses to bootstrap a member again (isMemberBootstrapped) on an empty data dir.
  config.dataDirLost = !has_etcd_data(env);
  // A fresh bootstrap takes --initial-cluster from the ConfigMap as it is now, which differs
  // from the cluster hasim built when the Etcd was created or woken at another size.
  const bool fresh = answer.state == sidecar::ClusterState::New && config.dataDirLost;
  const int size = answer.initial_cluster_size > 0 ? answer.initial_cluster_size
                   : config_.clusterSize           ? config_.clusterSize()
                                                   : static_cast<int>(config.members.size());
  if (fresh && size != static_cast<int>(config.members.size()) &&
      !widen_initial_cluster(env, config, answer.member_id, size)) {
    return env.exit(1);
  }
  env.trace(trace_kind::kEtcdStart, {{"pod", config_.pod->pod},
                                     {"member", static_cast<std::int64_t>(answer.member_id)},
                                     {"state", std::string(sidecar::name(answer.state))}});
  member_ = std::make_unique<etcd::EtcdMember>(std::move(config), answer.member_id);
  member_->on_start(env);
  if (config_.autoCompactionRetention) {
    // etcdserver NewServer: the compactor's Run starts with the server.
    compactor_.emplace(*config_.autoCompactionRetention, env.now(),
                       member_->kv().store().current_revision());
    env.set_timer(compactor_->retry_interval(), tags_.tag(kCompactor));
  }
}

// One turn of periodic.go's loop. It runs only while this member leads (updateLeadership
// pauses it on a follower); a compaction is etcd's own Compact, through raft.
void EtcdWrapper::compactor_wake(Env& env) {
  HASIM_ASSERT(member_ != nullptr && compactor_.has_value() && compactCall_ == 0);
  const etcd::KvStatus status = member_->kv().status();
  const bool leader = status.leader != 0 && status.leader == status.member_id;
  const std::int64_t revision = member_->kv().store().current_revision();
  const auto target = compactor_->wake(env.now(), revision, !leader);
  if (!target) return (void)env.set_timer(compactor_->retry_interval(), tags_.tag(kCompactor));
  auto compact = std::make_shared<etcd::KvRequest>();
  // Far above the readiness queries' ids (1 << 40 + n).
  compactCall_ = (std::uint64_t{1} << 41) + static_cast<std::uint64_t>(*target);
  compactRevision_ = *target;
  compact->client_id = compactCall_;
  compact->op = etcd::KvOp::compact;
  compact->compaction.revision = *target;
  env.send(env.self(), std::move(compact));
}

void EtcdWrapper::compactor_answer(Env& env, const etcd::KvResponse& response) {
  HASIM_ASSERT(compactor_.has_value() && response.client_id == compactCall_);
  compactCall_ = 0;
  // err == nil or ErrCompacted: done.
  const bool ok = response.ok() || response.error.find("compacted") != std::string::npos;
  env.trace(trace_kind::kAutoCompaction,
            {{"pod", config_.pod->pod},
             {"revision", compactRevision_},
             {"outcome", ok ? std::string("completed") : response.error}});
  compactor_->compacted(env.now(), compactRevision_, ok, member_->kv().store().current_revision());
  env.set_timer(compactor_->retry_interval(), tags_.tag(kCompactor));
}

// A new cluster of the ConfigMap's size (etcd's --initial-cluster): its members are the first
// ordinals, each with ID ordinal + 1 as the sidecar serves them (more or fewer than built). hasim
// numbers an added member's ID after every ID in use, so a bootstrap ID may already be another
// pod's; etcd's hashed IDs never collide, so hasim refuses that start (traced) rather than confuse
// two.
bool EtcdWrapper::widen_initial_cluster(Env& env, etcd::EtcdConfig& config, raft::PeerId id,
                                        int size) {
  HASIM_ASSERT(config.directory != nullptr);
  HASIM_ASSERT(config_.ordinalEtcds.size() == config_.ordinalNames.size());
  const bool fits = size >= 0 && static_cast<std::size_t>(size) <= config_.ordinalEtcds.size() &&
                    id <= static_cast<raft::PeerId>(size);
  for (std::size_t ordinal = 0; fits && ordinal < static_cast<std::size_t>(size); ++ordinal) {
    const auto taken = config.directory->address(ordinal + 1);
    if (taken.has_value() && *taken != config_.ordinalEtcds[ordinal]) {
      env.trace(trace_kind::kEtcdConfigFailed,
                {{"pod", config_.pod->pod},
                 {"why", "bootstrap member " + std::to_string(ordinal + 1) +
                             " is another pod's ID in hasim"}});
      return false;
    }
  }
  if (!fits) {
    env.trace(trace_kind::kEtcdConfigFailed,
              {{"pod", config_.pod->pod},
               {"why", "member " + std::to_string(id) + " is not in the initial-cluster"}});
    return false;
  }
  config.members.assign(config_.ordinalNames.begin(), config_.ordinalNames.begin() + size);
  for (std::size_t ordinal = 0; ordinal < static_cast<std::size_t>(size); ++ordinal) {
    if (!config.directory->address(ordinal + 1)) {
      config.directory->set_address(ordinal + 1, config_.ordinalEtcds[ordinal]);
    }
  }
  return true;
}

void EtcdWrapper::query_ready(Env& env) {
  HASIM_ASSERT(readyQuery_ == 0);
  auto get = std::make_shared<etcd::KvRequest>();
  // The wrapper's own client ids, far above the sidecar's and etcdctl's.
  readyQuery_ = (std::uint64_t{1} << 40) + ++readyQueries_;
  get->client_id = readyQuery_;
  get->op = etcd::KvOp::range;
  get->range.key = "foo";  // readycheck.go: a linearizable Get of "foo"
  env.send(env.self(), std::move(get));
  readyTimeout_ = env.set_timer(kReadyQueryTimeout, tags_.tag(kReadyTimeout));
  env.set_timer(kReadyQueryInterval, tags_.tag(kReadyQuery));
}

void EtcdWrapper::ready_answer(Env& env, bool ok) {
  HASIM_ASSERT(readyQuery_ != 0);
  readyQuery_ = 0;
  if (readyTimeout_) env.cancel_timer(*readyTimeout_);
  readyTimeout_.reset();
  if (config_.pod->etcdReady == ok) return;
  config_.pod->etcdReady = ok;
  env.trace(trace_kind::kEtcdReadyz, {{"pod", config_.pod->pod}, {"ready", ok ? "true" : "false"}});
}

bool has_etcd_data(const Env& env) {
  for (const std::string& file : env.files(etcd::EtcdMember::kVolume)) {
    if (file != kExitCodeFile) return true;
  }
  return false;
}

bool EtcdWrapper::is_mine(const MessageBody& body) const {
  const auto* response = message_as<etcd::KvResponse>(body);
  return response != nullptr && readyQuery_ != 0 && response->client_id == readyQuery_;
}

void EtcdWrapper::on_message(Env& env, ProcessId from, const Message& message) {
  const MessageBody& body = *message;
  if (from == config_.pod->backupRestore) {
    if (const auto* status = message_as<InitStatusResponse>(body)) {
      if (member_ == nullptr) on_status(env, status->status);
      return;
    }
    if (const auto* answer = message_as<EtcdConfigResponse>(body)) {
      if (member_ == nullptr && status_ == InitStatus::Successful) start_etcd(env, *answer);
      return;
    }
  }
  if (is_mine(body)) return ready_answer(env, message_as<etcd::KvResponse>(body)->ok());
  if (const auto* kv = message_as<etcd::KvResponse>(body);
      kv != nullptr && compactCall_ != 0 && kv->client_id == compactCall_) {
    return compactor_answer(env, *kv);
  }
  // A GET of "foo" before etcd runs: refused at once, as a dial to a closed port.
  if (from == env.self() && member_ == nullptr) {
    if (message_as<etcd::KvRequest>(body) != nullptr) ready_answer(env, false);
    return;
  }
  if (member_ != nullptr) member_->on_message(env, from, message);
}

void EtcdWrapper::on_timer(Env& env, TimerId timer, std::uint64_t tag) {
  if (!tags_.owns(tag)) {
    HASIM_ASSERT(member_ != nullptr);
    return member_->on_timer(env, timer, tag);
  }
  switch (tags_.local(tag)) {
    case kPoll:
      if (status_ == InitStatus::Successful) return ask_config(env);
      return poll(env);
    case kConfigRetry:
      if (member_ != nullptr) return;
      if (configAttempts_ < kConfigAttempts) return ask_config(env);
      // tryGetEtcdConfig gave up: Setup fails and the container exits non-zero.
      env.trace(trace_kind::kEtcdConfigFailed, {{"pod", config_.pod->pod}});
      return env.exit(1);
    case kReadyQuery:
      // The ticker fires every 2 s; a query still waiting keeps the next one back.
      if (readyQuery_ == 0)
        query_ready(env);
      else
        env.set_timer(kReadyQueryInterval, tags_.tag(kReadyQuery));
      return;
    case kReadyTimeout:
      readyTimeout_.reset();
      return ready_answer(env, false);
    case kCompactor:
      return compactor_wake(env);
  }
  HASIM_ASSERT(false && "a timer the wrapper never set");
}

void EtcdWrapper::on_io(Env& env, const IoCompletion& io) {
  if (tags_.owns(io.tag)) {
    // The exit-code file is written: etcd stops now.
    if (member_ != nullptr) return member_->on_terminate(env);
    return env.exit(0);
  }
  HASIM_ASSERT(member_ != nullptr);
  member_->on_io(env, io);
}

void EtcdWrapper::on_terminate(Env& env) {
  // signal.go: the captured signal is written to the exit-code file before etcd closes.
  env.append(etcd::EtcdMember::kVolume, kExitCodeFile, "terminated", tags_.tag(kPoll));
}

}  // namespace hasim::druid
