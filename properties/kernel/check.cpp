// The kernel's properties, partition-respected and clock-steps, and `hasim check`'s choices
// among the kernel's fault kinds: crash, pause, node-down, the three partition shapes, clock
// steps and rates, dropped connections, and the disk faults (disk loss, slow disk, full disk,
// pod deletion) where a process mounts a volume. Each draws exactly the RapidCheck values in
// the order listed, so a seed gives the same schedule on every machine.
#include "properties/kernel/check.hpp"

#include <algorithm>
#include <rapidcheck.h>

#include "properties/kernel/clock_steps.hpp"
#include "properties/kernel/partition_respected.hpp"
#include "sim/assert.hpp"

namespace hasim {
namespace {

bool has_processes(const FaultSpace& s) { return !s.processes.empty(); }
bool has_hosts(const FaultSpace& s) { return !s.hosts.empty(); }
bool can_cut(const FaultSpace& s) { return s.nodes.size() >= 2; }
bool can_pause(const FaultSpace& s) { return has_processes(s) && s.max_pause >= milliseconds(10); }
bool can_skew(const FaultSpace& s) { return has_hosts(s) && s.min_rate_ppb < s.max_rate_ppb; }

FaultSpec crash(const FaultSpace& space, const Intensity& intensity) {
  FaultSpec f = draw_outage_fault("crash", space.processes, space, intensity);
  const auto cap = space.max_restart.find(f.targets.front());
  if (cap != space.max_restart.end() && *f.for_duration > cap->second) f.for_duration = cap->second;
  return f;
}

FaultSpec pause(const FaultSpace& space, const Intensity& intensity) {
  FaultSpec f;
  f.kind = "pause";
  f.targets = {pick(space.processes)};
  f.for_duration =
      draw_duration(milliseconds(10), intensity.scaled(milliseconds(10), space.max_pause));
  return f;
}

FaultSpec node_down(const FaultSpace& space, const Intensity& intensity) {
  return draw_outage_fault("node-down", space.hosts, space, intensity);
}

FaultSpec isolate(const FaultSpace& space, const Intensity& intensity) {
  FaultSpec f;
  f.kind = "partition";
  f.partition_mode = FaultSpec::PartitionMode::isolate;
  f.targets = proper_subset(space.nodes);
  f.for_duration = draw_outage(space, intensity);
  return f;
}

FaultSpec groups(const FaultSpace& space, const Intensity& intensity) {
  FaultSpec f;
  f.kind = "partition";
  f.partition_mode = FaultSpec::PartitionMode::groups;
  const std::vector<std::string> side = proper_subset(space.nodes);
  std::vector<std::string> rest;
  for (const std::string& n : space.nodes) {
    if (std::find(side.begin(), side.end(), n) == side.end()) rest.push_back(n);
  }
  f.groups = {side, rest};
  f.for_duration = draw_outage(space, intensity);
  return f;
}

FaultSpec oneway(const FaultSpace& space, const Intensity& intensity) {
  FaultSpec f;
  f.kind = "partition";
  f.partition_mode = FaultSpec::PartitionMode::oneway;
  const std::vector<std::string> order = shuffled(space.nodes);
  const std::size_t senders = *rc::gen::inRange<std::size_t>(1, order.size());
  const std::size_t receivers = *rc::gen::inRange<std::size_t>(1, order.size() - senders + 1);
  f.from.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(senders));
  f.to.assign(order.begin() + static_cast<std::ptrdiff_t>(senders),
              order.begin() + static_cast<std::ptrdiff_t>(senders + receivers));
  std::sort(f.from.begin(), f.from.end());
  std::sort(f.to.begin(), f.to.end());
  f.for_duration = draw_outage(space, intensity);
  return f;
}

FaultSpec clock_step(const FaultSpace& space, const Intensity& intensity) {
  FaultSpec f;
  f.kind = "clock-step";
  f.targets = {pick(space.hosts)};
  const Duration size =
      draw_duration(milliseconds(1), intensity.scaled(milliseconds(1), space.max_clock_step));
  f.step = *rc::gen::arbitrary<bool>() ? size : Duration{} - size;
  return f;
}

FaultSpec clock_rate(const FaultSpace& space, const Intensity& intensity) {
  FaultSpec f;
  f.kind = "clock-rate";
  f.targets = {pick(space.hosts)};
  f.rate_ppb =
      *rc::gen::inRange<std::int64_t>(space.min_rate_ppb / 1000, space.max_rate_ppb / 1000 + 1) *
      1000;
  f.for_duration = draw_duration(seconds(10), intensity.scaled(seconds(10), minutes(5)));
  return f;
}

FaultSpec drop_connections(const FaultSpace& space, const Intensity&) {
  FaultSpec f;
  f.kind = "drop-connections";
  f.targets = {pick(space.hosts)};
  return f;
}

// Disk faults aim at what mounts a volume: nothing to hit where no process does.
bool has_mounts(const FaultSpace& s) { return !s.mounts.empty(); }

// The nodes of the processes that mount a volume, each once, in order.
std::vector<std::string> mount_nodes(const FaultSpace& space) {
  std::vector<std::string> nodes;
  for (const std::string& process : space.mounts) {
    const std::string node = process.substr(0, process.find('/'));
    if (std::find(nodes.begin(), nodes.end(), node) == nodes.end()) nodes.push_back(node);
  }
  return nodes;
}

FaultSpec disk_loss(const FaultSpace& space, const Intensity& intensity) {
  return draw_outage_fault("disk-loss", mount_nodes(space), space, intensity);
}

// A slow disk: 2x to 1000x (a 2ms fsync up to 2s: etcd's "slow fdatasync" territory).
FaultSpec slow_disk(const FaultSpace& space, const Intensity& intensity) {
  FaultSpec f = draw_outage_fault("slow-disk", mount_nodes(space), space, intensity);
  f.factor = *rc::gen::inRange<std::int64_t>(2, 2 + 998 * intensity.percent / 100 + 1);
  return f;
}

FaultSpec disk_full(const FaultSpace& space, const Intensity& intensity) {
  return draw_outage_fault("disk-full", mount_nodes(space), space, intensity);
}

FaultSpec pod_delete(const FaultSpace& space, const Intensity& intensity) {
  return draw_outage_fault("pod-delete", space.mounts, space, intensity);
}

template <FaultSpec::PartitionMode mode>
bool is_partition(const FaultSpec& f) {
  // A partition aimed at a role is its system's choice (e.g. "partition-raft-leader").
  return f.kind == "partition" && f.partition_mode == mode && f.role.empty();
}

std::unique_ptr<Property> partition_respected(const std::string& spec, std::optional<Duration>) {
  return std::make_unique<PartitionRespected>(spec);
}

std::unique_ptr<Property> clock_steps(const std::string& spec, std::optional<Duration>) {
  return std::make_unique<ClockSteps>(spec);
}

}  // namespace

