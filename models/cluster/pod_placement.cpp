#include "models/cluster/pod_placement.hpp"

#include <algorithm>
#include <tuple>

#include "sim/assert.hpp"

namespace hasim::cluster {
namespace {

// FitError reasons, as the plugins word them.
constexpr const char* kUnschedulable = "node(s) were unschedulable";
constexpr const char* kNotReady = "node(s) had untolerated taint {node.kubernetes.io/not-ready: }";
constexpr const char* kInsufficientCpu = "Insufficient cpu";
constexpr const char* kInsufficientMemory = "Insufficient memory";
constexpr const char* kVolumeZone = "node(s) had no available volume zone";
constexpr const char* kAntiAffinity = "node(s) didn't match pod anti-affinity rules";
constexpr const char* kExistingAntiAffinity =
    "node(s) didn't satisfy existing pods anti-affinity rules";

bool matches(const std::map<std::string, std::string>& selector,
             const std::map<std::string, std::string>& labels) {
  // An empty selector matches nothing here (a term always names the set's labels).
  if (selector.empty()) return false;
  return std::all_of(selector.begin(), selector.end(), [&labels](const auto& kv) {
    const auto it = labels.find(kv.first);
    return it != labels.end() && it->second == kv.second;
  });
}

const SchedulingNode* find_node(const std::vector<SchedulingNode>& nodes, const std::string& name) {
  for (const SchedulingNode& node : nodes) {
    if (node.name == name) return &node;
  }
  return nullptr;
}

// The node's value for the key; nullopt when the node has no such label (then a term with
// that key cannot be violated on it: satisfyPodAntiAffinity skips it).
std::optional<std::string> topology_value(const SchedulingNode& node, TopologyKey key) {
  if (key == TopologyKey::Hostname) return node.name;
  if (node.zone.empty()) return std::nullopt;
  return node.zone;
}

bool same_domain(const SchedulingNode& a, const SchedulingNode& b, TopologyKey key) {
  const auto va = topology_value(a, key);
  return va && va == topology_value(b, key);
}

// A term of `owner` placed on `ownerNode` forbids `other` on `candidate`.
bool term_forbids(const AntiAffinityTerm& term, const std::map<std::string, std::string>& other,
                  const SchedulingNode& ownerNode, const SchedulingNode& candidate) {
  return matches(term.matchLabels, other) && same_domain(ownerNode, candidate, term.topologyKey);
}

std::string inter_pod_affinity(const PodSchedulingSpec& pod, const SchedulingNode& node,
                               const std::vector<SchedulingNode>& nodes,
                               const std::vector<ScheduledPod>& scheduled) {
  for (const ScheduledPod& existing : scheduled) {
    const SchedulingNode* where = find_node(nodes, existing.node);
    if (where == nullptr) continue;  // bound to a node that is gone
    for (const AntiAffinityTerm& term : pod.requiredAntiAffinity) {
      if (term_forbids(term, existing.spec.labels, node, *where)) return kAntiAffinity;
    }
  }
  for (const ScheduledPod& existing : scheduled) {
    const SchedulingNode* where = find_node(nodes, existing.node);
    if (where == nullptr) continue;
    for (const AntiAffinityTerm& term : existing.spec.requiredAntiAffinity) {
      if (term_forbids(term, pod.labels, *where, node)) return kExistingAntiAffinity;
    }
  }
  return "";
}

Resources requested_on(const SchedulingNode& node, const std::vector<ScheduledPod>& scheduled) {
  Resources sum;
  for (const ScheduledPod& existing : scheduled) {
    if (existing.node != node.name) continue;
    sum.milliCpu += existing.spec.requests.milliCpu;
    sum.memoryBytes += existing.spec.requests.memoryBytes;
  }
  return sum;
}

}  // namespace

std::vector<std::string> filter_node(const PodSchedulingSpec& pod, const SchedulingNode& node,
                                     const std::vector<SchedulingNode>& nodes,
                                     const std::vector<ScheduledPod>& scheduled) {
  HASIM_ASSERT(pod.requests.milliCpu >= 0 && pod.requests.memoryBytes >= 0);
  HASIM_ASSERT(std::any_of(nodes.begin(), nodes.end(),
                           [&node](const SchedulingNode& n) { return n.name == node.name; }));
  // The default profile's filter order; the first plugin that fails decides.
  if (node.unschedulable) return {kUnschedulable};
  if (!node.ready) return {kNotReady};
  const Resources used = requested_on(node, scheduled);
  std::vector<std::string> insufficient;
  if (pod.requests.milliCpu > node.allocatable.milliCpu - used.milliCpu) {
    insufficient.emplace_back(kInsufficientCpu);
  }
  if (pod.requests.memoryBytes > node.allocatable.memoryBytes - used.memoryBytes) {
    insufficient.emplace_back(kInsufficientMemory);
  }
  if (!insufficient.empty()) return insufficient;
  if (pod.volumeZone && node.zone != *pod.volumeZone) return {kVolumeZone};
  std::string affinity = inter_pod_affinity(pod, node, nodes, scheduled);
  if (!affinity.empty()) return {affinity};
  return {};
}

namespace {

// Lower is better: preferred anti-affinity weight violated, pods of the same set in the
// zone, on the node, then less free cpu.
using Score = std::tuple<int, int, int, std::int64_t>;

Score score(const PodSchedulingSpec& pod, const SchedulingNode& node,
            const std::vector<SchedulingNode>& nodes, const std::vector<ScheduledPod>& scheduled) {
  int violated = 0;
  int inZone = 0;
  int onNode = 0;
  for (const ScheduledPod& existing : scheduled) {
    const SchedulingNode* where = find_node(nodes, existing.node);
    if (where == nullptr) continue;
    for (const AntiAffinityTerm& term : pod.preferredAntiAffinity) {
      if (term_forbids(term, existing.spec.labels, node, *where)) violated += term.weight;
    }
    if (!matches(pod.spreadSelector, existing.spec.labels)) continue;
    if (same_domain(node, *where, TopologyKey::Zone)) ++inZone;
    if (where->name == node.name) ++onNode;
  }
  const Resources used = requested_on(node, scheduled);
  return {violated, inZone, onNode, -(node.allocatable.milliCpu - used.milliCpu)};
}

// fitError.Error(): "0/N nodes are available: " and the reasons' "count reason" strings,
// sorted, joined by ", ", ending with ".".
std::string fit_error(std::size_t nodeCount, const std::map<std::string, int>& reasons) {
  std::vector<std::string> parts;
  for (const auto& [reason, count] : reasons) parts.push_back(std::to_string(count) + " " + reason);
  std::sort(parts.begin(), parts.end());
  std::string message = "0/" + std::to_string(nodeCount) + " nodes are available";
  for (std::size_t i = 0; i < parts.size(); ++i) message += (i == 0 ? ": " : ", ") + parts[i];
  return message + ".";
}

}  // namespace

Placement place_pod(const PodSchedulingSpec& pod, const std::vector<SchedulingNode>& nodes,
                    const std::vector<ScheduledPod>& scheduled, std::uint64_t draw) {
  HASIM_ASSERT(
      std::all_of(pod.preferredAntiAffinity.begin(), pod.preferredAntiAffinity.end(),
                  [](const AntiAffinityTerm& t) { return t.weight >= 1 && t.weight <= 100; }));
  std::map<std::string, int> reasons;
  std::size_t failedNodes = 0;
  std::vector<std::size_t> best;
  std::optional<Score> bestScore;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::vector<std::string> failed = filter_node(pod, nodes[i], nodes, scheduled);
    for (const std::string& reason : failed) ++reasons[reason];
    if (!failed.empty()) {
      ++failedNodes;
      continue;
    }
    const Score s = score(pod, nodes[i], nodes, scheduled);
    if (!bestScore || s < *bestScore) {
      bestScore = s;
      best.clear();
    }
    if (s == *bestScore) best.push_back(i);
  }
  // A Pending pod's message accounts for every node: each failed with at least one reason.
  HASIM_ASSERT(!best.empty() || failedNodes == nodes.size());
  if (best.empty()) return {std::nullopt, fit_error(nodes.size(), reasons)};
  const std::size_t chosen = best[draw % best.size()];
  HASIM_ASSERT(chosen < nodes.size());
  HASIM_ASSERT(filter_node(pod, nodes[chosen], nodes, scheduled).empty());
  return {chosen, ""};
}

}  // namespace hasim::cluster
