// The sidecar's periodic work: the member-lease heartbeat (pkg/health/heartbeat/heartbeat.go
// RenewMemberLease) and the leading-sidecar loop (pkg/leaderelection/leaderelection.go) with
// its promote callback (pkg/miscellaneous DoPromoteMember); and the timer and disk plumbing.
#include <string>
#include <utility>

#include "models/druid/backup_restore.hpp"
#include "models/druid/sidecar_heartbeat.hpp"
#include "models/druid/trace_kinds.hpp"
#include "models/etcd/kv_api.hpp"
#include "sim/assert.hpp"

namespace hasim::druid {

// One renewal: Status from the local etcd, then the Lease's holderIdentity and renewTime.
// Failures are only logged; the next renewal is a period after this attempt ended.
void BackupRestore::heartbeat(Env& env) {
  const std::uint64_t generation = renewalGeneration_;
  call(env, status_request, config_.pod->etcd, [this, generation](Env& e, const Answer& status) {
    if (generation != renewalGeneration_) return;  // renewal was stopped meanwhile
    if (!status.ok) return schedule_heartbeat(e);
    write_lease(e, status);
  });
}

void BackupRestore::schedule_heartbeat(Env& env) {
  env.set_timer(config_.heartbeatInterval, tags_.tag(local_tag(kHeartbeat, renewalGeneration_)));
}

void BackupRestore::write_lease(Env& env, const Answer& status) {
  const api::ObjectKey key{api::Kind::lease, config_.leaseNamespace, config_.pod->pod};
  const std::string holder = sidecar::member_lease_holder_identity(
      status.status.member_id, status.status.cluster_id, status.status.leader);
  const std::uint64_t generation = renewalGeneration_;
  api_->request(env, api_->new_context(), api::Verb::get, key, nullptr,
                [this, key, holder, generation](Env& e, const api::Response& got) {
                  if (generation != renewalGeneration_) return;
                  if (!api::is_success(got.status) || got.object == nullptr) {
                    return schedule_heartbeat(e);
                  }
                  auto lease = std::make_shared<api::Object>(*got.object);
                  lease->lease.holderIdentity = holder;
                  lease->lease.renewTime = api::micro_time(e.now());
                  api_->request(e, api_->new_context(), api::Verb::update, key, std::move(lease),
                                [this, generation](Env& e2, const api::Response&) {
                                  if (generation == renewalGeneration_) schedule_heartbeat(e2);
                                });
                });
}

// One poll of the leading-sidecar loop; the next is a reelection period after it ends.
void BackupRestore::leading_poll(Env& env) {
  call(env, status_request, config_.pod->etcd, [this](Env& e, const Answer& answer) {
    sidecar::StatusResponse response;
    response.ok = answer.ok;
    response.member_id = answer.status.member_id;
    response.leader = answer.status.leader;
    response.is_learner = answer.status.is_learner;
    const sidecar::LeadingStep step = sidecar::leading_transition(
        leading_, sidecar::etcd_member_status(response), originalClusterSize_);
    if (step.next != leading_) {
      e.trace(trace_kind::kLeading,
              {{"pod", config_.pod->pod}, {"state", std::string(sidecar::name(step.next))}});
    }
    leading_ = step.next;
    if (step.effects.stop_lease_renewal && leaseRenewal_) {
      leaseRenewal_ = false;
      ++renewalGeneration_;
    }
    if (step.effects.start_lease_renewal && !leaseRenewal_) {
      leaseRenewal_ = true;
      ++renewalGeneration_;
      schedule_heartbeat(e);
    }
    if (step.effects.stopped_leading) stop_snapshotter(e);
    if (step.effects.started_leading) start_snapshotter(e);
    if (leading_ == sidecar::LeadingState::Leader && config_.mode == DruidMode::proposal) {
      remove_superfluous(e);
    }
    if (step.effects.promote) return promote(e);
    e.set_timer(config_.reelectionPeriod, tags_.tag(local_tag(kLeading, 0)));
  });
}

// PromoteMember: find this member by name in the list, then MemberPromote. Anything but
// success or "not a learner" is logged; the next poll tries again.
void BackupRestore::promote(Env& env) {
  auto next_poll = [this](Env& e) {
    e.set_timer(config_.reelectionPeriod, tags_.tag(local_tag(kLeading, 0)));
  };
  auto list = [](std::uint64_t id) {
    auto request = std::make_shared<etcd::MemberRequest>(etcd::MemberOp::list, 0, nullptr);
    request->client_id = id;
    return request;
  };
  call(env, list, pick_endpoint(env), [this, next_poll](Env& e, const Answer& members) {
    raft::PeerId self = 0;
    for (const etcd::MemberInfo& m : members.members) {
      if (m.name == config_.pod->pod) self = m.id;
    }
    if (!members.ok || self == 0) return next_poll(e);
    auto promote = [self](std::uint64_t id) {
      auto request = std::make_shared<etcd::MemberRequest>(etcd::MemberOp::promote, self, nullptr);
      request->client_id = id;
      return request;
    };
    call(e, promote, pick_endpoint(e), [this, self, next_poll](Env& e2, const Answer& a) {
      e2.trace(trace_kind::kMemberCall, {{"pod", config_.pod->pod},
                                         {"call", "member-promote"},
                                         {"member", static_cast<std::int64_t>(self)},
                                         {"outcome", a.ok ? std::string("Promoted") : a.error}});
      next_poll(e2);
    });
  });
}

void BackupRestore::on_timer(Env& env, TimerId, std::uint64_t tag) {
  if (api_ != nullptr && api_->on_timer(env, tag)) return;
  HASIM_ASSERT(tags_.owns(tag));
  const std::uint64_t local = tags_.local(tag);
  const std::uint64_t kind = local >> kTagKindShift;
  const std::uint64_t seq = local & ((std::uint64_t{1} << kTagKindShift) - 1);
  switch (kind) {
    case kCallTimeout: {
      Answer timedOut;
      timedOut.error = "context deadline exceeded";
      return answer(env, seq, timedOut);
    }
    case kRetry: {
      auto it = sleeps_.find(seq);
      HASIM_ASSERT(it != sleeps_.end());
      auto then = std::move(it->second);
      sleeps_.erase(it);
      return then(env);
    }
    case kHeartbeat:
      if (seq == renewalGeneration_ && leaseRenewal_) heartbeat(env);
      return;
    case kLeading:
      return leading_poll(env);
  }
  HASIM_ASSERT(false && "a timer the sidecar never set");
}

void BackupRestore::on_io(Env& env, const IoCompletion& io) {
  HASIM_ASSERT(tags_.owns(io.tag));
  if ((tags_.local(io.tag) >> kTagKindShift) == kRestoreIo) return restore_io_done(env);
  HASIM_ASSERT(afterSync_ != nullptr);
  if (io.op == IoOp::append) {
    env.fsync(etcd::EtcdMember::kVolume, kMemberIdFile, io.tag);
    return;
  }
  auto then = std::move(afterSync_);
  afterSync_ = nullptr;
  then(env);
}

}  // namespace hasim::druid
