// The World's disks (sim/disk.hpp): setup, a process's asynchronous I/O, and the disk
// faults. An operation is an event at the completion time the disk's FIFO queue gives it;
// one whose issuer stopped (crash, exit, node down, pod deletion) before it completed is
// dropped unapplied, as a killed process's interrupted write(2) never returned.
#include <algorithm>

#include "sim/assert.hpp"
#include "sim/trace_kinds.hpp"
#include "sim/world.hpp"

namespace hasim {

void World::add_disk(NodeId node, std::string name, DiskParams params) {
  HASIM_ASSERT(!started_);
  HASIM_ASSERT(node < nodes_.size());
  for (const DiskSlot& d : disks_) HASIM_ASSERT(d.node != node || d.disk.name() != name);
  // Its own stream, named by node and disk: adding a disk shifts no other draw.
  Rng rng = root_rng_.fork("disk/" + nodes_[node].name + "/" + name);
  disks_.push_back(DiskSlot{node, Disk(std::move(name), params, rng)});
}

void World::add_network_disk(std::string zone, std::string name, DiskParams params) {
  // Also during the run: a dynamic provisioner makes a claim's volume when its pod is first
  // scheduled (WaitForFirstConsumer). Disks are found by index, so adding one moves nothing.
  // Disk names are unique among network disks and apart from every node's disks: a volume
  // names its disk, and a moved volume must find the same one.
  for (const DiskSlot& d : disks_) HASIM_ASSERT(d.disk.name() != name);
  Rng rng = root_rng_.fork("disk/" + zone + "/" + name);
  disks_.push_back(DiskSlot{kNoNode, Disk(std::move(name), params, rng), std::move(zone)});
}

VolumeId World::add_volume(ProcessId owner, std::string name, std::string_view disk,
                           VolumeKind kind) {
  HASIM_ASSERT(owner < processes_.size());
  // Before the run, or for a container not running yet (a pod's volume, set up before its
  // containers start).
  HASIM_ASSERT(!started_ || processes_[owner].state == ProcessState::stopped);
  HASIM_ASSERT(!find_volume(owner, name).has_value());
  const NodeId node = processes_[owner].node;
  const std::size_t d = disk_index(node, disk);
  // A network disk is one PersistentVolume: one volume, in its owner's zone.
  HASIM_ASSERT(disks_[d].node != kNoNode ||
               (disks_[d].disk.volume_count() == 0 && disks_[d].zone == nodes_[node].zone));
  const VolumeIndex index = disks_[d].disk.add_volume(std::move(name), kind);
  volumes_.push_back(VolumeSlot{d, index, owner});
  return static_cast<VolumeId>(volumes_.size() - 1);
}

void World::share_volume(VolumeId volume, ProcessId process) {
  HASIM_ASSERT(volume < volumes_.size());
  HASIM_ASSERT(process < processes_.size());
  const ProcessId owner = volumes_[volume].owner;
  HASIM_ASSERT(process != owner && "the owner mounts its volume already");
  HASIM_ASSERT(processes_[process].node == processes_[owner].node &&
               "a pod's containers run on one node");
  const std::string name = World::volume(volume).name;
  HASIM_ASSERT(!find_volume(process, name).has_value());
  std::vector<ProcessId>& sharers = volumes_[volume].sharers;
  // In id order: whoever walks the mounters (disk loss, pod deletion) kills them in that order.
  sharers.insert(std::lower_bound(sharers.begin(), sharers.end(), process), process);
  HASIM_ASSERT(find_volume(process, name) == volume);
}

std::size_t World::disk_index(NodeId node, std::string_view disk) const {
  for (std::size_t d = 0; d < disks_.size(); ++d) {
    if (disks_[d].node == node && disks_[d].disk.name() == disk) return d;
  }
  for (std::size_t d = 0; d < disks_.size(); ++d) {
    if (disks_[d].node == kNoNode && disks_[d].disk.name() == disk) return d;
  }
  HASIM_ASSERT(false && "no such disk on this node (the loader checks disk names)");
  return 0;
}

std::optional<VolumeId> World::find_volume(ProcessId process, std::string_view name) const {
  for (VolumeId v = 0; v < volumes_.size(); ++v) {
    const VolumeSlot& slot = volumes_[v];
    if (mounts(v, process) && disks_[slot.disk].disk.volume(slot.index).name == name) return v;
  }
  return std::nullopt;
}

bool World::mounts(VolumeId volume, ProcessId process) const {
  const VolumeSlot& slot = volumes_[volume];
  return slot.owner == process ||
         std::binary_search(slot.sharers.begin(), slot.sharers.end(), process);
}

std::vector<ProcessId> World::mounters(VolumeId volume) const {
  const VolumeSlot& slot = volumes_.at(volume);
  std::vector<ProcessId> all = slot.sharers;
  all.insert(std::lower_bound(all.begin(), all.end(), slot.owner), slot.owner);
  HASIM_ASSERT(std::is_sorted(all.begin(), all.end()));
  return all;
}

bool World::mounts_volume(ProcessId process) const {
  for (VolumeId v = 0; v < volumes_.size(); ++v) {
    if (mounts(v, process)) return true;
  }
  return false;
}

std::vector<ProcessId> World::pod_containers(ProcessId process) const {
  HASIM_ASSERT(process < processes_.size());
  // The closure over shared volumes (a sidecar that shares two of the owner's volumes, or owns
  // one the owner shares): small, so a sweep until nothing is added.
  std::vector<bool> in(processes_.size(), false);
  in[process] = true;
  for (bool grew = true; grew;) {
    grew = false;
    for (VolumeId v = 0; v < volumes_.size(); ++v) {
      const std::vector<ProcessId> all = mounters(v);
      if (std::none_of(all.begin(), all.end(), [&in](ProcessId p) { return in[p]; })) continue;
      for (ProcessId p : all) {
        grew = grew || !in[p];
        in[p] = true;
      }
    }
  }
  std::vector<ProcessId> pod;
  for (ProcessId p = 0; p < processes_.size(); ++p) {
    if (in[p]) pod.push_back(p);
  }
  HASIM_ASSERT(std::binary_search(pod.begin(), pod.end(), process));
  return pod;
}

NodeId World::attached_node(VolumeId volume) const {
  const VolumeSlot& slot = volumes_.at(volume);
  const NodeId node = disks_[slot.disk].node;
  // A network disk attaches to the node its owner runs on (move_process of the owner).
  return node == kNoNode ? processes_[slot.owner].node : node;
}

const Volume& World::volume(VolumeId volume) const {
  const VolumeSlot& slot = volumes_.at(volume);
  return disks_[slot.disk].disk.volume(slot.index);
}

std::vector<std::string> World::disk_names(NodeId node) const {
  std::vector<std::string> names;
  for (const DiskSlot& d : disks_) {
    if (d.node == node) names.push_back(d.disk.name());
  }
  return names;
}

VolumeId World::mounted(ProcessId process, std::string_view volume) const {
  const auto found = find_volume(process, volume);
  HASIM_ASSERT(found.has_value() && "the process names a volume it does not mount");
  // A sharer moved apart from its owner (a pod half moved) must not reach the volume.
  HASIM_ASSERT(processes_[process].node == attached_node(*found) &&
               "a container uses its pod's volumes only on the node they are attached to");
  return *found;
}

IoId World::issue_io(ProcessId process, std::string_view volume, IoOp op, std::string file,
                     std::string record, std::uint64_t tag) {
  HASIM_ASSERT(processes_[process].state == ProcessState::running);
  HASIM_ASSERT(!file.empty());
  const VolumeId v = mounted(process, volume);
  const VolumeSlot& slot = volumes_[v];
  const TrueTime done = disks_[slot.disk].disk.schedule(now(), slot.index, op);
  HASIM_ASSERT(done >= now());
  const IoId id = next_io_id_++;
  // Ids only grow: the new entry goes last, so the hint spares the tree descent.
  HASIM_ASSERT(ios_.empty() || ios_.rbegin()->first < id);
  ios_.emplace_hint(ios_.end(), id,
                    PendingIo{process, processes_[process].incarnation, v, op, std::move(file),
                              std::move(record), tag});
  scheduler_.schedule(done, kIo, process, id);
  return id;
}

void World::complete_io(IoId id) {
  auto found = ios_.find(id);
  HASIM_ASSERT(found != ios_.end());
  // Unlinked, not moved out: its strings stay where they are.
  auto node = ios_.extract(found);
  PendingIo& io = node.mapped();
  const ProcessSlot& issuer = processes_[io.process];
  if (issuer.incarnation != io.incarnation || issuer.state == ProcessState::stopped) return;
  const VolumeSlot& slot = volumes_[io.volume];
  Disk& disk = disks_[slot.disk].disk;
  IoStatus status = IoStatus::ok;
  if (io.op == IoOp::append) {
    status = disk.complete_append(slot.index, io.file, std::move(io.record));
  } else {
    disk.complete_fsync(slot.index, io.file);
  }
  if (status != IoStatus::ok) {
    trace_process(io.process, trace_kind::kDiskError,
                  {{"volume", disk.volume(slot.index).name},
                   {"file", io.file},
                   {"error", std::string(io_status_name(status))}});
  }
  notify_io(io.process, IoCompletion{id, io.op, status, io.tag});
}

void World::power_loss(NodeId node) {
  // The node's own disks, and the network disks attached to it: those keep what reached the
  // device, and lose the page cache that was in the node's RAM.
  std::vector<bool> affected(disks_.size(), false);
  for (std::size_t d = 0; d < disks_.size(); ++d) affected[d] = disks_[d].node == node;
  // The owner's node is the attachment: its sharers are on it too (share_volume, move_process).
  for (const VolumeSlot& v : volumes_) {
    if (disks_[v.disk].node == kNoNode && processes_[v.owner].node == node) affected[v.disk] = true;
  }
  for (std::size_t d = 0; d < disks_.size(); ++d) {
    if (!affected[d]) continue;
    Disk& disk = disks_[d].disk;
    for (const auto& [index, lost] : disk.power_loss(now())) {
      trace_world(trace_kind::kUnsyncedLost, nodes_[node].name,
                  {{"disk", disk.name()},
                   {"volume", disk.volume(index).name},
                   {"records", static_cast<std::int64_t>(lost)}});
    }
  }
}

void World::wipe_volume(VolumeId volume) {
  const VolumeSlot& slot = volumes_.at(volume);
  disks_[slot.disk].disk.wipe(slot.index);
}

void World::replace_volume_files(VolumeId volume,
                                 const std::map<std::string, std::vector<std::string>>& files) {
  const VolumeSlot& slot = volumes_.at(volume);
  // Sharers too: a sidecar still running would see its files change under it.
  for (ProcessId p : mounters(volume)) HASIM_ASSERT(processes_[p].state == ProcessState::stopped);
  disks_[slot.disk].disk.replace_files(slot.index, files);
}

void World::disk_loss(NodeId node, std::string_view disk, bool tell_supervisors) {
  const std::size_t d = disk_index(node, disk);
  trace_world(trace_kind::kDiskLoss, nodes_.at(node).name, {{"disk", std::string(disk)}});
  // Every process with a volume on the disk, owner or sharer, dies of its I/O errors; the rest
  // run on. Killed in id order (a kill is traced), then the volumes are wiped (untraced).
  std::vector<ProcessId> doomed;
  for (VolumeId v = 0; v < volumes_.size(); ++v) {
    if (volumes_[v].disk != d) continue;
    for (ProcessId p : mounters(v)) doomed.push_back(p);
  }
  std::sort(doomed.begin(), doomed.end());
  doomed.erase(std::unique(doomed.begin(), doomed.end()), doomed.end());
  // Wiped first, so a supervisor that restarts a process at once finds the volume empty.
  for (ProcessId p : doomed) kill(p, "disk-loss", false);
  for (VolumeId v = 0; v < volumes_.size(); ++v) {
    if (volumes_[v].disk == d) wipe_volume(v);
  }
  if (!tell_supervisors) return;
  for (ProcessId p : doomed) {
    const StopHandler& handler = stop_handler_of(p);
    if (handler) handler(p, StopReason::crash, -1);
  }
}

void World::slow_disk(NodeId node, std::string_view disk, std::int64_t factor) {
  HASIM_ASSERT(factor >= 1);
  disks_[disk_index(node, disk)].disk.set_slow_factor(factor);
  trace_world(trace_kind::kSlowDisk, nodes_.at(node).name,
              {{"disk", std::string(disk)}, {"factor", factor}});
}

void World::disk_full(NodeId node, std::string_view disk, bool full) {
  disks_[disk_index(node, disk)].disk.set_full(full);
  trace_world(trace_kind::kDiskFull, nodes_.at(node).name,
              {{"disk", std::string(disk)}, {"full", full}});
}

void World::move_process(ProcessId process, NodeId to) {
  ProcessSlot& slot = processes_.at(process);
  HASIM_ASSERT(slot.state == ProcessState::stopped);
  HASIM_ASSERT(to < nodes_.size());
  if (slot.node == to) return;
  std::string qualified = nodes_[to].name + "/" + slot.name;
  HASIM_ASSERT(!find_process(qualified).has_value());
  trace_process(process, trace_kind::kMove, {{"to", nodes_[to].name}});
  std::vector<ProcessId>& from = nodes_[slot.node].processes;
  from.erase(std::find(from.begin(), from.end(), process));
  // Kept in id order: a node's processes start and stop in the order they were added.
  std::vector<ProcessId>& onto = nodes_[to].processes;
  onto.insert(std::lower_bound(onto.begin(), onto.end(), process), process);
  // Only the owner carries its volumes; a sharer follows by being moved to the same node.
  for (VolumeId v = 0; v < volumes_.size(); ++v) {
    if (volumes_[v].owner == process) rehome_volume(v, to);
  }
  slot.node = to;
  slot.qualified = std::move(qualified);
}

void World::rehome_volume(VolumeId volume, NodeId to) {
  VolumeSlot& slot = volumes_.at(volume);
  // The pod moves whole: a running sharer's pending operation would land on the moved volume.
  for (ProcessId p : slot.sharers) HASIM_ASSERT(processes_[p].state == ProcessState::stopped);
  const DiskSlot& disk = disks_[slot.disk];
  if (disk.node == kNoNode) {
    HASIM_ASSERT(disk.zone == nodes_[to].zone && "a zonal volume attaches only in its zone");
    return;
  }
  const Volume& old = disk.disk.volume(slot.index);
  HASIM_ASSERT(old.kind != VolumeKind::persistent && "a local persistent volume pins its pod");
  // The emptyDir starts empty on the new node's disk of the same name; the old one is wiped
  // (its pod is gone) and left for the next pod that comes to that node: a pod moving back
  // and forth takes one volume per node, not one per move.
  const std::string name = old.name;
  const VolumeKind kind = old.kind;
  const std::string diskName = disk.disk.name();
  wipe_volume(volume);
  left_behind_.push_back({slot.disk, slot.index});
  const std::size_t d = disk_index(to, diskName);
  HASIM_ASSERT(disks_[d].node == to);
  slot.disk = d;
  for (auto it = left_behind_.begin(); it != left_behind_.end(); ++it) {
    const Volume& spare = disks_[it->first].disk.volume(it->second);
    if (it->first != d || spare.name != name || spare.kind != kind) continue;
    slot.index = it->second;
    left_behind_.erase(it);
    return;
  }
  slot.index = disks_[d].disk.add_volume(name, kind);
}

void World::delete_pod(ProcessId process) {
  HASIM_ASSERT(process < processes_.size());
  // The whole pod goes, whichever container is named: its containers share the volumes, so
  // none may run on (or keep) an emptyDir that is gone. Alone, a process is its own pod.
  const std::vector<ProcessId> pod = pod_containers(process);
  std::int64_t wiped = 0;
  for (VolumeId v = 0; v < volumes_.size(); ++v) {
    if (!std::binary_search(pod.begin(), pod.end(), volumes_[v].owner)) continue;
    if (volume(v).kind == VolumeKind::persistent) continue;  // the claim outlives the pod
    wipe_volume(v);
    ++wiped;
  }
  trace_process(process, trace_kind::kPodDelete, {{"volumes_wiped", wiped}});
  for (ProcessId p : pod) kill(p, "pod-delete", false);
}

}  // namespace hasim
