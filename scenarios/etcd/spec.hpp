#pragma once
// The etcd system's scenario section, "etcd" (scenarios/etcd/system.cpp).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "models/etcd/member.hpp"
#include "models/etcd/snapshot_restore.hpp"

namespace hasim {

class RaftLeaderTracker;

// etcd members (models/etcd/member.hpp), one process "etcd" on each member node, with its
// data directory on a persistent volume "data".
struct EtcdSpec {
  static constexpr std::string_view kSection = "etcd";
  std::vector<std::string> members;  // node names; default: every node
  // Nodes with an etcd process outside the initial cluster, for member-add-learner
  // (raft IDs after the members'); default: none.
  std::vector<std::string> standby;
  etcd::EtcdConfig config;           // config.members is filled when the world is built
  std::string disk;                  // default: each node's first disk
};

// What the etcd system leaves in the BuildState: who leads, for the "raft-leader" role.
struct EtcdWiring {
  static constexpr std::string_view kSection = "etcd";
  std::shared_ptr<RaftLeaderTracker> leaders;
  std::vector<std::string> processes;  // "node/etcd" by raft ID - 1: members, then standby
  // Where etcd-snapshot-save puts its files and etcd-snapshot-restore reads them: the
  // operator's disk or object storage, outside every node (scenarios/etcd/snapshot_faults.cpp).
  std::shared_ptr<etcd::SnapshotStore> snapshots;
};

}  // namespace hasim