const CheckSystem& kernel_check_system() {
  using Mode = FaultSpec::PartitionMode;
  static const CheckSystem system{
      "kernel",
      {
          {{"partition-respected", "",
            "no message is delivered across an edge that a partition in force cuts, as the "
            "partition's definition (isolate, groups, one way) gives it",
            "nothing: it judges the kernel's network itself"},
           partition_respected},
          {{"clock-steps", "",
            "a clock step moves its node's wall clock by exactly the step asked for",
            "nothing: it judges the kernel's clocks"},
           clock_steps},
      },
      {
          {"crash", has_processes, crash, [](const FaultSpec& f) { return f.kind == "crash"; }},
          {"pause", can_pause, pause, [](const FaultSpec& f) { return f.kind == "pause"; }},
          {"node-down", has_hosts, node_down,
           [](const FaultSpec& f) { return f.kind == "node-down"; }, true},
          {"partition-isolate", can_cut, isolate, is_partition<Mode::isolate>, true},
          {"partition-groups", can_cut, groups, is_partition<Mode::groups>, true},
          {"partition-oneway", can_cut, oneway, is_partition<Mode::oneway>, true},
          {"clock-step", has_hosts, clock_step,
           [](const FaultSpec& f) { return f.kind == "clock-step"; }},
          {"clock-rate", can_skew, clock_rate,
           [](const FaultSpec& f) { return f.kind == "clock-rate"; }},
          {"drop-connections", has_hosts, drop_connections,
           [](const FaultSpec& f) { return f.kind == "drop-connections"; }},
          // After the others, so that a scenario without volumes draws what it drew before.
          {"disk-loss", has_mounts, disk_loss,
           [](const FaultSpec& f) { return f.kind == "disk-loss"; }},
          {"slow-disk", has_mounts, slow_disk,
           [](const FaultSpec& f) { return f.kind == "slow-disk"; }},
          {"disk-full", has_mounts, disk_full,
           [](const FaultSpec& f) { return f.kind == "disk-full"; }},
          {"pod-delete", has_mounts, pod_delete,
           [](const FaultSpec& f) { return f.kind == "pod-delete"; }},
      },
  };
  return system;
}

}  // namespace hasim
