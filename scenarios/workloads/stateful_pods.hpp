#pragma once
// One StatefulSet's pods on worker nodes, as kube-controller-manager, kube-scheduler, the
// node lifecycle controller and each node's kubelet move them: the Kubernetes pieces an
// operator such as etcd-druid stands on. It runs outside any process, like CloudCore's
// endpoints controller (scenarios/cloudcore/build.cpp): the API objects it keeps (the set,
// its pods, their claims) are the informers' view, always current, and each controller acts
// a fixed delay after a change it watches. The decisions are the pure units' of
// models/cluster/ (statefulset_control, pod_placement, probe_worker, kubelet_backoff); this
// file applies them to the World:
//  - a pod's containers are processes the system added for every ordinal the set may reach
//    (stopped, StartPolicy::on_demand); a pod bound to a node moves them there (stopped) and
//    its kubelet starts them; the first container owns the data volume, the others share it;
//  - the data volume is a PersistentVolumeClaim (a zonal network disk, bound on first use in
//    the zone of the pod's first node: WaitForFirstConsumer) or an emptyDir on the node's
//    first disk, wiped with the pod;
//  - a container that stops is restarted with the kubelet's back-off (restartPolicy Always);
//    the readiness probe runs on the kubelet's probe worker, answered by the container;
//  - a deleted pod's containers get SIGTERM and terminationGracePeriodSeconds; once they are
//    stopped the pod is gone and the StatefulSet controller creates it again;
//  - a node that goes down: after the node monitor grace period its pods are NotReady, after
//    the default not-ready toleration (300 s) they are evicted, which marks them for deletion
//    and nothing more while the kubelet is down (a StatefulSet pod on a dead node is never
//    force-deleted: the set cannot replace it until the node returns); a node that comes
//    back restarts the containers of the pods still bound to it, or finishes their deletion.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/cluster/disruption.hpp"
#include "models/cluster/drain.hpp"
#include "models/cluster/kubelet_backoff.hpp"
#include "models/cluster/pod_placement.hpp"
#include "models/cluster/probe_worker.hpp"
#include "models/cluster/statefulset_control.hpp"
#include "sim/disk.hpp"
#include "sim/trace.hpp"
#include "sim/world.hpp"

namespace hasim::workloads {

struct ContainerTemplate {
  std::string name;  // "etcd", "backup-restore"
  cluster::Resources requests;
  std::optional<cluster::ProbeSpec> readiness;  // an httpGet probe
};

enum class DataVolume : std::uint8_t { persistentVolumeClaim, emptyDir };

struct StatefulSetTemplate {
  std::string name;  // "etcd-main": pods "etcd-main-0", ...
  cluster::StatefulSetSpec spec;
  std::vector<ContainerTemplate> containers;
  DataVolume volume = DataVolume::persistentVolumeClaim;
  std::string volumeName = "data";  // the containers' name for it
  DiskParams persistentDisk;        // a claim's PersistentVolume
  std::map<std::string, std::string> labels;
  std::vector<cluster::AntiAffinityTerm> requiredAntiAffinity;
  Duration terminationGracePeriod = seconds(30);
  // The PodDisruptionBudget over the set's pods, as its owner keeps it: minAvailable for a
  // number of replicas (etcd-druid: a majority). Empty: no budget.
  std::function<int(int replicas)> budgetMinAvailable;
  cluster::UnhealthyPodEvictionPolicy unhealthyPodEvictionPolicy =
      cluster::UnhealthyPodEvictionPolicy::IfHealthyBudget;
};

// The processes one ordinal's containers run as, in template order, and the answer each
// container with a readiness probe gives (read only while it runs).
struct OrdinalContainers {
  std::vector<ProcessId> processes;
  std::vector<std::function<bool()>> readinessAnswer;  // empty function: no probe
};

struct WorkerNode {
  std::string name;
  cluster::Resources allocatable{4000, std::int64_t{16} << 30};
};

struct RuntimeTimings {
  Duration controllerDelay = milliseconds(100);  // an informer event reaches a controller
  Duration kubeletDelay = milliseconds(500);     // a bound pod's containers start (PLEG, pull)
  Duration nodeMonitorGracePeriod = seconds(40);
  Duration notReadyToleration = seconds(300);  // DefaultTolerationSeconds admission
  cluster::BackoffPolicy restart;
};

// What the API shows of one pod (kubectl get pod).
struct PodView {
  std::string name;
  std::string uid;
  std::optional<std::string> node;
  cluster::PodPhase phase = cluster::PodPhase::Pending;
  bool ready = false;            // the Ready condition
  bool containersReady = false;  // the ContainersReady condition
  bool terminating = false;
  std::string unschedulable;  // the scheduler's FitError while Pending
};

class StatefulPods final : public TraceObserver {
 public:
  StatefulPods(World& world, StatefulSetTemplate set, std::vector<WorkerNode> workers,
               std::vector<OrdinalContainers> ordinals, RuntimeTimings timings);
  // The pod template changes (a new image): a new update revision, which the RollingUpdate
  // strategy rolls out from the highest ordinal. `pullFails`: the new image cannot be pulled
  // (ErrImagePull), so the new revision's containers never start (ImagePullBackOff).
  void roll(std::string revision, bool pullFails);
  // spec.replicas changes (a create, kubectl scale; at most the ordinals given).
  void scale(int replicas);
  // kubectl delete pod: a graceful deletion, whoever asks (an operator, a controller).
  void delete_pod(int ordinal, std::string_view reason);
  // Container `container` of pod `ordinal` crashes at every start until `until` (a bad flag,
  // a corrupt file it reads): CrashLoopBackOff under the kubelet's back-off. It crashes now
  // too if it runs.
  void crash_loop(int ordinal, std::size_t container, TrueTime until);
  // kubectl drain NODE (drain_runtime.cpp): cordon, then evict the set's pods on it through
  // the PodDisruptionBudget, each on kubectl's loop; `uncordon` makes it schedulable again.
  void drain(const std::string& node, const cluster::DrainOptions& options);
  void uncordon(const std::string& node);
  // The claim's PersistentVolume of pod `ordinal` fails (a lost cloud disk): its data is gone,
  // the pod's containers, which mount it, crash, and the kubelet restarts them on the empty
  // volume. False (nothing happens) when the claim has no volume yet. Claims only.
  bool lose_volume(int ordinal);
  // kubectl delete pvc -l instance=<set>: every claim whose pod is gone is deleted with its
  // PersistentVolume (reclaimPolicy Delete), so the pod's next incarnation starts on an empty
  // volume. hasim keeps the new volume in the old one's zone (a new claim would bind in the
  // zone of the pod's next node). Returns how many claims went.
  int delete_claims();

