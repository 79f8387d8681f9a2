#pragma once
// A node's disk (DESIGN.md "Disks"; issue 11 part 3): what etcd's WAL, raft's must-sync and
// etcd-druid's PersistentVolumeClaim-versus-emptyDir question stand on. A pure unit, like
// sim/network.hpp: it holds the volumes' files and the device queue's timing; the World turns
// an issued operation into a completion event and tells the model.
//
// The semantics, as Linux gives them to a process that writes with write(2) and fsync(2):
//  - An append completes after the disk's write latency and lands in the page cache: a
//    reader sees it, a process crash keeps it, a power loss (node down) loses it.
//  - An fsync of a file completes after the fsync latency; every append to that file that
//    completed before it is then on stable storage and survives a power loss.
//  - The device serves one operation at a time in issue order (a FIFO queue), so an fsync
//    waits behind the appends before it and a slow fsync delays every write after it, as
//    etcd's "slow fdatasync" warnings show. Completion order is therefore issue order, and
//    what survives any crash is a prefix of what was appended that holds every synced record.
//  - Removing a file is a metadata operation that is durable at once (a simplification: a
//    real rename or unlink needs the directory fsynced too).
//  - Capacity counts the bytes of every record held; an append that does not fit, or any
//    append while a disk-full fault holds, completes with ENOSPC and changes nothing.
// Volumes have a lifetime (VolumeKind): persistent volumes (a PersistentVolume, a hostPath)
// survive container restarts, pod re-creation and reboots; ephemeral ones (emptyDir) are
// wiped when their pod is deleted; memory ones (emptyDir with medium: Memory, a tmpfs) live
// in RAM, so fsync is a no-op, they cost no disk time or space, and a power loss or pod
// deletion wipes them. A disk-loss fault wipes every volume on the disk.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/distribution.hpp"
#include "sim/rng.hpp"
#include "sim/time.hpp"

namespace hasim {

enum class VolumeKind : std::uint8_t { persistent, ephemeral, memory };
// "persistent", "ephemeral", "memory": the scenario and trace vocabulary.
std::string_view volume_kind_name(VolumeKind kind);

enum class IoOp : std::uint8_t { append, fsync };
enum class IoStatus : std::uint8_t { ok, no_space };  // no_space: ENOSPC
std::string_view io_status_name(IoStatus status);     // "ok", "ENOSPC"

struct DiskParams {
  // Defaults are a datacenter SSD's: etcd's docs ask for a WAL fsync 99th percentile under
  // 10ms; a buffered write costs microseconds.
  DurationDistribution write_latency = DurationDistribution::constant(microseconds(20));
  DurationDistribution fsync_latency = DurationDistribution::constant(milliseconds(2));
  std::uint64_t capacity_bytes = 100ULL << 30;  // 100Gi
  bool operator==(const DiskParams&) const = default;
};

// One file: records[0, synced) are on stable storage; records[synced, end) are only in the
// page cache.
struct DiskFile {
  std::vector<std::string> records;
  std::size_t synced = 0;
};

struct Volume {
  std::string name;
  VolumeKind kind = VolumeKind::persistent;
  std::map<std::string, DiskFile, std::less<>> files;  // by file name
  std::uint64_t bytes = 0;                             // of every record held
  std::uint64_t wipes = 0;                             // disk losses and pod deletions seen
};

using VolumeIndex = std::uint32_t;

class Disk {
 public:
  Disk(std::string name, DiskParams params, Rng rng);

  const std::string& name() const { return name_; }
  const DiskParams& params() const { return params_; }
  VolumeIndex add_volume(std::string name, VolumeKind kind);
  const Volume& volume(VolumeIndex v) const { return volumes_.at(v); }
  std::size_t volume_count() const { return volumes_.size(); }
  // Bytes held by the volumes that live on the device (not memory ones).
  std::uint64_t used_bytes() const;

  // When an operation issued at `now` on volume `v` completes: after every operation
  // queued before it, plus its own latency (times the slow-disk factor).
  TrueTime schedule(TrueTime now, VolumeIndex v, IoOp op);
  // Applied at completion time, in completion (= issue) order.
  IoStatus complete_append(VolumeIndex v, std::string_view file, std::string record);
  void complete_fsync(VolumeIndex v, std::string_view file);
  void remove(VolumeIndex v, std::string_view file);

  // Power loss: unsynced records are gone, memory volumes are empty, the queue is empty.
  // Returns how many records each volume lost, by volume index (only volumes that lost any).
  std::map<VolumeIndex, std::uint64_t> power_loss(TrueTime now);
  void wipe(VolumeIndex v);  // disk loss (every volume) or pod deletion (its volumes)
  // An offline tool (etcdutl snapshot restore) replaced the volume's files while nothing ran
  // on it: `files` (name -> records), all on stable storage. Not a wipe (wipes unchanged).
  void replace_files(VolumeIndex v, const std::map<std::string, std::vector<std::string>>& files);

  // Faults: operations issued from now on take `factor` times as long (1: healthy).
  void set_slow_factor(std::int64_t factor);
  std::int64_t slow_factor() const { return slow_factor_; }
  // While full, every append fails with ENOSPC.
  void set_full(bool full) { full_ = full; }
  bool full() const { return full_; }

 private:
  std::string name_;
  DiskParams params_;
  Rng rng_;
  std::vector<Volume> volumes_;
  TrueTime busy_until_{};  // when the last queued operation completes
  std::int64_t slow_factor_ = 1;
  bool full_ = false;
};

}  // namespace hasim
