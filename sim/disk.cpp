#include "sim/disk.hpp"

#include "sim/assert.hpp"

namespace hasim {

std::string_view volume_kind_name(VolumeKind kind) {
  switch (kind) {
    case VolumeKind::persistent:
      return "persistent";
    case VolumeKind::ephemeral:
      return "ephemeral";
    case VolumeKind::memory:
      return "memory";
  }
  HASIM_ASSERT(false && "unknown volume kind");
  return {};
}

std::string_view io_status_name(IoStatus status) {
  return status == IoStatus::ok ? "ok" : "ENOSPC";
}

Disk::Disk(std::string name, DiskParams params, Rng rng)
    : name_(std::move(name)), params_(params), rng_(rng) {
  HASIM_ASSERT(!name_.empty());
  HASIM_ASSERT(params_.capacity_bytes > 0);
}

VolumeIndex Disk::add_volume(std::string name, VolumeKind kind) {
  // Names may repeat on one disk: each pod's emptyDir "data" is its own directory
  // (/var/lib/kubelet/pods/<uid>/volumes/...). The World finds a volume by its mounter.
  HASIM_ASSERT(!name.empty());
  volumes_.push_back(Volume{std::move(name), kind, {}, 0, 0});
  return static_cast<VolumeIndex>(volumes_.size() - 1);
}

std::uint64_t Disk::used_bytes() const {
  std::uint64_t used = 0;
  for (const Volume& v : volumes_) {
    if (v.kind != VolumeKind::memory) used += v.bytes;
  }
  return used;
}

TrueTime Disk::schedule(TrueTime now, VolumeIndex v, IoOp op) {
  HASIM_ASSERT(v < volumes_.size());
  if (volumes_[v].kind == VolumeKind::memory) return now;  // RAM: no device time
  const DurationDistribution& latency =
      op == IoOp::append ? params_.write_latency : params_.fsync_latency;
  const Duration own{latency.sample(rng_).ns * slow_factor_};
  const TrueTime start = busy_until_ > now ? busy_until_ : now;
  busy_until_ = start + own;
  HASIM_ASSERT(busy_until_ >= now);
  return busy_until_;
}

IoStatus Disk::complete_append(VolumeIndex v, std::string_view file, std::string record) {
  HASIM_ASSERT(v < volumes_.size());
  Volume& volume = volumes_[v];
  const bool on_device = volume.kind != VolumeKind::memory;
  if (on_device && (full_ || used_bytes() + record.size() > params_.capacity_bytes)) {
    return IoStatus::no_space;
  }
  auto it = volume.files.find(file);
  if (it == volume.files.end()) it = volume.files.emplace(std::string(file), DiskFile{}).first;
  volume.bytes += record.size();
  it->second.records.push_back(std::move(record));
  HASIM_ASSERT(it->second.synced <= it->second.records.size());
  return IoStatus::ok;
}

void Disk::complete_fsync(VolumeIndex v, std::string_view file) {
  HASIM_ASSERT(v < volumes_.size());
  auto it = volumes_[v].files.find(file);
  if (it == volumes_[v].files.end()) return;  // fsync of a file never written: nothing to do
  // FIFO service: every append issued before this fsync has completed already.
  it->second.synced = it->second.records.size();
}

void Disk::remove(VolumeIndex v, std::string_view file) {
  HASIM_ASSERT(v < volumes_.size());
  Volume& volume = volumes_[v];
  auto it = volume.files.find(file);
  if (it == volume.files.end()) return;
  for (const std::string& record : it->second.records) volume.bytes -= record.size();
  volume.files.erase(it);
}

std::map<VolumeIndex, std::uint64_t> Disk::power_loss(TrueTime now) {
  std::map<VolumeIndex, std::uint64_t> lost;
  for (VolumeIndex v = 0; v < volumes_.size(); ++v) {
    Volume& volume = volumes_[v];
    std::uint64_t count = 0;
    for (auto& [name, file] : volume.files) {
      const std::size_t keep = volume.kind == VolumeKind::memory ? 0 : file.synced;
      for (std::size_t i = keep; i < file.records.size(); ++i) {
        volume.bytes -= file.records[i].size();
        ++count;
      }
      file.records.resize(keep);
      file.synced = keep;
    }
    if (count > 0) lost[v] = count;
  }
  busy_until_ = now;  // the queue died with the power
  return lost;
}

void Disk::wipe(VolumeIndex v) {
  HASIM_ASSERT(v < volumes_.size());
  volumes_[v].files.clear();
  volumes_[v].bytes = 0;
  ++volumes_[v].wipes;
}

void Disk::replace_files(VolumeIndex v,
                         const std::map<std::string, std::vector<std::string>>& files) {
  HASIM_ASSERT(v < volumes_.size());
  Volume& volume = volumes_[v];
  volume.files.clear();
  volume.bytes = 0;
  for (const auto& [name, records] : files) {
    HASIM_ASSERT(!name.empty());
    for (const std::string& record : records) volume.bytes += record.size();
    volume.files.emplace(name, DiskFile{records, records.size()});
  }
}

void Disk::set_slow_factor(std::int64_t factor) {
  HASIM_ASSERT(factor >= 1);
  slow_factor_ = factor;
}

}  // namespace hasim
