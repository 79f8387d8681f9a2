// The sidecar's membership calls (pkg/member/member_control.go), its member-lease heartbeat
// (pkg/health/heartbeat/heartbeat.go) and the leading-sidecar loop with learner promotion
// (pkg/leaderelection/leaderelection.go, pkg/miscellaneous DoPromoteMember).
#include <string>
#include <utility>

#include "models/druid/backup_restore.hpp"
#include "models/druid/sidecar_heartbeat.hpp"
#include "models/druid/trace_kinds.hpp"
#include "models/etcd/kv_api.hpp"
#include "sim/assert.hpp"

namespace hasim::druid {

std::shared_ptr<MessageBody> member_request(etcd::MemberOp op, raft::PeerId target,
                                            std::uint64_t id) {
  auto request = std::make_shared<etcd::MemberRequest>(op, target, nullptr);
  request->client_id = id;
  return request;
}

namespace {

const etcd::MemberInfo* find_member(const std::vector<etcd::MemberInfo>& members,
                                    const std::string& name) {
  for (const etcd::MemberInfo& m : members) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

}  // namespace

// IsMemberInCluster: probe etcd through the Service, then list its members, each with
// retries; Unreadable when either never answered.
void BackupRestore::member_presence(Env& env,
                                    std::function<void(Env&, sidecar::MemberListRead)> done) {
  auto probe = [](std::uint64_t id) {
    auto get = std::make_shared<etcd::KvRequest>();
    get->client_id = id;
    get->range.key = "foo";
    return get;
  };
  call_with_retry(
      env, probe, false, sidecar::member_presence_backoff(),
      [this, done](Env& e, const Answer& probed) {
        if (!probed.ok) return done(e, sidecar::MemberListRead::Unreadable);
        call_with_retry(
            e, [](std::uint64_t id) { return member_request(etcd::MemberOp::list, 0, id); }, false,
            sidecar::member_presence_backoff(),
            [this, done](Env& e2, const Answer& list) {
              if (!list.ok) return done(e2, sidecar::MemberListRead::Unreadable);
              const bool present = find_member(list.members, config_.pod->pod) != nullptr;
              done(e2,
                   present ? sidecar::MemberListRead::Present : sidecar::MemberListRead::Absent);
            });
      });
}

void BackupRestore::read_member_lease(Env& env,
                                      std::function<void(Env&, sidecar::MemberLeaseRead)> done) {
  const api::ObjectKey key{api::Kind::lease, config_.leaseNamespace, config_.pod->pod};
  api_->request(
      env, api_->new_context(), api::Verb::get, key, nullptr,
      [done](Env& e, const api::Response& response) {
        if (!api::is_success(response.status) || response.object == nullptr) {
          return done(e, sidecar::MemberLeaseRead::Unreadable);
        }
        const bool set = response.object->lease.holderIdentity.has_value();
        done(e, set ? sidecar::MemberLeaseRead::HolderSet : sidecar::MemberLeaseRead::HolderNil);
      });
}

// AddLearnerWithRetry (scale-up) or restoreInMultiNode's add (repair): every attempt wipes
// the data directory, then asks to add this pod as a learner. The ID is chosen once, so a
// retry after a lost answer finds it added ("ID exists" counts as done, as upstream's
// ErrMemberExists / ErrPeerURLExist do).
void BackupRestore::add_learner(Env& env, sidecar::Backoff backoff, bool repair) {
  etcd::MemberDirectory& directory = *config_.directory;
  const raft::PeerId id = directory.next_member_id();
  directory.set_address(id, config_.pod->etcd);
  add_learner_attempt(env, id, backoff, repair);
}

void BackupRestore::add_learner_attempt(Env& env, raft::PeerId id, sidecar::Backoff backoff,
                                        bool repair) {
  wipe_data_dir(env);
  auto request = [id](std::uint64_t cid) {
    return member_request(etcd::MemberOp::add_learner, id, cid);
  };
  call(env, request, pick_endpoint(env), [this, id, repair, backoff](Env& e, const Answer& a) {
    sidecar::AddLearnerOutcome outcome = sidecar::AddLearnerOutcome::OtherError;
    if (a.ok) {
      outcome = sidecar::AddLearnerOutcome::Added;
    } else if (contains(a.error, etcd::member_error::kIDExists)) {
      outcome = sidecar::AddLearnerOutcome::MemberExists;
    } else if (contains(a.error, etcd::member_error::kTooManyLearners)) {
      outcome = sidecar::AddLearnerOutcome::TooManyLearners;
    }
    const sidecar::AddLearnerStep step = repair ? sidecar::repair_add_learner_step(backoff, outcome)
                                                : sidecar::add_learner_step(backoff, outcome);
    e.trace(trace_kind::kMemberCall, {{"pod", config_.pod->pod},
                                      {"call", "member-add-learner"},
                                      {"member", static_cast<std::int64_t>(id)},
                                      {"outcome", std::string(sidecar::name(outcome))},
                                      {"verdict", std::string(sidecar::name(step.verdict))}});
    if (step.verdict == sidecar::RetryVerdict::Done) {
      // etcd keeps its ID in the WAL; the learner's first start reads it back.
      e.append(etcd::EtcdMember::kVolume, kMemberIdFile, std::to_string(id),
               tags_.tag(local_tag(kFileWritten, 0)));
      afterSync_ = [this](Env& e2) { finish_init(e2, true, "added as learner"); };
      return;
    }
    if (step.verdict == sidecar::RetryVerdict::GiveUp) {
      if (!repair) return e.exit(1);  // logger.Fatalf in Initialize
      return finish_init(e, false, "add learner failed");
    }
    sleep_then(e, step.wait, [this, id, repair, next = step.next](Env& e2) {
      add_learner_attempt(e2, id, next, repair);
    });
  });
}

// restoreInMultiNode: remove this member (found by name in the list), wipe, add as learner.
void BackupRestore::remove_self(Env& env, sidecar::Backoff backoff) {
  call(
      env, [](std::uint64_t id) { return member_request(etcd::MemberOp::list, 0, id); },
      pick_endpoint(env),
      [this, backoff](Env& e, const Answer& list) {
        sidecar::RemoveOutcome outcome = sidecar::RemoveOutcome::ListError;
        const etcd::MemberInfo* self =
            list.ok ? find_member(list.members, config_.pod->pod) : nullptr;
        if (list.ok && self == nullptr) outcome = sidecar::RemoveOutcome::NotListed;
        auto next = [this, backoff](Env& e2, sidecar::RemoveOutcome o) {
          const sidecar::AddLearnerStep step = sidecar::remove_member_step(backoff, o);
          if (step.verdict == sidecar::RetryVerdict::Done) {
            return add_learner(e2, sidecar::default_backoff(), true);
          }
          if (step.verdict == sidecar::RetryVerdict::GiveUp) {
            return finish_init(e2, false, "member remove failed");
          }
          sleep_then(e2, step.wait, [this, n = step.next](Env& e3) { remove_self(e3, n); });
        };
        if (self == nullptr) return next(e, outcome);
        const raft::PeerId id = self->id;
        call(
            e, [id](std::uint64_t cid) { return member_request(etcd::MemberOp::remove, id, cid); },
            pick_endpoint(e),
            [this, id, next](Env& e2, const Answer& a) {
              const auto o =
                  a.ok ? sidecar::RemoveOutcome::Removed : sidecar::RemoveOutcome::RemoveError;
              e2.trace(trace_kind::kMemberCall,
                       {{"pod", config_.pod->pod},
                        {"call", "member-remove"},
                        {"member", static_cast<std::int64_t>(id)},
                        {"outcome", a.ok ? std::string("Removed") : a.error}});
              next(e2, o);
            },
            kEtcdConnectionTimeout);
      },
      kEtcdConnectionTimeout);
}

}  // namespace hasim::druid
