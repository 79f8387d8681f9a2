// The snapshot Leases (etcd-backup-restore pkg/health/heartbeat/heartbeat.go
// UpdateFullSnapshotLease, DeltaSnapshotCaseLeaseUpdate, UpdateDeltaSnapshotLease): druid
// creates both without a holder; the leading sidecar writes the latest snapshot's revision as
// holderIdentity, never a lower one, and renewTime, which druid's BackupReady judges.
// Upstream patches with an optimistic lock (the full Lease under RetryOnConflict); hasim
// updates at the resourceVersion it read, and a conflict is a failure like any other (the
// full Lease's loop tries again a minute later; a delta Lease waits for the next delta).
#include <charconv>
#include <string>
#include <utility>

#include "models/druid/backup_restore.hpp"
#include "sim/assert.hpp"

namespace hasim::druid {

namespace {

// holderIdentity's revision (strconv.ParseInt); nullopt when it is not a number.
std::optional<std::int64_t> holder_revision(const std::string& holder) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(holder.data(), holder.data() + holder.size(), value);
  if (ec != std::errc{} || end != holder.data() + holder.size()) return std::nullopt;
  return value;
}

}  // namespace

// renewTime is the full snapshot's creation time, not now; the holder is raised to its
// revision; a Lease that already names a later revision is left alone.
void BackupRestore::update_full_lease(Env& env, std::function<void(Env&, bool)> done) {
  HASIM_ASSERT(snap_.prevFull.has_value() && config_.backup.has_value());
  const std::int64_t revision = snap_.prevFull->last_revision;
  const LocalTime created = snap_.prevFull->created_on;
  const api::ObjectKey key{api::Kind::lease, config_.leaseNamespace,
                           config_.backup->fullSnapshotLease};
  api_->request(env, api_->new_context(), api::Verb::get, key, nullptr,
                [this, key, revision, created, done](Env& e, const api::Response& got) {
                  if (!api::is_success(got.status) || got.object == nullptr) return done(e, false);
                  auto lease = std::make_shared<api::Object>(*got.object);
                  std::optional<std::int64_t> held;
                  if (lease->lease.holderIdentity.has_value()) {
                    held = holder_revision(*lease->lease.holderIdentity);
                    if (!held.has_value()) return done(e, false);
                    if (*held > revision) return done(e, true);
                  }
                  lease->lease.renewTime = api::micro_time(created);
                  if (!held.has_value() || *held < revision) {
                    lease->lease.holderIdentity = std::to_string(revision);
                  }
                  api_->request(e, api_->new_context(), api::Verb::update, key, std::move(lease),
                                [done](Env& e2, const api::Response& updated) {
                                  done(e2, api::is_success(updated.status));
                                });
                });
}

// DeltaSnapshotCaseLeaseUpdate: the latest deltas from a listing of the store, then the
// Lease: renewTime now, the holder raised to the last delta's revision ("0" on a Lease
// without one when no delta follows the latest full snapshot). Failures are only logged.
void BackupRestore::update_delta_lease(Env& env) {
  const std::uint64_t generation = snap_.generation;
  store_call(env, SnapstoreOp::list, {}, [this, generation](Env& e, const Answer& listed) {
    if (generation != snap_.generation || !listed.ok) return;
    update_delta_lease_from(e, latest_full_and_deltas(listed.listed));
  });
}

void BackupRestore::update_delta_lease_from(Env& env, const LatestSnapshots& latest) {
  const api::ObjectKey key{api::Kind::lease, config_.leaseNamespace,
                           config_.backup->deltaSnapshotLease};
  std::optional<std::int64_t> last;
  if (!latest.deltas.empty()) last = latest.deltas.back().last_revision;
  const std::uint64_t generation = snap_.generation;
  api_->request(env, api_->new_context(), api::Verb::get, key, nullptr,
                [this, key, last, generation](Env& e, const api::Response& got) {
                  if (generation != snap_.generation) return;
                  if (!api::is_success(got.status) || got.object == nullptr) return;
                  auto lease = std::make_shared<api::Object>(*got.object);
                  std::optional<std::string>& holder = lease->lease.holderIdentity;
                  lease->lease.renewTime = api::micro_time(e.now());
                  if (last.has_value()) {
                    const auto held = holder.has_value() ? holder_revision(*holder) : std::nullopt;
                    if (holder.has_value() && !held.has_value()) return;  // ParseInt failed
                    if (!held.has_value() || *held < *last) holder = std::to_string(*last);
                  } else if (!holder.has_value()) {
                    holder = "0";
                  }
                  api_->request(e, api_->new_context(), api::Verb::update, key, std::move(lease),
                                [](Env&, const api::Response&) {});
                });
}

}  // namespace hasim::druid
