#include "models/druid/snapstore.hpp"

#include <algorithm>
#include <utility>

#include "sim/assert.hpp"

namespace hasim::druid {

namespace {

// brtypes.SnapList Less: by last revision, then by creation time in whole seconds (CreatedOn
// .Unix()); hasim breaks a remaining tie by upload order (a stable sort), as Go's sort.Sort
// leaves it unspecified.
bool listed_before(const StoredSnapshot& a, const StoredSnapshot& b) {
  if (a.last_revision != b.last_revision) return a.last_revision < b.last_revision;
  return a.created_on.ns / 1'000'000'000 < b.created_on.ns / 1'000'000'000;
}

}  // namespace

StoredSnapshot metadata_of(const StoredSnapshot& snapshot) {
  StoredSnapshot meta;
  meta.kind = snapshot.kind;
  meta.start_revision = snapshot.start_revision;
  meta.last_revision = snapshot.last_revision;
  meta.created_on = snapshot.created_on;
  meta.is_final = snapshot.is_final;
  meta.name = snapshot.name;
  meta.size = snapshot.size;
  return meta;
}

LatestSnapshots latest_full_and_deltas(const std::vector<StoredSnapshot>& listing) {
  LatestSnapshots latest;
  std::size_t first_delta = 0;
  for (std::size_t i = listing.size(); i > 0; --i) {
    if (listing[i - 1].kind == sidecar::SnapshotKind::Full) {
      latest.full = listing[i - 1];
      first_delta = i;
      break;
    }
  }
  latest.deltas.assign(listing.begin() + static_cast<std::ptrdiff_t>(first_delta), listing.end());
  // Upstream collects them newest first and sorts them again (sort.Sort): list order.
  HASIM_ASSERT(std::is_sorted(latest.deltas.begin(), latest.deltas.end(), listed_before));
  HASIM_ASSERT(std::none_of(latest.deltas.begin(), latest.deltas.end(),
                            [](const auto& s) { return s.kind == sidecar::SnapshotKind::Full; }));
  return latest;
}

std::int64_t delta_event_bytes(const etcd::mvcc::Event& event) {
  constexpr std::int64_t kJsonOverhead = 200;
  return static_cast<std::int64_t>(event.kv.key.size() + event.kv.value.size()) + kJsonOverhead;
}

void Snapstore::save(StoredSnapshot snapshot) {
  HASIM_ASSERT(!snapshot.name.empty() && snapshot.last_revision >= snapshot.start_revision);
  HASIM_ASSERT(snapshots_.size() < kMaxSnapshots);
  snapshots_.push_back(std::move(snapshot));
}

std::vector<StoredSnapshot> Snapstore::list(bool with_data) const {
  std::vector<std::size_t> order(snapshots_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [this](std::size_t a, std::size_t b) {
    return listed_before(snapshots_[a], snapshots_[b]);
  });
  std::vector<StoredSnapshot> listing;
  listing.reserve(order.size());
  for (const std::size_t i : order) {
    // List does not download the objects; a restore's fetch does.
    listing.push_back(with_data ? snapshots_[i] : metadata_of(snapshots_[i]));
  }
  HASIM_ASSERT(listing.size() == snapshots_.size());
  return listing;
}

void Snapstore::remove(std::string_view name) {
  HASIM_ASSERT(!name.empty());
  std::erase_if(snapshots_, [name](const StoredSnapshot& s) { return s.name == name; });
}

SnapstoreServer::SnapstoreServer(std::shared_ptr<Snapstore> bucket) : bucket_(std::move(bucket)) {
  HASIM_ASSERT(bucket_ != nullptr);
}

void SnapstoreServer::on_start(Env&) {}

void SnapstoreServer::on_message(Env& env, ProcessId from, const Message& message) {
  const auto* request = message_as<SnapstoreRequest>(*message);
  if (request == nullptr) return;
  auto response = std::make_shared<SnapstoreResponse>();
  response->client_id = request->client_id;
  switch (request->op) {
    case SnapstoreOp::save:
      bucket_->save(request->snapshot);
      break;
    case SnapstoreOp::list:
      response->listed = bucket_->list(false);
      break;
    case SnapstoreOp::remove:
      bucket_->remove(request->snapshot.name);
      break;
    case SnapstoreOp::fetch_latest: {
      // What a restore downloads: the latest full snapshot and the deltas after it.
      LatestSnapshots latest = latest_full_and_deltas(bucket_->list(true));
      if (latest.full.has_value()) response->listed.push_back(std::move(*latest.full));
      for (StoredSnapshot& d : latest.deltas) response->listed.push_back(std::move(d));
      break;
    }
  }
  env.send(from, std::move(response));
}

void SnapstoreServer::on_timer(Env&, TimerId, std::uint64_t) {
  HASIM_ASSERT(false && "the object store sets no timer");
}

}  // namespace hasim::druid
