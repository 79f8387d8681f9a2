// The Etcd's backup store in a scenario: "backup" of the etcdDruid section, the object store
// it names, and its outage as a fault kind of the etcd-druid system:
//
//   "backup": {"storeNode": "s3", "deltaSnapshotPeriod": "5m",
//              "fullSnapshotSchedule": "0 */1 * * *", "garbageCollectionPolicy": "LimitBased",
//              "maxBackupsLimitBasedGC": 7, "garbageCollectionPeriod": "1m",
//              "deltaSnapshotRetentionPeriod": "0s"}
//   {"at": "10m", "kind": "druid-backup-store-down", "for": "1h"}
//
// The store is a process on its own node (models/druid/snapstore.hpp); the outage takes
// that node down for "for" (the bucket keeps every snapshot), so the sidecar's uploads and
// listings time out.
#include "models/druid/sidecar_cron.hpp"
#include "models/druid/snapstore.hpp"
#include "scenarios/druid/druid.hpp"
#include "scenarios/loader_internal.hpp"
#include "sim/assert.hpp"
#include "sim/world.hpp"

namespace hasim {
namespace {

using scenario_loader::Context;

bool read_store_node(Context& c, const Json& value, const std::string& path,
                     DruidBackupStore& backup) {
  const std::string at = JsonReader::key_path(path, "storeNode");
  const Json* node = JsonReader::field(value, "storeNode");
  if (node == nullptr) {
    c.reader.error(at,
                   "the backup store needs a node of its own: add \"storeNode\": \"s3\" (and "
                   "the node to \"nodes\")");
    return false;
  }
  const auto text = c.reader.string(*node, at);
  if (!text || !scenario_loader::check_node(c, *text, at)) return false;
  backup.storeNode = *text;
  return true;
}

bool read_schedule(Context& c, const Json& value, const std::string& path,
                   DruidBackupStore& backup) {
  const Json* field = JsonReader::field(value, "fullSnapshotSchedule");
  if (field == nullptr) return true;
  const std::string at = JsonReader::key_path(path, "fullSnapshotSchedule");
  const auto text = c.reader.string(*field, at);
  if (!text) return false;
  std::string why;
  if (!druid::sidecar::parse_cron(*text, &why).has_value()) {
    c.reader.error(at, "\"" + *text + "\" is not a cron schedule (" + why +
                           "): five fields, e.g. \"0 */1 * * *\" (hourly)");
    return false;
  }
  backup.fullSnapshotSchedule = *text;
  return true;
}

// Garbage collection: the policy druid passes (LimitBased unless the Etcd names one), the full
// snapshots LimitBased keeps (--max-backups, passed with LimitBased only), and the period and
// delta retention, passed only when set (backup-restore's defaults, 1m and 0).
bool read_gc(Context& c, const Json& value, const std::string& path, DruidBackupStore& backup) {
  bool ok = true;
  if (const Json* field = JsonReader::field(value, "garbageCollectionPolicy")) {
    const std::string at = JsonReader::key_path(path, "garbageCollectionPolicy");
    const auto text = c.reader.string(*field, at);
    const auto policy = text ? druid::sidecar::parse_gc_policy(*text) : std::nullopt;
    if (text && !policy) {
      c.reader.error(at, "\"" + *text +
                             "\" is not a garbage-collection policy: use \"LimitBased\" (druid's "
                             "default) or \"Exponential\"");
    }
    if (policy) backup.gcPolicy = *policy;
    ok = policy.has_value();
  }
  if (const Json* field = JsonReader::field(value, "maxBackupsLimitBasedGC")) {
    const std::string at = JsonReader::key_path(path, "maxBackupsLimitBasedGC");
    const auto n = c.reader.integer(*field, at, 0, 100'000);
    if (n && backup.gcPolicy != druid::sidecar::GcPolicy::LimitBased) {
      c.reader.error(at,
                     "maxBackupsLimitBasedGC applies to the LimitBased policy only: remove it or "
                     "set \"garbageCollectionPolicy\": \"LimitBased\"");
    }
    if (n) backup.maxBackups = *n;
    ok = n.has_value() && backup.gcPolicy == druid::sidecar::GcPolicy::LimitBased && ok;
  }
  ok = scenario_loader::read_duration_field(c.reader, value, path, "garbageCollectionPeriod",
                                            DurationSign::non_negative, backup.gcPeriod) &&
       ok;
  ok = scenario_loader::read_duration_field(c.reader, value, path, "deltaSnapshotRetentionPeriod",
                                            DurationSign::non_negative, backup.deltaRetention) &&
       ok;
  return ok;
}

}  // namespace

bool read_druid_backup(Context& c, const Json& section, const std::string& path, DruidSpec& spec) {
  const Json* value = JsonReader::field(section, "backup");
  if (value == nullptr) return true;
  const std::string at = JsonReader::key_path(path, "backup");
  if (!c.reader.object(*value, at, scenario_loader::keys("druidBackup"), "the backup store")) {
    return false;
  }
  DruidBackupStore backup;
  bool ok = read_store_node(c, *value, at, backup);
  ok = read_schedule(c, *value, at, backup) && ok;
  ok = read_gc(c, *value, at, backup) && ok;
  if (JsonReader::field(*value, "deltaSnapshotPeriod") == nullptr) {
    c.reader.error(at,
                   "add \"deltaSnapshotPeriod\", e.g. \"5m\": druid's BackupReady check reads "
                   "it, and upstream has no default for it");
    return false;
  }
  ok = scenario_loader::read_duration_field(c.reader, *value, at, "deltaSnapshotPeriod",
                                            DurationSign::positive, backup.deltaSnapshotPeriod) &&
       ok;
  if (ok) spec.backup = std::move(backup);
  return ok;
}

KeySet druid_backup_key_set() {
  return {"druidBackup",
          {"storeNode", "deltaSnapshotPeriod", "fullSnapshotSchedule", "garbageCollectionPolicy",
           "maxBackupsLimitBasedGC", "garbageCollectionPeriod", "deltaSnapshotRetentionPeriod"}};
}

std::optional<ProcessId> add_druid_object_store(World& world, const DruidSpec& spec) {
  if (!spec.backup.has_value()) return std::nullopt;
  const auto node = world.find_node(spec.backup->storeNode);
  HASIM_ASSERT(node.has_value());
  auto bucket = std::make_shared<druid::Snapstore>();
  world.keep_alive(bucket);
  return world.add_process(*node, std::string(DruidBackupStore::kStoreProcess),
                           [bucket] { return std::make_unique<druid::SnapstoreServer>(bucket); });
}

namespace {

void read_store_down(Context& c, const Json&, const std::string& path, FaultSpec& spec) {
  const DruidSpec* druid = c.scenario.section<DruidSpec>();
  if (druid != nullptr && !druid->backup.has_value()) {
    c.reader.error(path,
                   "druid-backup-store-down needs a backup store: add \"backup\" to the "
                   "etcdDruid section");
  }
  if (!spec.for_duration) {
    c.reader.error(path,
                   "druid-backup-store-down needs how long the outage lasts: add "
                   "\"for\": \"1h\"");
  }
}

// The store's node goes down and comes back: in-flight calls and every call meanwhile go
// unanswered (a crash alone would be undone at once by the node's supervisor).
void apply_store_down(World& world, const Scenario& scenario, const FaultSpec& fault,
                      const BuildState&) {
  HASIM_ASSERT(fault.for_duration.has_value());
  const auto node = world.find_node(scenario.section<DruidSpec>()->backup->storeNode);
  HASIM_ASSERT(node.has_value());
  World* w = &world;
  const NodeId id = *node;
  world.at(TrueTime{fault.at.ns}, [w, id] { w->node_down(id); });
  world.at(TrueTime{(fault.at + *fault.for_duration).ns}, [w, id] { w->node_up(id); });
}

void write_store_down(const FaultSpec&, Json&) {}

std::string describe_store_down(const FaultSpec&) { return "the backup store is unreachable"; }

}  // namespace

FaultKind druid_backup_store_down_fault_kind() {
  return {"druid-backup-store-down", read_store_down,     apply_store_down,
          write_store_down,          describe_store_down, std::nullopt};
}

KeySet druid_backup_store_down_key_set() {
  return {"fault:druid-backup-store-down", {"at", "kind", "for"}};
}

}  // namespace hasim
