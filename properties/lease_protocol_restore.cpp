// lease-protocol across an etcd snapshot restore (etcdutl snapshot restore, the
// etcd-snapshot-restore action): the store goes back to the snapshot's revision and carries on
// from there, so the stored record a takeover is judged against (c), and the resourceVersions a
// writer was served (a), are those of the snapshot, not the last acknowledged write.
#include <algorithm>

#include "properties/lease_protocol.hpp"
#include "sim/assert.hpp"

namespace hasim {

// etcdctl snapshot save came back ok: the snapshot holds the keyspace at "revision". Objects
// whose last traced write is above it are left out until a write at or below it is traced
// (track_snapshots); one whose older version was already overwritten stays unknown, and a
// restore leaves it unknown too (its next write is judged without a stored record).
void LeaseProtocol::on_snapshot_saved(const TraceEvent& event) {
  if (event.string_field("op") != "snapshot" || event.string_field("result") != "ok") return;
  const std::int64_t revision = event.int_field("revision", 0);
  HASIM_ASSERT(revision > 0);
  Snapshot snapshot;
  snapshot.revision = static_cast<std::uint64_t>(revision);
  for (const auto& [object, stored] : objects_) {
    if (stored.rv <= snapshot.revision) {
      snapshot.objects.emplace(object, stored);
    } else {
      snapshot.unknown.insert(object);
    }
  }
  snapshots_.insert_or_assign(std::string(event.string_field("name")), std::move(snapshot));
}

// A write the old history committed at or below a snapshot's revision belongs in it.
void LeaseProtocol::track_snapshots(const Write& w) {
  for (auto& [name, snapshot] : snapshots_) {
    if (snapshot.sealed || w.rv > snapshot.revision) continue;
    snapshot.unknown.erase(w.object);
    const auto it = snapshot.objects.find(w.object);
    if (it != snapshot.objects.end() && it->second.rv > w.rv) continue;
    if (w.verb == "delete") {
      if (it != snapshot.objects.end()) snapshot.objects.erase(it);
      continue;
    }
    const auto stored = objects_.find(w.object);
    HASIM_ASSERT(stored != objects_.end() && stored->second.rv == w.rv);
    snapshot.objects.insert_or_assign(w.object, stored->second);
  }
}

// The restore: stored objects become the snapshot's. A writer's newest served version of an
// object is capped at the restored object's (revisions start again from the snapshot's, and
// an update conditional on a version the writer held before the restore succeeds only if the
// object is still at it); what it observed of a record, and since when, stays: client-go's
// observedRawRecord survives a restore, and a changed record restarts its clock on the next
// read (on_read).
void LeaseProtocol::on_restore(const TraceEvent& event) {
  const std::string name(event.string_field("snapshot"));
  if (restored_ && restored_->first == event.t && restored_->second == name) return;
  restored_ = {event.t, name};
  recent_.push_back(describe_event(event));
  if (recent_.size() > kRecentWrites) recent_.pop_front();
  const auto it = snapshots_.find(name);
  // A snapshot this monitor did not see saved: every object it knew is unknown.
  if (it == snapshots_.end()) {
    for (const auto& [object, ignored] : objects_) unknown_.insert(object);
    objects_.clear();
  } else {
    objects_ = it->second.objects;
    unknown_.insert(it->second.unknown.begin(), it->second.unknown.end());
  }
  for (auto& [key, seen] : seen_) {
    const auto stored = objects_.find(key.second);
    const std::uint64_t restored = stored == objects_.end() ? 0 : stored->second.rv;
    seen.max_rv = std::min(seen.max_rv, restored);
  }
  for (auto& [ignored, snapshot] : snapshots_) snapshot.sealed = true;
}

}  // namespace hasim
