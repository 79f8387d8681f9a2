#include "models/election/multi_lock.hpp"

#include "sim/assert.hpp"

namespace hasim::election {

MultiLock::MultiLock(std::unique_ptr<ResourceLock> primary, std::unique_ptr<ResourceLock> secondary)
    : primary_(std::move(primary)), secondary_(std::move(secondary)) {
  HASIM_ASSERT(primary_ != nullptr && secondary_ != nullptr);
}

void MultiLock::get(Env& env, ContextId context, GetDone done) {
  primary_->get(env, context, [this, context, done](Env& e, const LockGetResult& primary) {
    if (primary.status != Status::ok) return done(e, primary);
    secondary_->get(e, context, [this, primary, done](Env& e2, const LockGetResult& secondary) {
      if (secondary.status == Status::not_found &&
          primary.record.holderIdentity != primary_->identity()) {
        return done(e2, primary);  // an old client holds the primary lock
      }
      if (secondary.status != Status::ok) return done(e2, LockGetResult{secondary.status, {}, {}});
      LockGetResult merged = primary;
      if (primary.record.holderIdentity != secondary.record.holderIdentity) {
        merged.record.holderIdentity = std::string(kUnknownLeader);
      }
      merged.raw = raw_bytes(primary) + "," + raw_bytes(secondary);  // ConcatRawRecord
      merged.raw_is_marshal = false;
      done(e2, merged);
    });
  });
}

void MultiLock::create(Env& env, ContextId context, const LeaderElectionRecord& record, Done done) {
  primary_->create(env, context, record, [this, context, record, done](Env& e, Status status) {
    if (!api::is_success(status) && status != Status::already_exists) return done(e, status);
    secondary_->create(e, context, record, done);
  });
}

void MultiLock::update(Env& env, ContextId context, const LeaderElectionRecord& record, Done done) {
  primary_->update(env, context, record, [this, context, record, done](Env& e, Status status) {
    if (!api::is_success(status)) return done(e, status);
    secondary_->get(e, context, [this, context, record, done](Env& e2, const LockGetResult& got) {
      if (got.status == Status::not_found) return secondary_->create(e2, context, record, done);
      if (got.status != Status::ok) return done(e2, got.status);
      secondary_->update(e2, context, record, done);
    });
  });
}

void MultiLock::record_event(Env& env, std::string_view message) {
  primary_->record_event(env, message);
  secondary_->record_event(env, message);
}

}  // namespace hasim::election
