// etcd's disaster recovery as a scenario action (etcd op-guide/recovery.md, "Restoring a
// cluster"): the operator restores a snapshot that an etcd-snapshot-save (ops_faults.cpp)
// put in the world's snapshot store onto the data directories of some members, and starts
// them as a new cluster:
//
//   {"at": "3m", "kind": "etcd-snapshot-restore", "name": "backup"}    every member
//   {"at": "3m", "kind": "etcd-snapshot-restore", "name": "backup", "nodes": ["n1", "n2"]}
//
// For each listed member, at the action's time: its static pod is taken down (the manifest
// moved out of /etc/kubernetes/manifests, as kubeadm's recovery does: the kubelet deletes
// the pod and restarts nothing), `etcdutl snapshot restore` replaces its data directory with
// a restored one (models/etcd/snapshot_restore.hpp: the keyspace at the snapshot's revision,
// a new cluster ID, the listed members as voters, the bootstrap entries), and the pod is
// started again. The listed members form the new cluster; members left out keep their old
// data and cluster ID, and the new cluster refuses their messages. The restore itself takes
// no simulated time. A member whose node is down, or a name never saved, is traced and left
// alone ("etcd-snapshot-restore" with a "result").
#include <algorithm>

#include "models/etcd/trace_kinds.hpp"
#include "scenarios/build.hpp"
#include "scenarios/etcd/member_faults.hpp"
#include "scenarios/etcd/spec.hpp"
#include "scenarios/fault_json.hpp"
#include "scenarios/loader_internal.hpp"
#include "sim/assert.hpp"
#include "sim/world.hpp"

