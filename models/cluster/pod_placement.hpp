#pragma once
// Where kube-scheduler may put a pod, and which node it picks: the filters that decide
// whether a StatefulSet's pod can run at all (pkg/scheduler/framework/plugins):
//  - NodeUnschedulable (a cordoned node: spec.unschedulable),
//  - TaintToleration for the node lifecycle taints node.kubernetes.io/not-ready and
//    /unreachable (NoSchedule; pods here tolerate neither at scheduling time),
//  - NodeResourcesFit (cpu and memory requests against allocatable minus requested),
//  - InterPodAffinity's required anti-affinity, both ways (the incoming pod's terms, and
//    existing pods' terms against the incoming pod), by hostname or zone,
//  - VolumeZone (a pod whose bound volume lives in one zone runs only in that zone);
// then a score and a pick among the best (selectHost's reservoir sampling, here one draw).
// A pod no node fits stays Pending with the scheduler's FitError message.
//
// The score is not upstream's weighted sum of a dozen plugins; it ranks by what decides
// placements of a StatefulSet's pods: preferred anti-affinity violated (by weight), then
// the system-default PodTopologySpread (fewest pods of the same set in the node's zone, then
// on the node), then the most free cpu (LeastAllocated). Pure: the caller draws the random.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hasim::cluster {

struct Resources {
  std::int64_t milliCpu = 0;
  std::int64_t memoryBytes = 0;
};

struct SchedulingNode {
  std::string name;
  std::string zone;            // topology.kubernetes.io/zone ("" when unlabelled)
  bool ready = true;           // false: the not-ready/unreachable taint is on it
  bool unschedulable = false;  // cordoned (a drain cordons first)
  Resources allocatable;
};

enum class TopologyKey { Hostname, Zone };

// A required or preferred (weight > 0) anti-affinity term: no pod whose labels include all
// of `matchLabels` in the same topology domain.
struct AntiAffinityTerm {
  std::map<std::string, std::string> matchLabels;
  TopologyKey topologyKey = TopologyKey::Hostname;
  int weight = 0;  // preferred terms only (1..100)
};

struct PodSchedulingSpec {
  std::map<std::string, std::string> labels;
  Resources requests;
  std::vector<AntiAffinityTerm> requiredAntiAffinity;
  std::vector<AntiAffinityTerm> preferredAntiAffinity;
  std::optional<std::string> volumeZone;              // zone of a bound PersistentVolume
  std::map<std::string, std::string> spreadSelector;  // the owning set's selector
};

// A pod already bound to a node (every phase but Succeeded/Failed counts, as upstream).
struct ScheduledPod {
  std::string node;
  PodSchedulingSpec spec;
};

struct Placement {
  std::optional<std::size_t> node;  // index into the nodes given
  std::string message;              // FitError when no node fits, else empty
};

// `draw` picks uniformly among the best-scored nodes (draw % count).
Placement place_pod(const PodSchedulingSpec& pod, const std::vector<SchedulingNode>& nodes,
                    const std::vector<ScheduledPod>& scheduled, std::uint64_t draw);

// The filter alone: no reasons when the node fits, else the failing plugin's reasons as the
// FitError counts them (NodeResourcesFit may give two).
std::vector<std::string> filter_node(const PodSchedulingSpec& pod, const SchedulingNode& node,
                                     const std::vector<SchedulingNode>& nodes,
                                     const std::vector<ScheduledPod>& scheduled);

}  // namespace hasim::cluster
