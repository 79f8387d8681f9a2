#pragma once
// The etcd system's actions (scenarios/etcd/member_faults.cpp): etcdctl's member API and
// move-leader at scenario times, as fault kinds of the registry, and the section's
// "standby" nodes they add.
#include <string>
#include <vector>

#include "scenarios/system.hpp"

namespace hasim {

struct EtcdSpec;

// "member-add-learner", "member-promote", "member-remove" and "move-leader".
std::vector<FaultKind> etcd_member_fault_kinds();
// Their key sets, for the system's key_sets.
std::vector<KeySet> etcd_member_key_sets();
// "node-down-after-ack" (scenarios/etcd/ack_power_loss.cpp): a power loss aimed at the
// window between a member's acknowledgement leaving and its WAL write being durable.
FaultKind etcd_ack_power_loss_kind();
KeySet etcd_ack_power_loss_keys();
// "etcd-fill", "etcd-compact", "etcd-defrag", "etcd-alarm-disarm" and "etcd-snapshot-save"
// (scenarios/etcd/ops_faults.cpp): etcdctl against one member, and their key sets.
std::vector<FaultKind> etcd_ops_fault_kinds();
std::vector<KeySet> etcd_ops_key_sets();
// "etcd-snapshot-restore" (scenarios/etcd/snapshot_faults.cpp): etcdutl snapshot restore of
// a saved snapshot onto members' data directories, and its key set.
FaultKind etcd_snapshot_restore_kind();
KeySet etcd_snapshot_restore_keys();
// The snapshot's "name" of etcd-snapshot-save and etcd-snapshot-restore into spec.
void read_snapshot_name(scenario_loader::Context& c, const Json& fault, const std::string& path,
                        FaultSpec& spec);
// An "etcdctl" process on each of `nodes` if the scenario has one of those actions.
void add_etcdctl(World& world, const Scenario& scenario, const std::vector<std::string>& nodes);
// "standby": nodes with an etcd process that is not in the initial cluster; false on error.
bool read_standby(scenario_loader::Context& c, const Json& section, const std::string& path,
                  EtcdSpec& spec);

}  // namespace hasim
