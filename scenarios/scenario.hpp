#pragma once
// A scenario as plain data, after validation. The loader (scenarios/loader.hpp) turns JSON
// into this and rejects bad input with a message naming the JSON path; scenarios/build.hpp
// turns it into a World. Every field here has been checked: names resolve, durations are
// non-negative, ranges are ordered. This is the core every system shares (nodes, clocks,
// network, faults, properties); each system's own section is in `sections`, its type in the
// system's folder (scenarios/control_plane/spec.hpp, ...).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/sections.hpp"
#include "sim/disk.hpp"
#include "sim/distribution.hpp"
#include "sim/time.hpp"

namespace hasim {

struct ClockSpec {
  Duration offset{};                      // wall clock minus true time at start
  std::int64_t rate_ppb = 1'000'000'000;  // from "drift": "+50ppm" or "rate": 1.0005
};

// A node's disk (sim/disk.hpp): "disks": [{"name": "ssd", "writeLatency": "20us",
// "fsyncLatency": "1ms..4ms", "capacity": "8Gi"}].
struct DiskSpec {
  std::string name;
  DiskParams params;
};

// The disk every node has unless its "disks" says otherwise.
inline constexpr std::string_view kDefaultDisk = "disk";

struct NodeSpec {
  std::string name;  // unique, e.g. "n1"
  std::string zone;  // may be empty
  ClockSpec clock;
  std::vector<DiskSpec> disks;  // empty: one disk kDefaultDisk with DiskParams' defaults
  // Not in the file: the name its random streams are forked by, if not `name`, set by a
  // system that renamed its node (NodeSetup::stream_name; the control plane's store).
  std::string stream_name{};
  // Not in the file: false for a machine that joins later (NodeSetup::up; the upgrade's
  // "replace" method adds its new machines so).
  bool up_at_start = true;
};

// The node's disks, the default one if it declares none.
inline std::vector<DiskSpec> node_disks(const NodeSpec& node) {
  if (!node.disks.empty()) return node.disks;
  return {DiskSpec{std::string(kDefaultDisk), DiskParams{}}};
}

struct LinkSpec {
  std::string from;  // node names; the override applies to messages from -> to
  std::string to;
  std::optional<DurationDistribution> latency;
  std::optional<double> loss;
  std::optional<double> duplicate;
};

struct NetworkSpec {
  DurationDistribution latency = DurationDistribution::constant(milliseconds(1));
  DurationDistribution loopback_latency = DurationDistribution::constant(microseconds(100));
  double loss = 0.0;       // datagrams only; streams (TCP) lose only on connection drop
  double duplicate = 0.0;  // datagrams only
  std::vector<LinkSpec> links;
};

struct FaultSpec {
  enum class PartitionMode { isolate, groups, oneway };

  // The registered kind's name ("crash", "apiserver-hang"; scenarios/system.hpp's FaultKind):
  // a kind is found by name, so adding one adds no enumerator here.
  std::string kind = "crash";
  Duration at{};
  std::optional<Duration> for_duration;  // undo after this long (restart, resume, heal, ...)
  // Targets: node names, or "node/process" names for process-level faults.
  std::vector<std::string> targets;
  // Or a role resolved when the fault fires ("leader:kube-system/kube-scheduler"; targets is
  // then empty): scenarios/system.hpp's RoleKind.
  std::string role;
  // The parameters the registered kinds take, one shared vocabulary (a new kind reuses these
  // where they fit; its reader, writer and sentence are its own, in its system's folder).
  // clock_step
  Duration step{};
  // clock_rate
  std::int64_t rate_ppb = 1'000'000'000;
  // partition
  PartitionMode partition_mode = PartitionMode::isolate;
  std::vector<std::vector<std::string>> groups;  // groups: cut between every pair of groups
  std::vector<std::string> from;                 // oneway: from -> to cut
  std::vector<std::string> to;
  // terminate
  Duration grace = seconds(30);
  // disk-loss, slow-disk, disk-full: one disk of the target nodes; empty: every disk
  std::string disk;
  // slow-disk: operations take this many times as long
  std::int64_t factor = 10;
  // apiserver_slow
  Duration latency{};
  // apiserver_hang: "get", "list", "create", "update", "delete", "watch"; empty: all
  std::vector<std::string> verbs;
  // the etcd member API actions (member-add-learner, ...): up to `attempts` requests,
  // `retry` apart, until one is accepted
  Duration retry{};
  std::int64_t attempts = 1;
  // node-down-after-ack: the raft answer whose receipt cuts the power ("MsgAppResp", ...)
  std::string message;
  // etcd client actions (etcd-fill, etcd-compact, etcd-defrag, etcd-alarm-disarm): each
  // call's deadline; etcd-fill: `bytes` of `value_size`-byte values under `prefix`, the next
  // put `every` after an answer, over `keys` distinct keys (0: a new key each put);
  // etcd-compact: the revisions kept below the current one
  Duration timeout = seconds(5);
  std::int64_t bytes = 0;
  std::int64_t value_size = 1024;
  std::string prefix = "/hasim/fill/";
  Duration every{};
  std::int64_t keys = 0;
  std::int64_t keep = 0;
  // etcd-snapshot-save, etcd-snapshot-restore: the snapshot's name in the world's store
  std::string snapshot_name;
  // etcd-druid (scenarios/druid/): druid-scale's spec.replicas; druid-crash-loop's container
  // ("etcd", "backup-restore"); druid-image-update's "pullFails"
  std::int64_t replicas = 0;
  std::string container;
  bool pull_fails = false;
};

struct Scenario {
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  Duration duration = minutes(10);
  std::vector<NodeSpec> nodes;
  NetworkSpec network;
  // The sections of the registered systems present in the file, by section name.
  Sections sections;
  std::vector<FaultSpec> faults;        // in file order; the kernel orders by (at, index)
  std::vector<std::string> properties;  // e.g. "detect-crash:10s"

  // The spec of a system's section, or null if the scenario has none:
  //   scenario.section<ControlPlaneSpec>()
  template <typename Spec>
  const Spec* section() const {
    return sections.get<Spec>();
  }
  template <typename Spec>
  Spec* section() {
    return sections.get<Spec>();
  }
};

}  // namespace hasim
