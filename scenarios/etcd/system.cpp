// etcd members as a registered system (scenarios/system.hpp): section "etcd", a process
// "etcd" on each member node (models/etcd/member.hpp) with its data directory on a
// persistent volume "data", and the fault-target role "raft-leader".
#include <algorithm>

#include "models/etcd/raft_roles.hpp"
#include "models/etcd/trace_kinds.hpp"
#include "scenarios/etcd/etcd.hpp"
#include "scenarios/etcd/paper_mode.hpp"
#include "scenarios/etcd/member_faults.hpp"
#include "scenarios/loader_internal.hpp"
#include "sim/assert.hpp"
#include "sim/world.hpp"

namespace hasim {

class RaftLeaderTracker final : public TraceObserver {
 public:
  void on_event(const TraceEvent& event) override { roles_.observe(event); }
  bool wants(std::string_view kind) const override { return etcd::RaftRoles::reads(kind); }
  std::optional<std::string> leader() const { return roles_.leader(); }

 private:
  etcd::RaftRoles roles_;
};

namespace {

using scenario_loader::Context;
using scenario_loader::keys;

// etcd's limits (server/embed/config.go Validate, server/etcdserver/api/v3rpc): the election
// timeout is at least 5 heartbeats and at most 50 s.
constexpr Duration kMaxElectionTimeout = seconds(50);
constexpr std::int64_t kMaxRate = 100'000;
constexpr std::int64_t kMaxQuotaBackendBytes = std::int64_t{1} << 40;
constexpr std::int64_t kMaxDefragBytesPerSecond = std::int64_t{1} << 40;

bool read_integer_field(JsonReader& r, const Json& value, const std::string& path,
                        std::string_view key, std::int64_t min, std::int64_t max,
                        std::int64_t& target) {
  const Json* v = JsonReader::field(value, key);
  if (v == nullptr) return true;
  const auto n = r.integer(*v, JsonReader::key_path(path, key), min, max);
  if (n) target = *n;
  return n.has_value();
}

// --quota-backend-bytes (server/storage/quota.go NewBackendQuota): 0 is etcd's default
// (2 GiB), a negative value turns the quota off, anything else is the limit in bytes.
bool read_quota(JsonReader& r, const Json& value, const std::string& path,
                etcd::EtcdConfig& config) {
  const Json* v = JsonReader::field(value, "quotaBackendBytes");
  if (v == nullptr) return true;
  const std::string at = JsonReader::key_path(path, "quotaBackendBytes");
  std::optional<std::int64_t> n;
  if (v->is_number_unsigned()) {
    if (v->get<std::uint64_t>() <= static_cast<std::uint64_t>(kMaxQuotaBackendBytes)) {
      n = static_cast<std::int64_t>(v->get<std::uint64_t>());
    }
  } else if (v->is_number_integer()) {
    n = v->get<std::int64_t>();
  }
  if (n && *n >= -1 && *n <= kMaxQuotaBackendBytes) {
    config.quotaBackendBytes = *n;
    return true;
  }
  r.error(at, "quotaBackendBytes is etcd's --quota-backend-bytes in bytes: a whole number up "
              "to " + std::to_string(kMaxQuotaBackendBytes) +
              " (1 TiB; etcd suggests at most 8 GiB), 0 for etcd's default of 2 GiB, or -1 "
              "to turn the quota off; found " + v->dump());
  return false;
}

bool check_timeouts(JsonReader& r, const std::string& path, const etcd::EtcdConfig& config) {
  const Duration heartbeat = config.heartbeatInterval;
  const Duration election = config.electionTimeout;
  const std::string at = JsonReader::key_path(path, "electionTimeout");
  if (election.ns < 5 * heartbeat.ns) {
    r.error(at, "the election timeout " + format_duration(election) +
                    " must be at least 5 times the heartbeat interval " +
                    format_duration(heartbeat) + " (etcd: --election-timeout should be at "
                    "least as 5 times as --heartbeat-interval)");
    return false;
  }
  if (election > kMaxElectionTimeout) {
    r.error(at, "the election timeout " + format_duration(election) +
                    " is longer than etcd's maximum, 50s");
    return false;
  }
  return true;
}

bool read_members(Context& c, const Json& value, const std::string& path, EtcdSpec& spec) {
  const Json* members = JsonReader::field(value, "members");
  if (members == nullptr) {
    spec.members = c.nodes.names;
    return true;
  }
  auto list = scenario_loader::read_node_list(c, *members, JsonReader::key_path(path, "members"));
  if (list) spec.members = *list;
  return list.has_value();
}

void read_etcd(Context& c, const Json& value, const std::string& path) {
  JsonReader& r = c.reader;
  if (!r.object(value, path, keys("etcd"), "the etcd section")) return;
  EtcdSpec spec;
  etcd::EtcdConfig& config = spec.config;
  bool ok = read_members(c, value, path, spec);
  ok = ok && read_standby(c, value, path, spec);
  // Paper mode (the Raft paper's election experiment) reads its own timing keys.
  const auto mode = etcd_paper_mode::read_mode(r, value, path);
  if (mode == etcd::EtcdMode::paper) {
    ok = etcd_paper_mode::read_paper_timing(r, value, path, config) && ok;
  } else {
    ok = mode.has_value() && etcd_paper_mode::reject_paper_keys(r, value, path) && ok;
    ok = scenario_loader::read_duration_field(r, value, path, "heartbeatInterval",
                                              DurationSign::positive, config.heartbeatInterval) &&
         ok;
    ok = scenario_loader::read_duration_field(r, value, path, "electionTimeout",
                                              DurationSign::positive, config.electionTimeout) &&
         ok;
    ok = ok && check_timeouts(r, path, config);
    ok = scenario_loader::read_bool_field(r, value, path, "preVote", config.preVote) && ok;
    ok = scenario_loader::read_bool_field(r, value, path, "checkQuorum", config.checkQuorum) &&
         ok;
  }
  ok = scenario_loader::read_bool_field(r, value, path, "unsafeAckBeforeFsync",
                                        config.unsafeAckBeforeFsync) &&
       ok;
  std::int64_t count = static_cast<std::int64_t>(config.snapshotCount);
  ok = read_integer_field(r, value, path, "snapshotCount", 1, 1'000'000'000, count) && ok;
  config.snapshotCount = static_cast<std::uint64_t>(count);
  std::int64_t catchUp = static_cast<std::int64_t>(config.snapshotCatchUpEntries);
  ok = read_integer_field(r, value, path, "snapshotCatchUpEntries", 1, 1'000'000'000, catchUp) &&
       ok;
  config.snapshotCatchUpEntries = static_cast<std::uint64_t>(catchUp);
  ok = read_integer_field(r, value, path, "rate", 0, kMaxRate, config.rate) && ok;
  ok = read_quota(r, value, path, config) && ok;
  ok = read_integer_field(r, value, path, "defragBytesPerSecond", 1, kMaxDefragBytesPerSecond,
                          config.defragBytesPerSecond) &&
       ok;
  if (const Json* disk = JsonReader::field(value, "disk")) {
    const std::string at = JsonReader::key_path(path, "disk");
    const auto name = r.string(*disk, at);
    ok = name.has_value() && scenario_loader::check_disk(c, spec.members, *name, at) && ok;
    if (name) spec.disk = *name;
  }
  if (ok && spec.members.empty()) {
    r.error(JsonReader::key_path(path, "members"), "an etcd cluster needs at least one member");
    ok = false;
  }
  if (ok) c.scenario.sections.set(spec);
}

// What the operator would see in the member's data directory when it starts: whether a disk
// loss took it (models/etcd/member_membership.cpp refuses to bootstrap again).
etcd::EtcdConfig data_dir_lost(etcd::EtcdConfig config, const World& world, VolumeId volume) {
  config.dataDirLost = world.volume(volume).wipes > 0;
  return config;
}

void add_members(World& world, const Scenario& scenario, BuildState& built) {
  const EtcdSpec& spec = *scenario.section<EtcdSpec>();
  etcd::EtcdConfig config = spec.config;
  config.members.clear();
  for (const std::string& name : spec.members) config.members.push_back(name + "/etcd");
  for (const std::string& name : spec.standby) config.standby.push_back(name + "/etcd");
  config.directory = std::make_shared<etcd::MemberDirectory>();
  std::vector<std::string> nodes = spec.members;
  nodes.insert(nodes.end(), spec.standby.begin(), spec.standby.end());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto node = world.find_node(nodes[i]);
    HASIM_ASSERT(node.has_value());
    const raft::PeerId id = i + 1;
    auto volume = std::make_shared<VolumeId>(0);
    const ProcessId process =
        world.add_process(*node, "etcd", [config, id, volume, w = &world] {
          return std::make_unique<etcd::EtcdMember>(data_dir_lost(config, *w, *volume), id);
        });
    const std::string disk = spec.disk.empty() ? world.disk_names(*node).front() : spec.disk;
    *volume = world.add_volume(process, std::string(etcd::EtcdMember::kVolume), disk,
                               VolumeKind::persistent);
  }
  EtcdWiring wiring;
  wiring.leaders = std::make_shared<RaftLeaderTracker>();
  wiring.snapshots = std::make_shared<etcd::SnapshotStore>();
  for (const std::string& name : nodes) wiring.processes.push_back(name + "/etcd");
  world.trace().add_observer(wiring.leaders.get());
  world.keep_alive(wiring.leaders);
  built.set(wiring);
  add_etcdctl(world, scenario, nodes);
}

std::optional<std::vector<std::string>> processes_on(const Context& c, const std::string& node) {
  const EtcdSpec* spec = c.scenario.section<EtcdSpec>();
  if (spec == nullptr) return std::nullopt;
  const bool here =
      std::find(spec->members.begin(), spec->members.end(), node) != spec->members.end() ||
      std::find(spec->standby.begin(), spec->standby.end(), node) != spec->standby.end();
  return here ? std::vector<std::string>{"etcd"} : std::vector<std::string>{};
}

// "raft-leader": the etcd member that leads (at the highest term, if an isolated old leader
// has not stepped down yet) when the fault fires.
std::optional<std::string> check_role(std::string_view argument) {
  if (argument.empty() || argument == "raft-leader") return std::nullopt;
  return "\"raft-leader\" takes no argument, found \"" + std::string(argument) + "\"";
}

std::optional<std::string> resolve_role(const World&, const BuildState& built, std::string_view) {
  const EtcdWiring* wiring = built.get<EtcdWiring>();
  if (wiring == nullptr || wiring->leaders == nullptr) return std::nullopt;
  return wiring->leaders->leader();
}

}  // namespace

std::optional<std::string> current_raft_leader(const EtcdWiring& wiring) {
  HASIM_ASSERT(wiring.leaders != nullptr);
  return wiring.leaders->leader();
}

const ScenarioSystem& etcd_scenario_system() {
  static const ScenarioSystem system = [] {
    ScenarioSystem s;
    s.name = "etcd";
    s.section = EtcdSpec::kSection;
    s.key_sets = {{"etcd",
                   {"members", "heartbeatInterval", "electionTimeout", "preVote", "checkQuorum",
                    "snapshotCount", "snapshotCatchUpEntries", "rate", "disk",
                    "unsafeAckBeforeFsync", "mode", "tick", "timerRule", "standby",
                    "quotaBackendBytes", "defragBytesPerSecond"}}};
    for (KeySet& set : etcd_member_key_sets()) s.key_sets.push_back(std::move(set));
    s.key_sets.push_back(etcd_ack_power_loss_keys());
    s.fault_kinds = etcd_member_fault_kinds();
    s.fault_kinds.push_back(etcd_ack_power_loss_kind());
    for (FaultKind& kind : etcd_ops_fault_kinds()) s.fault_kinds.push_back(kind);
    for (KeySet& set : etcd_ops_key_sets()) s.key_sets.push_back(std::move(set));
    s.fault_kinds.push_back(etcd_snapshot_restore_kind());
    s.key_sets.push_back(etcd_snapshot_restore_keys());
    s.read = read_etcd;
    s.processes_on = processes_on;
    s.process_origin = "\"etcd\" (\"etcd\" on each of its members)";
    s.build = add_members;
    s.roles = {RoleKind{"raft-leader", "raft-leader",
                        "the etcd member that leads when the fault fires", check_role,
                        resolve_role}};
    s.trace_kinds.assign(etcd::trace_kind::kAll.begin(), etcd::trace_kind::kAll.end());
    s.dictionary = {"raft-leader", "n1/etcd", "StateLeader"};
    return s;
  }();
  return system;
}

}  // namespace hasim
