// Building the etcd-druid system into a World: for each ordinal the Etcd's StatefulSet may
// reach, the two containers of its pod as processes (stopped until the pod runs), the
// workload controllers that place and run them, and etcd-druid on its node.
#include <algorithm>
#include <memory>

#include "models/druid/backup_restore.hpp"
#include "models/druid/druid_controller.hpp"
#include "models/druid/etcd_spec_rules.hpp"
#include "models/druid/etcd_wrapper.hpp"
#include "models/druid/service_writer.hpp"
#include "scenarios/control_plane/control_plane.hpp"
#include "scenarios/druid/druid.hpp"
#include "sim/assert.hpp"
#include "sim/world.hpp"

namespace hasim {
namespace {

// The configuration druid's ConfigMap gives etcd (internal/component/configmap/etcdconfig.go):
// etcd's default timing, snapshot-count 10000 and an 8 GiB quota.
etcd::EtcdConfig druid_etcd_config(const DruidSpec& spec, const World& world,
                                   const std::vector<ProcessId>& etcds,
                                   std::shared_ptr<etcd::MemberDirectory> directory) {
  etcd::EtcdConfig config;
  config.snapshotCount = 10'000;
  config.quotaBackendBytes = std::int64_t{8} << 30;
  for (int ordinal = 0; ordinal < spec.replicas; ++ordinal) {
    config.members.push_back(world.process_name(etcds[ordinal]));
  }
  config.directory = std::move(directory);
  return config;
}

workloads::StatefulSetTemplate stateful_set(const DruidSpec& spec,
                                            const std::shared_ptr<druid::EtcdResource>& resource) {
  const druid::EtcdResource& etcd = *resource;
  workloads::StatefulSetTemplate set;
  set.name = spec.name;
  set.spec.replicas = 0;  // until druid creates the set
  // statefulset/builder.go: Parallel pod management, RollingUpdate.
  set.spec.podManagementPolicy = cluster::PodManagementPolicy::Parallel;
  set.spec.updateStrategy = cluster::UpdateStrategyType::RollingUpdate;
  set.spec.currentRevision = set.spec.updateRevision = druid::template_revision(spec.name, etcd);
  // defaultResourceRequirements: 50m and 128Mi for each container.
  const cluster::Resources requests{50, std::int64_t{128} << 20};
  // getEtcdContainerReadinessProbe: GET /readyz on etcd-wrapper, 15 s delay, every 5 s,
  // failure threshold 5.
  cluster::ProbeSpec readyz;
  readyz.initialDelaySeconds = 15;
  readyz.periodSeconds = 5;
  readyz.failureThreshold = 5;
  set.containers = {{std::string(DruidSpec::kEtcdContainer), requests, readyz},
                    {std::string(DruidSpec::kSidecarContainer), requests, std::nullopt}};
  set.volume = spec.storage == DruidStorage::persistent
                   ? workloads::DataVolume::persistentVolumeClaim
                   : workloads::DataVolume::emptyDir;
  set.volumeName = std::string(etcd::EtcdMember::kVolume);
  set.labels = {{"app.kubernetes.io/name", spec.name}};
  // poddisruptionbudget.go: minAvailable a majority of the replicas (0 for one member). The
  // proposal's druid writes its own (no PDB, i.e. nothing blocks, for a single node).
  set.budgetMinAvailable = [resource](int replicas) {
    if (resource->mode == druid::DruidMode::upstream) return druid::pdb_min_available(replicas);
    return resource->proposalMinAvailable.value_or(0);
  };
  if (spec.antiAffinity != DruidAntiAffinity::none) {
    set.requiredAntiAffinity.push_back(cluster::AntiAffinityTerm{
        set.labels,
        spec.antiAffinity == DruidAntiAffinity::zone ? cluster::TopologyKey::Zone
                                                     : cluster::TopologyKey::Hostname,
        0});
  }
  return set;
}

// getBackupStoreCommandArgs: the sidecar's flags for spec.backup.
druid::SnapshotterSettings snapshotter_settings(const DruidSpec& spec, ProcessId store) {
  druid::SnapshotterSettings settings;
  settings.store = store;
  settings.deltaSnapshotPeriod = spec.backup->deltaSnapshotPeriod;
  if (spec.backup->fullSnapshotSchedule.has_value()) {
    settings.fullSnapshotSchedule = *spec.backup->fullSnapshotSchedule;
  }
  settings.gcPolicy = spec.backup->gcPolicy;
  settings.maxBackups = spec.backup->maxBackups;
  settings.gcPeriod = spec.backup->gcPeriod;
  settings.deltaRetention = spec.backup->deltaRetention;
  settings.fullSnapshotLease = spec.name + "-full-snap";
  settings.deltaSnapshotLease = spec.name + "-delta-snap";
  return settings;
}

ProcessId add_druid_controller(World& world, const Scenario& scenario,
                               const std::shared_ptr<workloads::StatefulPods>& runtime,
                               const std::shared_ptr<druid::EtcdResource>& etcd) {
  const DruidSpec& spec = *scenario.section<DruidSpec>();
  const auto node = world.find_node(druid_node(scenario));
  HASIM_ASSERT(node.has_value());
  druid::DruidControllerConfig config;
  config.apiserver = druid_in_cluster_client(*scenario.section<ControlPlaneSpec>(), "etcd-druid");
  config.namespace_ = spec.namespace_;
  config.etcdName = spec.name;
  config.etcd = etcd;
  workloads::StatefulPods* pods = runtime.get();
  config.applyStatefulSet = [pods](int replicas, const std::string& revision, bool pullFails) {
    pods->roll(revision, pullFails);  // a no-op for an unchanged template
    if (pods->replicas() != replicas) pods->scale(replicas);
  };
  const int ordinals = std::max(spec.replicas, spec.maxReplicas);
  config.statefulSet = [pods, ordinals] {
    druid::StatefulSetView view;
    view.replicas = pods->replicas();
    for (int ordinal = 0; ordinal < ordinals; ++ordinal) {
      const auto pod = pods->pod(ordinal);
      if (!pod.has_value()) continue;
      view.anyPod = true;
      view.readyReplicas += pod->ready && ordinal < view.replicas ? 1 : 0;
    }
    return view;
  };
  // The API server takes the deletion; the kubelet acts on it after druid's call returns.
  config.deletePod = [&world, pods](int ordinal) {
    world.at(world.now(), [pods, ordinal] {
      if (pods->pod(ordinal).has_value()) pods->delete_pod(ordinal, "etcd-druid");
    });
  };
  config.budgetChanged = [pods] { pods->budget_changed(); };
  config.proposal.unknownGracePeriod = spec.unknownGracePeriod;
  config.proposal.notReadyGracePeriod = spec.notReadyGracePeriod;
  config.podContainersReady = [pods](int ordinal) {
    const auto pod = pods->pod(ordinal);
    if (!pod.has_value()) return druid::PodContainersReady::kPodNotFound;
    return pod->containersReady ? druid::PodContainersReady::kTrue
                                : druid::PodContainersReady::kFalse;
  };
  if (spec.backup.has_value()) {
    config.backup =
        druid::DruidBackupSpec{spec.backup->deltaSnapshotPeriod, spec.backup->fullSnapshotSchedule,
                               spec.name + "-full-snap", spec.name + "-delta-snap"};
  }
  return world.add_process(*node, std::string(DruidSpec::kDruidProcess),
                           [config] { return std::make_unique<druid::DruidController>(config); });
}

}  // namespace

api::ApiClientConfig druid_in_cluster_client(const ControlPlaneSpec& cp, std::string user) {
  api::ApiClientConfig config;
  // In-cluster config: the "kubernetes" Service over every apiserver.
  for (const std::string& node : cp.nodes) {
    config.apiservers.push_back(node + "/" + std::string(kApiServerProcess));
  }
  config.load_balanced = config.apiservers.size() > 1;
  config.user = std::move(user);
  // client-go's HTTP/2 health check (apimachinery pkg/util/net/http.go, on by default since
  // kubernetes#95981): a connection that reads nothing for 30s is pinged and closed when no
  // answer comes within 15s, failing its requests. A request to an apiserver whose node went
  // down (no RST) therefore ends about 45s on instead of never; hasim bounds every request so.
  config.timeout = seconds(30 + 15);
  return config;
}

namespace {

// One ordinal's pod: its two containers as processes (stopped until the pod runs on a worker)
// and the configurations their factories read at every start, filled in once every process
// exists (add_druid).
struct DruidOrdinal {
  std::shared_ptr<druid::PodContainers> pod = std::make_shared<druid::PodContainers>();
  std::shared_ptr<druid::EtcdWrapperConfig> wrapper = std::make_shared<druid::EtcdWrapperConfig>();
  std::shared_ptr<druid::BackupRestoreConfig> sidecar =
      std::make_shared<druid::BackupRestoreConfig>();
};

DruidOrdinal add_pod_processes(World& world, const DruidSpec& spec, int ordinal,
                               NodeId placeholder) {
  DruidOrdinal o;
  o.pod->pod = spec.name + "-" + std::to_string(ordinal);
  o.pod->ordinal = ordinal;
  auto wrapper = o.wrapper;
  o.pod->etcd = world.add_process(
      placeholder, druid_container_process(spec, ordinal, DruidSpec::kEtcdContainer),
      [wrapper] { return std::make_unique<druid::EtcdWrapper>(*wrapper); }, StartPolicy::on_demand);
  auto sidecar = o.sidecar;
  o.pod->backupRestore = world.add_process(
      placeholder, druid_container_process(spec, ordinal, DruidSpec::kSidecarContainer),
      [sidecar] { return std::make_unique<druid::BackupRestore>(*sidecar); },
      StartPolicy::on_demand);
  world.keep_alive(o.wrapper);
  world.keep_alive(o.sidecar);
  return o;
}

}  // namespace

void add_druid(World& world, const Scenario& scenario, BuildState& built) {
  const DruidSpec& spec = *scenario.section<DruidSpec>();
  const ControlPlaneSpec& cp = *scenario.section<ControlPlaneSpec>();
  const auto placeholder = world.find_node(spec.workers.front());
  HASIM_ASSERT(placeholder.has_value());
  auto directory = std::make_shared<etcd::MemberDirectory>();
  // Every ordinal the set may reach over the run (a scale-up's pods included).
  const int ordinals = std::max(spec.replicas, spec.maxReplicas);
  HASIM_ASSERT(ordinals >= 1 && ordinals <= kDruidMaxOrdinals);
  std::vector<DruidOrdinal> setup;
  std::vector<workloads::OrdinalContainers> containers;
  std::vector<ProcessId> etcds;
  for (int ordinal = 0; ordinal < ordinals; ++ordinal) {
    const DruidOrdinal& o =
        setup.emplace_back(add_pod_processes(world, spec, ordinal, *placeholder));
    // The bootstrap members' IDs follow their place in initial-cluster; a later pod's is the
    // one its sidecar adds it with.
    if (ordinal < spec.replicas) {
      directory->set_address(static_cast<raft::PeerId>(ordinal) + 1, o.pod->etcd);
    }
    etcds.push_back(o.pod->etcd);
    containers.push_back(workloads::OrdinalContainers{
        {o.pod->etcd, o.pod->backupRestore}, {[pod = o.pod] { return pod->etcdReady; }, {}}});
  }
  // The Etcd as created: druid's first reconcile writes the same ConfigMap before any pod.
  auto resource = std::make_shared<druid::EtcdResource>();
  resource->replicas = spec.replicas;
  resource->configMapClusterSize = spec.replicas;
  resource->mode = spec.mode;
  if (spec.mode == druid::DruidMode::proposal && spec.replicas > 1) {
    resource->proposalMinAvailable = spec.replicas / 2 + 1;  // druid's first PDB
  }
  std::vector<workloads::WorkerNode> workers;
  for (const std::string& name : spec.workers) workers.push_back(workloads::WorkerNode{name});
  auto runtime = std::make_shared<workloads::StatefulPods>(
      world, stateful_set(spec, resource), std::move(workers), std::move(containers), spec.timings);
  world.trace().add_observer(runtime.get());
  world.keep_alive(runtime);
  const workloads::StatefulPods* pods = runtime.get();
  const etcd::EtcdConfig etcd = druid_etcd_config(spec, world, etcds, directory);
  const std::optional<ProcessId> store = add_druid_object_store(world, spec);
  std::vector<std::string> etcdNames;
  for (const ProcessId p : etcds) etcdNames.push_back(world.process_name(p));
  for (DruidOrdinal& o : setup) {
    o.wrapper->pod = o.pod;
    o.wrapper->etcd = etcd;
    o.wrapper->ordinalEtcds = etcds;
    o.wrapper->ordinalNames = etcdNames;
    o.wrapper->clusterSize = [resource] { return resource->configMapClusterSize; };
    // configmap/etcdconfig.go: auto-compaction-mode periodic, retention 30m.
    o.wrapper->autoCompactionRetention = minutes(30);
    druid::BackupRestoreConfig& sidecar = *o.sidecar;
    sidecar.pod = o.pod;
    sidecar.clusterSize = [resource] { return resource->configMapClusterSize; };
    sidecar.serviceEndpoints = [pods] { return pods->ready_endpoints(0); };
    sidecar.directory = directory;
    sidecar.apiserver = druid_in_cluster_client(cp, o.pod->pod + "/backup-restore");
    sidecar.leaseNamespace = spec.namespace_;
    if (store.has_value()) sidecar.backup = snapshotter_settings(spec, *store);
    sidecar.mode = spec.mode;
    sidecar.etcdName = spec.name;
    sidecar.etcdStatus = [resource] { return resource->status; };
  }
  const ProcessId druid = add_druid_controller(world, scenario, runtime, resource);
  if (spec.writeRate > 0) {
    druid::ServiceWriterConfig writer{spec.writeRate, [pods] { return pods->ready_endpoints(0); },
                                      druid_node(scenario) + "/etcd-client"};
    world.add_process(*world.find_node(druid_node(scenario)), "etcd-client",
                      [writer] { return std::make_unique<druid::ServiceWriter>(writer); });
  }
  DruidWiring wiring{runtime, resource, druid, store, std::nullopt, {}};
  for (const DruidOrdinal& o : setup) wiring.containers.push_back(o.pod);
  wiring.runbook = add_druid_runbook(world, scenario, wiring);
  built.set(std::move(wiring));
}

}  // namespace hasim