namespace hasim {
namespace {

using scenario_loader::Context;

constexpr std::size_t kMaxNameLength = 256;

void read_restore(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  const EtcdSpec* etcd = c.scenario.section<EtcdSpec>();
  if (etcd == nullptr) {
    c.reader.error(path,
                   "an etcd-snapshot-restore rewrites etcd members' data directories; "
                   "add an \"etcd\" section");
    return;
  }
  read_snapshot_name(c, f, path, spec);
  if (JsonReader::field(f, "node") == nullptr && JsonReader::field(f, "nodes") == nullptr) {
    spec.targets = etcd->members;  // etcdutl restore for every member of --initial-cluster
    return;
  }
  scenario_loader::read_targets(c, f, path, spec, scenario_loader::TargetForms::nodes);
  const std::string at =
      JsonReader::key_path(path, JsonReader::field(f, "nodes") != nullptr ? "nodes" : "node");
  for (const std::string& node : spec.targets) {
    if (std::find(etcd->members.begin(), etcd->members.end(), node) != etcd->members.end()) {
      continue;
    }
    c.reader.error(at, "\"" + node +
                           "\" runs no member of the initial etcd cluster; a restore's "
                           "--initial-cluster lists members, which are " +
                           scenario_loader::join_quoted(etcd->members, " and "));
    return;
  }
}

// The new cluster's raft IDs: the listed members' (position in the member list + 1).
std::vector<raft::PeerId> voters_of(const EtcdSpec& etcd, const std::vector<std::string>& nodes) {
  std::vector<raft::PeerId> voters;
  for (std::size_t i = 0; i < etcd.members.size(); ++i) {
    if (std::find(nodes.begin(), nodes.end(), etcd.members[i]) != nodes.end()) {
      voters.push_back(i + 1);
    }
  }
  HASIM_ASSERT(voters.size() == nodes.size());
  return voters;
}

std::string id_list(const std::vector<raft::PeerId>& ids) {
  std::string out;
  for (const raft::PeerId id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

void restore_member(World& world, const std::string& node, raft::PeerId id,
                    const etcd::DataDirFiles& files, std::vector<TraceField> fields) {
  const auto process = world.find_process(node + "/etcd");
  const auto host = world.find_node(node);
  HASIM_ASSERT(process && host);
  fields.insert(fields.begin(), TraceField{"member", static_cast<std::int64_t>(id)});
  if (!world.is_up(*host)) {
    // A powered-off node: nothing runs there to restore with.
    fields.push_back({"result", std::string("node is down")});
    world.trace_fault(etcd::trace_kind::kSnapshotRestore, node, std::move(fields));
    return;
  }
  const auto volume = world.find_volume(*process, etcd::EtcdMember::kVolume);
  HASIM_ASSERT(volume.has_value());
  world.delete_pod(*process);  // the static pod's manifest moved away
  world.replace_volume_files(*volume, files);
  fields.push_back({"result", std::string("ok")});
  world.trace_fault(etcd::trace_kind::kSnapshotRestore, node, std::move(fields));
  world.restart(*process);  // the manifest back: the kubelet starts the pod
}

void apply_restore(World& world, const Scenario& scenario, const FaultSpec& fault,
                   const BuildState& built) {
  const EtcdWiring* wiring = built.get<EtcdWiring>();
  const EtcdSpec* etcd = scenario.section<EtcdSpec>();
  HASIM_ASSERT(wiring != nullptr && wiring->snapshots != nullptr && etcd != nullptr);
  const std::vector<raft::PeerId> voters = voters_of(*etcd, fault.targets);
  world.at(TrueTime{fault.at.ns}, [&world, fault, voters, store = wiring->snapshots] {
    const etcd::EtcdSnapshot* snapshot = store->find(fault.snapshot_name);
    if (snapshot == nullptr) {
      world.trace_fault(etcd::trace_kind::kSnapshotRestore, fault.targets.front(),
                        {{"snapshot", fault.snapshot_name},
                         {"result", std::string("no snapshot saved under that name")}});
      return;
    }
    const std::uint64_t cluster =
        etcd::restored_cluster_id(fault.snapshot_name, voters, world.now());
    const etcd::DataDirFiles files = etcd::restore_data_dir(*snapshot, voters, cluster);
    for (std::size_t i = 0; i < fault.targets.size(); ++i) {
      restore_member(world, fault.targets[i], voters[i], files,
                     {{"snapshot", fault.snapshot_name},
                      {"revision", snapshot->revision},
                      {"voters", id_list(voters)},
                      {"cluster", static_cast<std::int64_t>(cluster)},
                      {"index", static_cast<std::int64_t>(voters.size())}});
    }
  });
}

void write_restore(const FaultSpec& f, Json& out) {
  out["name"] = f.snapshot_name;
  out["nodes"] = f.targets;
}

std::string describe_restore(const FaultSpec& f) {
  return "etcd-snapshot-restore of \"" + f.snapshot_name + "\" onto the etcd members of " +
         fault_target_text(f);
}

}  // namespace

void read_snapshot_name(Context& c, const Json& f, const std::string& path, FaultSpec& spec) {
  const Json* name = JsonReader::field(f, "name");
  if (name == nullptr) {
    c.reader.error(path,
                   "an " + spec.kind +
                       " needs \"name\", the snapshot's name in the "
                       "snapshot store (e.g. \"backup\"), which etcd-snapshot-save writes and "
                       "etcd-snapshot-restore reads");
    return;
  }
  const std::string at = JsonReader::key_path(path, "name");
  const auto text = c.reader.string(*name, at);
  if (!text) return;
  if (text->empty() || text->size() > kMaxNameLength) {
    c.reader.error(at, "the snapshot's name must be 1 to " + std::to_string(kMaxNameLength) +
                           " characters, found \"" + *text + "\"");
    return;
  }
  spec.snapshot_name = *text;
}

FaultKind etcd_snapshot_restore_kind() {
  return {"etcd-snapshot-restore", read_restore,     apply_restore,
          write_restore,           describe_restore, std::nullopt};
}

KeySet etcd_snapshot_restore_keys() {
  return {"fault:etcd-snapshot-restore", {"at", "kind", "node", "nodes", "name"}};
}

}  // namespace hasim