  // The budget's owner changed minAvailable: the disruption controller syncs it again.
  void budget_changed() { sync_budget(); }
  std::optional<PodView> pod(int ordinal) const;
  int replicas() const { return set_.spec.replicas; }
  // The Ready pods' processes of container `container`: a Service's ready endpoints.
  std::vector<ProcessId> ready_endpoints(std::size_t container) const;

  bool wants(std::string_view kind) const override;
  void on_event(const TraceEvent& event) override;

 private:
  struct Container {
    bool running = false;
    int restarts = 0;
    std::optional<cluster::ProbeWorker> readiness;
    cluster::ProbeResult result = cluster::ProbeResult::Unknown;
  };
  struct Pod {
    std::uint64_t generation = 0;  // the pod object's identity (its UID)
    std::string revision;
    std::optional<NodeId> node;
    cluster::PodPhase phase = cluster::PodPhase::Pending;
    bool ready = false;
    LocalTime readySince{};
    bool terminating = false;
    std::string unschedulable;
    std::uint64_t scheduleAttempts = 0;  // failed attempts: only the last one's retry runs
    std::vector<Container> containers;
  };
  struct Node {
    NodeId id = 0;
    std::string zone;
    bool up = true;
    bool cordoned = false;        // spec.unschedulable
    bool notReady = false;        // the node lifecycle controller's NotReady (taint)
    std::uint64_t downSince = 0;  // generation of the outage, for its delayed steps
  };

  // statefulset_runtime.cpp
  void request_sync();
  void sync();
  void complete_rolling_update();
  void create_pod(int ordinal, const std::string& revision);
  void remove_pod(int ordinal);
  std::string pod_name(int ordinal) const;
  std::string uid(int ordinal) const;
  // scheduler_runtime.cpp
  void schedule(int ordinal);
  cluster::PodSchedulingSpec scheduling_spec(int ordinal) const;
  void retry_unschedulable();
  void bind(int ordinal, std::size_t worker);
  void attach_volume(int ordinal, NodeId node);
  // kubelet_runtime.cpp
  void start_containers(int ordinal, std::uint64_t generation);
  void on_stopped(int ordinal, std::size_t container, StopReason reason);
  void probe(int ordinal, std::size_t container, std::uint64_t generation);
  void update_ready(int ordinal);
  void terminate_containers(int ordinal);
  void node_down(std::size_t worker);
  void node_up(std::size_t worker);
  void node_lifecycle(std::size_t worker, std::uint64_t outage);
  void trace(std::string_view kind, int ordinal, std::vector<TraceField> fields);
  // drain_runtime.cpp: the disruption controller and the eviction subresource.
  void sync_budget();
  cluster::EvictionResponse evict(int ordinal);
  void drain_step(int ordinal, std::uint64_t generation,
                  std::shared_ptr<cluster::PodEvictionLoop> loop,
                  cluster::PodEvictionLoop::Step step, std::shared_ptr<int> left, std::string node);
  std::optional<std::size_t> worker_index(const std::string& node) const;

  World& world_;
  StatefulSetTemplate set_;
  std::vector<WorkerNode> workers_;
  std::vector<Node> nodes_;  // by worker index
  std::vector<OrdinalContainers> ordinals_;
  RuntimeTimings timings_;
  std::map<int, Pod> pods_;                // by ordinal: the pods that exist
  std::map<int, std::string> claimZones_;  // by ordinal: where its claim's volume lives
  std::uint64_t nextGeneration_ = 1;
  bool syncQueued_ = false;
  std::optional<cluster::PdbStatus> budget_;  // the disruption controller's last status
  std::set<std::string> unpullable_;          // revisions whose image cannot be pulled
  std::map<ProcessId, TrueTime> crashing_;    // containers that crash at start, until when
  void start_container(ProcessId process);
  cluster::KubeletBackoff backoff_;
  Rng rng_;  // the scheduler's draws
};

}  // namespace hasim::workloads
